package rewrite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// scriptCorpus is the scripts of the bash comparison's cases
// (kernel/testdata/bashdiff) and a few of every kind of nesting.
func scriptCorpus(t testing.TB) []string {
	srcs := []string{
		"( ( a ) ); { b; }", "echo $(a $(b)) ${c:-${d}} $(( (1+2)*3 ))",
		"if a; then while b; do case c in d) e;; esac; done; fi",
		"cat <<EOF\n$(a)\nEOF\n", "[[ ( a && b ) || c ]]", "f() { g() { :; }; }",
		"a | b && c || d; ! e", "x=(1 (2) 3) `a`", "((a) ); $((1)) `b`",
		"echo \"a $x b\\\"c ${y} `d` $(e)\" 'q' $'r\\'s' $\"t\"\nx=1 fi\ncat <<-'E'\n\t$(a\nE\n",
		"for ((i=0;i<3;i++)); do [[ $a == x* ]] && echo \"$a\"; done; a{b,c}d {x,y} }",
	}
	files, _ := filepath.Glob("../../testdata/bashdiff/*.txtar")
	for _, name := range files {
		a, err := txtar.ParseFile(name)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, string(a.Comment))
		for _, f := range a.Files {
			srcs = append(srcs, string(f.Data))
		}
	}
	return srcs
}

// rewritableSeeds are scripts of the nodes Rewritable judges one by one,
// arithmetic expansions above all.
var rewritableSeeds = []string{
	"x=$((x+1)); y=$(( (a) - -b * c ))", "echo $((1/x)) $((x%0)) $((a**-1))",
	"echo $((09)) $((2#3)) $((65#1)) $((0x)) $((-(08)))", "x=$((a=09)) $((a+=1/0)) $((a/=0))",
	"echo $((x++)) $((--x)) $((a[1]++)) $((!09)) $((a?1/0:2))", "echo ${a[1/0]} ${s:1/0} $((a[1/0]))",
	"let x=1/0; [[ 1 -eq 09 ]]; for ((i=0;i<1/0;i++)); do :; done", "x=a\\ b; echo $(<f) ${!} $! ${DIRSTACK}",
	"a & b; (c & d); declare -n r=x; f <(g)",
	"[[ $a == x* && -n $b ]]; [[ a -lt b || ( x =~ 'y'. ) ]]; [[ $(( 1/x )) == 1 ]]; [[ $([[ 1 -eq 2 ]]) ]]",
	"[[ ! 09 -ne 1 ]]; [[ a = \"x\" ]]; [[ x =~ $re ]]; [[ -f $f ]]",
	"declare -A m; m=([k]=v); m=(); m+=([a]=1 [$b]=2); a=(x y); a+=(z); m[k]+=s; a[$i]+=t; a[1]+=",
	"(( c[$w]++ )); (( --a[0] )); (( m[k] += 2 )); (( a[i] = 7 )); (( a[i+1]++ )); (( x++ ))",
	"[[ -v m[k] ]]; [[ -v a[$i] ]]; [[ -v a[-1] ]]; [[ -v a[i+1] ]]; [[ -v x ]]",
	"echo ${#m[@]} \"${!m[@]}\" ${!ref} ${!ref:-d} ${!ref:=d} ${!p*} ${!#} $?",
	"declare -n r=x; r[0]=1; echo \"${r[@]}\" ${!r[*]}; declare -rA q; local -gA g; typeset -n s=t",
}

// rewritesExactly fails t when Script changes how src prints but
// Rewritable is false for every node of it: validate would have run it
// as parsed; and when src's hints (HintsOf) judge a node otherwise.
func rewritesExactly(t *testing.T, src string) {
	t.Helper()
	parse := func() *syntax.File {
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil {
			return nil
		}
		return f
	}
	f := parse()
	if f == nil {
		return
	}
	any, hints := false, HintsOf(src)
	shast.Walk(f, func(n syntax.Node) bool {
		r := Rewritable(n)
		if hinted := hints.Rewritable(n); hinted != r {
			t.Errorf("%q: a %T: Rewritable %v, with the script's hints %v", src, n, r, hinted)
		}
		any = any || r
		return true
	})
	if any {
		return
	}
	var before, after strings.Builder
	syntax.NewPrinter().Print(&before, f)
	Script(f, false)
	syntax.NewPrinter().Print(&after, f)
	if before.String() != after.String() {
		t.Fatalf("%q: no node is rewritable, but the rewrite prints %q", src, after.String())
	}
}

func TestRewritableIsExact(t *testing.T) {
	for _, src := range append(scriptCorpus(t), rewritableSeeds...) {
		rewritesExactly(t, src)
		for line := range strings.SplitSeq(src, "\n") {
			rewritesExactly(t, line)
		}
	}
}

func FuzzRewritable(f *testing.F) {
	for _, src := range append(scriptCorpus(f), rewritableSeeds...) {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			t.Skip()
		}
		rewritesExactly(t, src)
	})
}

// The plain expansions' quick judgement (plainParamRewritable) is the
// general one's, on every expansion of the corpus.
func TestPlainParamRewritableAsGeneral(t *testing.T) {
	srcs := append(scriptCorpus(t), rewritableSeeds...)
	srcs = append(srcs, "echo $10 ${10} ${010} ${01} ${9} $- ${-} $! ${PIPESTATUS} $BASHPID ${BASH_SUBSHELL} $DIRSTACK $SHELLOPTS ${BASHOPTS} $x ${x} $@ ${#}")
	checked := 0
	for _, src := range srcs {
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil {
			continue
		}
		shast.Walk(f, func(n syntax.Node) bool {
			if pe, ok := n.(*syntax.ParamExp); ok {
				checked++
				if got, want := RewritableNode(pe), paramRewritable(pe, AllHints); got != want {
					var b strings.Builder
					syntax.NewPrinter().Print(&b, &syntax.Word{Parts: []syntax.WordPart{pe}})
					t.Errorf("%s: RewritableNode = %v, paramRewritable %v", b.String(), got, want)
				}
			}
			return true
		})
	}
	if checked < 1000 {
		t.Fatalf("only %d expansions checked", checked)
	}
}

// A script that names one of the identity variables has hints that say
// so, whatever the name.
func TestHintsAnsweredNamesTheIdentity(t *testing.T) {
	for _, name := range shast.IdentityVars {
		if !HintsOf(`echo "$` + name + `" | cat`).Answered() {
			t.Errorf("HintsOf a script naming %s: not Answered", name)
		}
	}
	if HintsOf(`echo "$HOME" | cat`).Answered() {
		t.Error("HintsOf a script naming none: Answered")
	}
}
