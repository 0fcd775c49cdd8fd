package shast

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/internal/scripts"
)

// depthOf is how deep the scanner measures src.
func depthOf(src string) int {
	sc := nestScanner{src: src, limit: 1 << 30}
	sc.scan()
	return sc.max
}

func TestNestingDepth(t *testing.T) {
	for _, tc := range []struct {
		src   string
		depth int
	}{
		{"echo hi", 0},
		{"( echo hi )", 1},
		{"( ( echo ) ); ( echo )", 2},
		{"echo $(echo $(echo))", 2},
		{"echo $(( (1 + 2) * 3 ))", 4},
		{"echo ${a:-${b}}", 3},
		{"a | b | c; d", 2},
		{"a &&\n b &&\n c", 2},
		{"a\nb\nc", 0},
		{"if a; then if b; then c; fi; fi", 2},
		{"if a; then echo fi; fi", 1},
		{"while a; do b; done; for x in y; do z; done", 1},
		{"case $x in a) ( b );; (c) d;; esac", 2},
		{"{ { a; }; }", 2},
		{"echo {a,{b,c}} }", 2},
		{"f() { a; }", 2},
		{"[[ ( a && b ) ]]", 3},
		{"echo '((((((' \"((((\" # ((((", 1},
		{"cat <<EOF\n((((( $(a) {{{{\nEOF\n( b )", 2},
		{"cat <<'EOF'\n(((((\nEOF\n", 1},
		{"echo `a` `b`", 1},
		{"x=$((1)) y=\"$(a)\"", 2},
		{"((a) )", 2},
		{"a=(1 2 (3))", 2},
	} {
		if got := depthOf(tc.src); got != tc.depth {
			t.Errorf("depthOf(%q) = %d, want %d", tc.src, got, tc.depth)
		}
	}
}

// TestNestingRefusal: what mvdan/sh would overflow its stack on is
// refused where it goes past the limit, and as deep as the limit is not.
func TestNestingRefusal(t *testing.T) {
	n := MaxNesting
	for _, deep := range []func(int) string{
		func(n int) string { return strings.Repeat("( ", n) + "echo deep" + strings.Repeat(" )", n) },
		func(n int) string { return strings.Repeat("{ ", n) + "echo;" + strings.Repeat(" }", n) },
		func(n int) string { return "echo " + strings.Repeat("$(", n) + "echo" + strings.Repeat(")", n) },
		func(n int) string { return strings.Repeat("if a; then ", n) + "b" + strings.Repeat("; fi", n) },
		func(n int) string { return "echo " + strings.Repeat("${x:-", n) + "y" + strings.Repeat("}", n) },
		func(n int) string { return "a" + strings.Repeat(" | a", n) },
		func(n int) string { return "a" + strings.Repeat(" &&\na", n) },
		func(n int) string { return "echo $((1" + strings.Repeat("+1", n) + "))" },
		func(n int) string { return "echo " + strings.Repeat("{a,", n) + "b" + strings.Repeat("}", n) },
		func(n int) string { return strings.Repeat("f() ", n) + "a" },
		func(n int) string { return strings.Repeat("time ", n) + "a" },
		func(n int) string { return "[[ " + strings.Repeat("( ", n) + "a" + strings.Repeat(" )", n) + " ]]" },
		func(n int) string { return strings.Repeat("if a; then x=1 fi; ", n) },
		func(n int) string { return strings.Repeat("{ echo }; ", n) },
	} {
		src := deep(n + 1)
		e, ok := CheckNesting(src)
		if !ok {
			t.Errorf("not refused: %.60q…", src)
			continue
		}
		if e.Line == 0 {
			t.Errorf("%.40q: %+v has no line", src, e)
		}
		if _, ok := CheckNesting(deep(n / 2)); ok {
			t.Errorf("refused at half the limit: %.60q…", deep(n/2))
		}
	}
	e, _ := CheckNesting(strings.Repeat("( ", 1001) + "echo deep" + strings.Repeat(" )", 1001))
	if e.Line != 1 || e.Col != 2001 {
		t.Errorf("at %d:%d, want 1:2001", e.Line, e.Col)
	}
}

// FuzzNesting: the scanner never measures a script shallower than the
// parser builds it, a few syntax nodes to a level.
func FuzzNesting(f *testing.F) {
	for _, seed := range []string{
		"( ( a ) ); { b; }", "echo $(a $(b)) ${c:-${d}} $(( (1+2)*3 ))",
		"if a; then while b; do case c in d) e;; esac; done; fi",
		"cat <<EOF\n$(a)\nEOF\n", "[[ ( a && b ) || c ]]", "f() { g() { :; }; }",
		"a | b && c || d; ! e", "x=(1 (2) 3) `a`", "((a) ); $((1)) `b`",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			t.Skip()
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil {
			return
		}
		depth, deepest := 0, 0
		syntax.Walk(file, func(n syntax.Node) bool {
			if n == nil {
				depth--
				return true
			}
			depth++
			deepest = max(deepest, depth)
			return true
		})
		if scanned := depthOf(src); deepest > 8*(scanned+1)+4 {
			t.Errorf("the scanner measures %q %d deep; its syntax tree is %d nodes deep", src, scanned, deepest)
		}
	})
}

// nestingShapes are scripts of the shapes the scanner has a loop for.
var nestingShapes = []struct {
	name string
	src  string
}{
	{"thousand", scripts.ThousandStatements()},
	{"heredoc", "cat <<EOF\n" + strings.Repeat("line $i of ${name} with `date` and \\$ and \"quotes\"\n", 500) + "EOF\necho done\n"},
	{"quoted", "echo \"" + strings.Repeat("a long string with $x and ${y:-z} words in it ", 500) + "\"\n"},
	{"arith", strings.Repeat("x=$(( (x * 31 + y) % 1000003 )); (( i++, j -= 2 ))\n", 500)},
	{"comments", strings.Repeat("# a comment line that explains ( what { follows\necho hi # and a trailing one\n", 500)},
	{"deep", strings.Repeat("( { if a; then ", 200) + "echo $(b | c)" + strings.Repeat("; fi; }; )", 200) + "\n"},
}

func BenchmarkNesting(b *testing.B) {
	for _, shape := range nestingShapes {
		b.Run(shape.name, func(b *testing.B) {
			b.SetBytes(int64(len(shape.src)))
			for b.Loop() {
				if _, ok := CheckNesting(shape.src); ok {
					b.Fatal("refused")
				}
			}
		})
	}
}
