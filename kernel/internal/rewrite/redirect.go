package rewrite

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// mvdan/sh redirects descriptors 0 to 2 only, duplicates only onto 1 and
// 2, cannot close one (>&- writes to nowhere), and refuses <> and >|.
// The rewrite hands what it cannot do to the kernel's descriptor table
// (docs/embedding.md, "Redirections"):
//
//	cmd 3>f 2>&3    →  { fd-scope; fd 3 open >f\0w && fd 2 dup 3 && cmd 2>fd/2; fd-end "$?"; }
//	exec 3<f        →  { fd-scope exec; fd 3 open >f\0r; fd-end "$?"; }
//
// fd-scope starts a table for the statement, each fd command makes one
// redirection in it, in the statement's order, the redirections to
// shast.FdPath give the command the descriptors 0 to 2 the table ends up
// with, and fd-end drops the table (for exec, keeps it as the shell's).
// A redirection that fails skips the rest and the command, as in bash.
// <> and >| on 0 to 2 alone stay redirections, their word marked with
// the mode to open it in.

// fdRedirect reports whether rd needs the descriptor table: a descriptor
// above 2 or named ({var}), a duplication mvdan/sh does not make, or a
// closing.
func fdRedirect(rd *syntax.Redirect) bool {
	n := redirFD(rd)
	switch rd.Op {
	case syntax.DplOut:
		if n == 1 || n == 2 {
			switch litValue(rd.Word) {
			case "1", "2":
				return false
			}
		}
		return true
	case syntax.DplIn:
		return true
	}
	return n < 0 || n > 2
}

// markedRedirect reports whether rd is a <> or >| on descriptors 0 to 2,
// which a marked word makes a plain redirection.
func markedRedirect(rd *syntax.Redirect) bool {
	return rd.Op == syntax.RdrInOut || rd.Op == syntax.RdrClob
}

// redirFD is the descriptor rd redirects: its number, the operator's
// default without one, -1 for a named one ({var}) or a number too large.
func redirFD(rd *syntax.Redirect) int {
	if rd.N == nil {
		switch rd.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			return 0
		}
		return 1
	}
	n, err := strconv.Atoi(rd.N.Value)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// redirectRewritable reports whether rewriteRedirs changes rd's statement.
func redirectRewritable(rd *syntax.Redirect) bool {
	return fdRedirect(rd) || markedRedirect(rd)
}

// rewriteRedirs rewrites st's redirections that mvdan/sh cannot make, as
// the comment above says.
func rewriteRedirs(st *syntax.Stmt) {
	for i, rd := range st.Redirs {
		if rd.Op == syntax.DplOut && rd.N == nil && fileWord(rd.Word) {
			// >&file is &>file.
			st.Redirs[i] = &syntax.Redirect{OpPos: rd.OpPos, Op: syntax.RdrAll, Word: rd.Word, Hdoc: rd.Hdoc}
		}
	}
	table := false
	for _, rd := range st.Redirs {
		table = table || fdRedirect(rd)
	}
	if !table {
		for i, rd := range st.Redirs {
			if markedRedirect(rd) {
				st.Redirs[i] = markRedirect(rd)
			}
		}
		return
	}
	pos := st.Pos()
	exec := bareExec(st.Cmd)
	var touched [3]bool
	var chain *syntax.Stmt
	link := func(s *syntax.Stmt) {
		if chain == nil {
			chain = s
			return
		}
		chain = &syntax.Stmt{Position: pos, Cmd: &syntax.BinaryCmd{Op: syntax.AndStmt, X: chain, Y: s}}
	}
	for _, rd := range st.Redirs {
		for _, op := range fdOps(pos, rd) {
			link(op)
		}
		if n := redirFD(rd); n >= 0 && n <= 2 {
			touched[n] = true
		}
		if rd.Op == syntax.RdrAll || rd.Op == syntax.AppAll {
			touched[1], touched[2] = true, true
		}
	}
	var pulls []*syntax.Redirect
	for n, t := range touched {
		if t {
			pulls = append(pulls, pullRedirect(n, exec))
		}
	}
	scope := shast.CallStmt(pos, shast.LitWord(shast.CmdFdScope))
	switch {
	case exec:
		scope.Cmd.(*syntax.CallExpr).Args = append(scope.Cmd.(*syntax.CallExpr).Args, shast.LitWord("exec"))
		if len(pulls) > 0 {
			link(&syntax.Stmt{Position: pos, Cmd: st.Cmd, Redirs: pulls})
		}
	case st.Cmd != nil:
		link(&syntax.Stmt{Position: pos, Cmd: st.Cmd, Redirs: pulls})
	}
	end := shast.CallStmt(pos, shast.LitWord(shast.CmdFdEnd), shast.QuotedParam("?"))
	st.Cmd = &syntax.Block{Stmts: []*syntax.Stmt{scope, chain, end}}
	st.Redirs = nil
}

// bareExec reports whether cmd is exec with no words but its name: its
// redirections stay with the shell.
func bareExec(cmd syntax.Command) bool {
	call, ok := cmd.(*syntax.CallExpr)
	return ok && len(call.Assigns) == 0 && len(call.Args) == 1 && litValue(call.Args[0]) == "exec"
}

// fdOps are the fd commands that make rd in the table.
func fdOps(pos syntax.Pos, rd *syntax.Redirect) []*syntax.Stmt {
	target := fdTarget(rd)
	op := func(kind string, more ...*syntax.Word) *syntax.Stmt {
		return shast.CallStmt(pos, append([]*syntax.Word{shast.LitWord(shast.CmdFd), target, shast.LitWord(kind)}, more...)...)
	}
	switch rd.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrIn, syntax.RdrInOut, syntax.RdrClob:
		s := op("open")
		s.Redirs = []*syntax.Redirect{{OpPos: rd.OpPos, Op: syntax.RdrOut, Word: fdOpenWord(rd.Word, openMode(rd.Op))}}
		return []*syntax.Stmt{s}
	case syntax.RdrAll, syntax.AppAll:
		mode := "w"
		if rd.Op == syntax.AppAll {
			mode = "a"
		}
		s := op("all")
		s.Redirs = []*syntax.Redirect{{OpPos: rd.OpPos, Op: syntax.RdrOut, Word: fdOpenWord(rd.Word, mode)}}
		return []*syntax.Stmt{s}
	case syntax.DplOut:
		return []*syntax.Stmt{op("dup", quotedWord(rd.Word))}
	case syntax.DplIn:
		return []*syntax.Stmt{op("dupin", quotedWord(rd.Word))}
	}
	// A here-document or here-string: the fd command's own input.
	s := op("in")
	in := *rd
	in.N = nil
	s.Redirs = []*syntax.Redirect{&in}
	return []*syntax.Stmt{s}
}

// fdTarget is the word naming rd's descriptor for the fd command: its
// number, or {name} for a named descriptor.
func fdTarget(rd *syntax.Redirect) *syntax.Word {
	if rd.N != nil {
		return &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: rd.N.Value}}}
	}
	return shast.LitWord(strconv.Itoa(redirFD(rd)))
}

// openMode is the mode an open redirection's file is opened in.
func openMode(op syntax.RedirOperator) string {
	switch op {
	case syntax.AppOut:
		return "a"
	case syntax.RdrIn:
		return "r"
	case syntax.RdrInOut:
		return "rw"
	case syntax.RdrClob:
		return "c"
	}
	return "w"
}

// markRedirect is a <> or >| on 0 to 2 as a plain redirection of mvdan/sh
// whose word carries the mode.
func markRedirect(rd *syntax.Redirect) *syntax.Redirect {
	m := *rd
	m.Word = markedWord(rd.Word, openMode(rd.Op))
	m.Op = syntax.RdrOut
	if redirFD(rd) == 0 {
		m.Op = syntax.RdrIn
	}
	return &m
}

// markedWord is w followed by the open marker and mode.
func markedWord(w *syntax.Word, mode string) *syntax.Word {
	return suffixed(w, shast.OpenMarker+mode)
}

// fdOpenWord is w followed by the fd command's open marker and mode.
func fdOpenWord(w *syntax.Word, mode string) *syntax.Word {
	return suffixed(w, shast.FdOpenMarker+mode)
}

// suffixed is w followed by the marker, single-quoted: mvdan/sh cuts a
// redirection word's literal at its first NUL, not a quoted part.
func suffixed(w *syntax.Word, marker string) *syntax.Word {
	parts := append(w.Parts[:len(w.Parts):len(w.Parts)], &syntax.SglQuoted{Value: marker})
	return &syntax.Word{Parts: parts}
}

// quotedWord is w as one argument: a literal as it is, anything else in
// double quotes, as a redirection's word is not split.
func quotedWord(w *syntax.Word) *syntax.Word {
	if _, ok := shast.LiteralText(w); ok || len(w.Parts) == 1 {
		return w
	}
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: w.Parts}}}
}

// pullRedirect gives the command descriptor n as the table holds it.
func pullRedirect(n int, keep bool) *syntax.Redirect {
	path := shast.FdPath
	if keep {
		path = shast.FdKeepPath
	}
	rd := &syntax.Redirect{Op: syntax.RdrOut, Word: &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: path + strconv.Itoa(n)}}}}
	switch n {
	case 0:
		rd.Op = syntax.RdrIn
	case 2:
		rd.N = &syntax.Lit{Value: "2"}
	}
	return rd
}

// litValue is w's text when it is one plain literal, "" otherwise.
func litValue(w *syntax.Word) string {
	if w == nil || len(w.Parts) != 1 {
		return ""
	}
	if lit, ok := w.Parts[0].(*syntax.Lit); ok {
		return lit.Value
	}
	return ""
}

// fileWord reports whether w, after >&, names a file: a literal that is
// no descriptor and not -.
func fileWord(w *syntax.Word) bool {
	text, ok := shast.LiteralText(w)
	if !ok || text == "" || text == "-" {
		return false
	}
	_, err := strconv.Atoi(strings.TrimSuffix(text, "-"))
	return err != nil
}

// Original is the statement st was before rewriteRedirs, for declare -f
// and type; ok is false for a statement it did not rewrite.
func Original(st *syntax.Stmt) (orig *syntax.Stmt, ok bool) {
	blk, isBlock := st.Cmd.(*syntax.Block)
	if !isBlock || len(blk.Stmts) != 3 || len(st.Redirs) > 0 {
		return nil, false
	}
	scope, isCall := blk.Stmts[0].Cmd.(*syntax.CallExpr)
	if !isCall || len(scope.Args) == 0 || scope.Args[0].Lit() != shast.CmdFdScope {
		return nil, false
	}
	orig = &syntax.Stmt{Position: st.Position, Negated: st.Negated, Background: st.Background, Semicolon: st.Semicolon}
	if len(scope.Args) > 1 {
		orig.Cmd = &syntax.CallExpr{Args: []*syntax.Word{shast.LitWord("exec")}}
	}
	var leaves func(s *syntax.Stmt)
	leaves = func(s *syntax.Stmt) {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && b.Op == syntax.AndStmt && len(s.Redirs) == 0 {
			leaves(b.X)
			leaves(b.Y)
			return
		}
		if rd, ok := originalRedirect(s); ok {
			orig.Redirs = append(orig.Redirs, rd)
			return
		}
		if s.Cmd != nil {
			orig.Cmd = s.Cmd
		}
	}
	leaves(blk.Stmts[1])
	return orig, true
}

// originalRedirect is the redirection an fd command makes.
func originalRedirect(s *syntax.Stmt) (*syntax.Redirect, bool) {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) < 3 || call.Args[0].Lit() != shast.CmdFd {
		return nil, false
	}
	// The script gave the number when the target is quoted (fdTarget);
	// bash prints a duplication's always.
	kind := call.Args[2].Lit()
	var n *syntax.Lit
	if target, ok := shast.LiteralText(call.Args[1]); ok && (call.Args[1].Lit() == "" || kind == "dup" || kind == "dupin") {
		n = &syntax.Lit{Value: target}
	}
	switch kind {
	case "dup", "dupin":
		if len(call.Args) < 4 {
			return nil, false
		}
		op := syntax.DplOut
		if kind == "dupin" {
			op = syntax.DplIn
		}
		return &syntax.Redirect{Op: op, N: n, Word: call.Args[3]}, true
	case "open", "all", "in":
		if len(s.Redirs) != 1 {
			return nil, false
		}
		if kind == "in" {
			rd := *s.Redirs[0]
			rd.N = n
			return &rd, true
		}
		rd := OriginalRedirect(s.Redirs[0])
		if kind == "all" {
			rd.N = nil
			rd.Op = syntax.RdrAll
			if s.Redirs[0].Word != nil && markOf(s.Redirs[0].Word) == "a" {
				rd.Op = syntax.AppAll
			}
		} else if n != nil || rd.Op != syntax.RdrInOut {
			rd.N = n
		}
		return rd, true
	}
	return nil, false
}

// OriginalRedirect is rd before a mark of its mode, for declare -f and
// type: rd itself when it has none.
func OriginalRedirect(rd *syntax.Redirect) *syntax.Redirect {
	mode := markOf(rd.Word)
	if mode == "" {
		return rd
	}
	orig := *rd
	orig.Word = &syntax.Word{Parts: rd.Word.Parts[:len(rd.Word.Parts)-1]}
	switch mode {
	case "a":
		orig.Op = syntax.AppOut
	case "r":
		orig.Op = syntax.RdrIn
	case "rw":
		orig.Op = syntax.RdrInOut
		if orig.N == nil {
			orig.N = &syntax.Lit{Value: "0"} // as bash prints it
		}
	case "c":
		orig.Op = syntax.RdrClob
	default:
		orig.Op = syntax.RdrOut
	}
	return &orig
}

// markOf is the mode a word's open marker names, "" for none.
func markOf(w *syntax.Word) string {
	if w == nil || len(w.Parts) < 2 {
		return ""
	}
	q, ok := w.Parts[len(w.Parts)-1].(*syntax.SglQuoted)
	if !ok {
		return ""
	}
	if mode, ok := strings.CutPrefix(q.Value, shast.OpenMarker); ok {
		return mode
	}
	mode, _ := strings.CutPrefix(q.Value, shast.FdOpenMarker)
	return mode
}
