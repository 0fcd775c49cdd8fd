package shast

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// walkCorpus has every kind of node the parser makes in bash, and
// comments wherever they can stand.
var walkCorpus = []string{
	"echo hi",
	"a=1 b=(x y) c[2]=z; echo \"$a\" '$b' $'c\\n' ${c[2]}",
	"# lead\necho one # trailing\n# between\necho two\n# last",
	"if true; then echo a; elif false; then echo b; else echo c; fi # after",
	"if # c1\n true # c2\nthen # c3\n echo a # c4\nelse # c5\n echo b # c6\nfi",
	"while read -r l; do echo \"$l\"; done < f; until false; do break; done",
	"for i in 1 2 \"$x\"; do echo $i; done; for ((i = 0; i < 3; i++)); do :; done; for ((;;)); do break; done",
	"f() { echo \"$1\"; }; function g { return 1; }; h() ( exit 2 )",
	"a && b || ! c | d |& e; { x; y; } > out 2>&1; (z) &",
	"echo $(date) `pwd` $((1 + 2 * (3 - x++))) $(( a ? b : c, d += 2, -e, ~f ))",
	"echo ${a:-x} ${a:=y} ${#a} ${a%%.*} ${a/b/c} ${a//b} ${a:1:2} ${!a} ${!pre*} ${a[@]} ${a^^} ${a@Q}",
	"case $x in a|b) echo ab;; # c\n c*) echo c;& d) ;;& *) ;; esac",
	"case $x in\n # before item\n a) echo a # in item\n ;; # after item\n # between items\n b) ;;\n # end\nesac",
	"[[ -f a && ( $b == c* || $d =~ ^e[0-9]+$ ) && ! -z $f ]]; [[ a -nt b ]]",
	"declare -A m=([k]=v [j]=w); local -r x=1; export y; readonly z=2; typeset -i n",
	"arr=(\n # first\n one # c1\n [3]=three # c3\n # tail\n)",
	"let 'x = 1 + 2' y++; (( x > 1 )) && echo big",
	"time { sleep 0; }; time -p echo; coproc cat; coproc NAME { cat; }",
	"shopt -s extglob; echo @(a|b) !(c) *(d) +(e) ?(f)",
	"cat <<EOF\n$x $(y)\nEOF\ncat <<-'T'\n\tliteral\n\tT\ncat <<< \"$here\"",
	"diff <(sort a) >(cat) 3>&1 4<&0 5<>f >|g &>h",
	"echo {a,b}{1..3} ~ ~user/x a\\ b \"q\\\"\" $'\\x41'",
	"x=$(\n # comment in subst\n echo hi # trailing\n)",
	"f() {\n # only a comment\n}",
	"! true; echo $? $$ $! $# $@ $* $- $0 ${10}",
	"select x in a b; do break; done",
}

// trace is what f sees of a walk: each node's kind and span, nil at the
// end of each node's children.
func trace(walker func(syntax.Node, func(syntax.Node) bool), n syntax.Node, prune func(syntax.Node) bool) []string {
	var out []string
	walker(n, func(n syntax.Node) bool {
		if n == nil {
			out = append(out, "end")
			return true
		}
		out = append(out, fmt.Sprintf("%T %s-%s", n, n.Pos(), n.End()))
		return prune == nil || !prune(n)
	})
	return out
}

func parseAny(src string) (*syntax.File, bool) {
	for _, lang := range []syntax.LangVariant{syntax.LangBash, syntax.LangMirBSDKorn, syntax.LangPOSIX, syntax.LangBats, syntax.LangZsh} {
		if f, err := syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(true)).Parse(strings.NewReader(src), ""); err == nil {
			return f, true
		}
	}
	return nil, false
}

// pruners are visitors that stop at some kinds of node, so that the walks
// are compared where f returns false too.
var pruners = map[string]func(syntax.Node) bool{
	"all": nil,
	"calls": func(n syntax.Node) bool {
		_, ok := n.(*syntax.CallExpr)
		return ok
	},
	"words": func(n syntax.Node) bool {
		_, ok := n.(*syntax.Word)
		return ok
	},
	"stmts": func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		return ok && st.Background
	},
}

func TestWalkAsSyntaxWalk(t *testing.T) {
	kinds := map[string]bool{}
	for _, src := range walkCorpus {
		f, ok := parseAny(src)
		if !ok {
			t.Fatalf("no variant parses %q", src)
		}
		for name, prune := range pruners {
			want := trace(syntax.Walk, f, prune)
			got := trace(Walk, f, prune)
			if !slices.Equal(got, want) {
				t.Errorf("%q, pruning %s:\n got %v\nwant %v", src, name, got, want)
			}
			for _, line := range want {
				kinds[strings.Fields(line)[0]] = true
			}
		}
	}
	// The corpus reaches the kinds that matter: those the static pass
	// acts on, comments in every place they stand, and the rarer
	// clauses.
	for _, kind := range []string{"*syntax.Comment", "*syntax.CaseItem", "*syntax.ArrayElem", "*syntax.CoprocClause",
		"*syntax.TimeClause", "*syntax.LetClause", "*syntax.ExtGlob", "*syntax.ProcSubst", "*syntax.CStyleLoop",
		"*syntax.WordIter", "*syntax.DeclClause", "*syntax.TestClause", "*syntax.BinaryTest", "*syntax.UnaryTest",
		"*syntax.ParenTest", "*syntax.ParenArithm", "*syntax.UnaryArithm", "*syntax.BinaryArithm", "*syntax.ArithmCmd",
		"*syntax.Redirect", "*syntax.FuncDecl", "*syntax.Subshell", "*syntax.Block", "*syntax.IfClause", "*syntax.WhileClause"} {
		if !kinds[kind] {
			t.Errorf("the corpus has no %s", kind)
		}
	}
}

func FuzzWalk(f *testing.F) {
	for _, src := range walkCorpus {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, ok := parseAny(src)
		if !ok {
			return
		}
		for name, prune := range pruners {
			if got, want := trace(Walk, file, prune), trace(syntax.Walk, file, prune); !slices.Equal(got, want) {
				t.Fatalf("%q, pruning %s:\n got %v\nwant %v", src, name, got, want)
			}
		}
	})
}

// branchesOf is a trace of walk as WalkBranches should see it: without
// the ends, the words and the literals.
func branchesOf(full []string) []string {
	var out []string
	for _, line := range full {
		if kind := strings.Fields(line)[0]; kind != "end" && kind != "*syntax.Word" && kind != "*syntax.Lit" {
			out = append(out, line)
		}
	}
	return out
}

// checkBranches compares WalkBranches with walk on f, with every pruner
// that stops at neither words nor literals (WalkBranches shows its visitor
// neither).
func checkBranches(t *testing.T, src string, f *syntax.File) {
	t.Helper()
	for name, prune := range pruners {
		if name == "words" {
			continue
		}
		if got, want := trace(WalkBranches, f, prune), branchesOf(trace(Walk, f, prune)); !slices.Equal(got, want) {
			t.Fatalf("%q, pruning %s:\n got %v\nwant %v", src, name, got, want)
		}
	}
}

func TestWalkBranchesAsWalk(t *testing.T) {
	for _, src := range walkCorpus {
		f, ok := parseAny(src)
		if !ok {
			t.Fatalf("no variant parses %q", src)
		}
		checkBranches(t, src, f)
	}
}

func FuzzWalkBranches(f *testing.F) {
	for _, src := range walkCorpus {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if file, ok := parseAny(src); ok {
			checkBranches(t, src, file)
		}
	})
}
