package rewrite

import (
	"strconv"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// A process substitution sets $! in bash, to the pid of the subshell
// that runs it, whose status wait then gives. mvdan/sh names it gN, the
// N-th background of the shell that expanded it, which its own wait
// knows; $! reads BangVar (renameBang), which only the kernel set. So
// each process substitution is followed, in its word, by a part that
// expands to nothing and sets BangVar as it goes:
//
//	<(list)  becomes  <(list)${SHELTER_BANG:$(( (SHELTER_BANG = ProcSubstBase + ${!/g/}) * 0 )):0}
//
// where ${!/g/} is mvdan/sh's own $! (no position: renameBang leaves it),
// N of the substitution just made. The kernel's wait takes
// ProcSubstBase+N back to gN, for mvdan/sh's wait in that shell.

// ProcSubstBase is above every pid (2^22 at most) and every stand-in of
// a job that runs no program (2^22 plus its id): the $! of a process
// substitution is ProcSubstBase plus N, for mvdan/sh's gN.
const ProcSubstBase = 2 << 22

// markProcSubsts puts the part that sets BangVar after each process
// substitution of w.
func markProcSubsts(w *syntax.Word) {
	var out []syntax.WordPart
	for i, p := range w.Parts {
		if _, ok := p.(*syntax.ProcSubst); !ok {
			if out != nil {
				out = append(out, p)
			}
			continue
		}
		if out == nil {
			out = append(make([]syntax.WordPart, 0, len(w.Parts)+1), w.Parts[:i]...)
		}
		out = append(out, p, procSubstBang())
	}
	if out != nil {
		w.Parts = out
	}
}

// procSubstBang is the part that follows a process substitution.
func procSubstBang() *syntax.ParamExp {
	num := func(n int) *syntax.Word { return shast.LitWord(strconv.Itoa(n)) }
	// mvdan/sh's own $!, gN, less its g.
	ownBang := &syntax.Word{Parts: []syntax.WordPart{&syntax.ParamExp{
		Param: &syntax.Lit{Value: "!"},
		Repl:  &syntax.Replace{Orig: shast.LitWord("g"), With: shast.LitWord("")},
	}}}
	set := &syntax.BinaryArithm{Op: syntax.Assgn, X: shast.LitWord(BangVar),
		Y: &syntax.BinaryArithm{Op: syntax.Add, X: num(ProcSubstBase), Y: ownBang}}
	return &syntax.ParamExp{
		Param: &syntax.Lit{Value: BangVar},
		Slice: &syntax.Slice{
			Offset: &syntax.BinaryArithm{Op: syntax.Mul, X: &syntax.ParenArithm{X: set}, Y: num(0)},
			Length: num(0),
		},
	}
}
