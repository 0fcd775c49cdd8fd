package rewrite

import (
	"io"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// TestBadConstant is bash's grammar of integer constants: the message of
// each it rejects, and none for those it takes.
func TestBadConstant(t *testing.T) {
	for _, tc := range []struct{ lit, msg string }{
		{"09", `value too great for base (error token is "09")`},
		{"2#3", `value too great for base (error token is "2#3")`},
		{"37#Z", `value too great for base (error token is "37#Z")`},
		{"0x1G", `value too great for base (error token is "0x1G")`},
		{"12abc", `value too great for base (error token is "12abc")`},
		{"65#1", `invalid arithmetic base (error token is "65#1")`},
		{"1#1", `invalid arithmetic base (error token is "1#1")`},
		{"0#1", `invalid number (error token is "0#1")`},
		{"010#1", `invalid number (error token is "010#1")`},
		{"2#", `invalid integer constant (error token is "2#")`},
		{"1.5", `syntax error: invalid arithmetic operator (error token is ".5")`},
		{"0", ""}, {"017", ""}, {"0x", ""}, {"0X1f", ""}, {"64#@", ""}, {"64#_", ""},
		{"36#Zz", ""}, {"37#z", ""}, {"2#1011", ""}, {"x", ""}, {"_1", ""},
	} {
		msg, _ := badConstant(shast.LitWord(tc.lit))
		if msg != tc.msg {
			t.Errorf("badConstant(%q) = %q, want %q", tc.lit, msg, tc.msg)
		}
	}
}

// TestGuardArithmPrints shows the guards as the printer has them, and
// what is left alone: commands' expressions, side-effecting divisors.
func TestGuardArithmPrints(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"echo $((a/b))", `echo $((a / ((b) ? (b) : ${a / b?division by 0 (error token is "b")})))`},
		{"echo $((a**b))", `echo $((a ** ((b) >= 0 ? (b) : ${a ** b?exponent less than 0 (error token is "b")})))`},
		{"echo $((a/i++)) $((a/$(f))) $((a/RANDOM))", "echo $((a / i++)) $((a / $(f))) $((a / RANDOM))"},
		{"(( a/b )); let a/b; for ((i = a/b; ; )); do :; done", "((a / b))\nlet a/b\nfor ((i = a / b; ; )); do :; done"},
		{"[[ x+1 -eq 5 ]]", "[[ $((x + 1)) -eq 5 ]]"},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(tc.src), "")
		if err != nil {
			t.Fatal(err)
		}
		guardArithm(f)
		var b strings.Builder
		syntax.NewPrinter().Print(&b, f)
		if got := strings.TrimSpace(b.String()); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// TestGuardArithmBounded: guards nest at most maxGuardDepth deep along a
// divisor, so the evaluations stay bounded however deep the divisions.
func TestGuardArithmBounded(t *testing.T) {
	src := "echo $((" + strings.Repeat("1/(", 40) + "1" + strings.Repeat(")", 40) + "))"
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatal(err)
	}
	guardArithm(f)
	guards := 0
	syntax.Walk(f, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Exp != nil && pe.Exp.Op == syntax.ErrorUnset {
			guards++
		}
		return true
	})
	// Each guard holds its divisor twice; the walk counts every path.
	if guards > 1<<(maxGuardDepth+1) {
		t.Errorf("%d guards reached, want at most %d", guards, 1<<(maxGuardDepth+1))
	}
}

// FuzzGuardArithm rewrites arbitrary source: the rewrite and printing
// its result must never panic.
func FuzzGuardArithm(f *testing.F) {
	for _, seed := range []string{
		"echo $((1/0)) $((a%b)) $((2**-1)) $((x/=y)) $((09)) $((2#3)) $[1/0]",
		"a=(1 2); echo ${a[1/x]} ${s:1/x:2**y}; a[1/x]=3",
		"let 'a = 3 * 4' \"b = a / 0\" 'c[1]=2' 'a++' '((('",
		"[[ x+1 -eq 5 && $y -lt 'a/b' ]]; (( a/b )); for ((i=1/x; i<2**y; i++)); do :; done",
		"echo $(( a / (b / (c / (d / (e / f)))) )) $(( 1 / $(( 1 / 0 )) ))",
		"f() { echo $((1/x)); }; echo $(( a ? b / c : d ** e ))",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if _, deep := shast.CheckNesting(src); deep {
			t.Skip()
		}
		file, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			t.Skip()
		}
		guardArithm(file)
		syntax.NewPrinter().Print(io.Discard, file)
	})
}

// BenchmarkGuardArithm is the rewrite's cost on a call without
// arithmetic (compare BenchmarkRunEcho) and on one with.
func BenchmarkGuardArithm(b *testing.B) {
	for _, tc := range []struct{ name, src string }{
		{"none", "echo hi"},
		{"some", "x=3; echo $((9/x)) $((2**x)); (( x > 1 ))"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			// A tree is guarded once: parse them all first.
			files := make([]*syntax.File, b.N)
			for i := range files {
				f, err := syntax.NewParser().Parse(strings.NewReader(tc.src), "")
				if err != nil {
					b.Fatal(err)
				}
				files[i] = f
			}
			b.ReportAllocs()
			b.ResetTimer()
			for _, f := range files {
				guardArithm(f)
			}
		})
	}
}

// guardArithm is the arithmetic rewrite alone, on every node of file.
func guardArithm(file *syntax.File) {
	syntax.Walk(file, func(n syntax.Node) bool {
		guardArithmNode(n)
		return true
	})
}
