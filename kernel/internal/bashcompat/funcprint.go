package bashcompat

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/rewrite"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// funcText is a function as bash's `declare -f` and `type` print it:
// `NAME () `, the body in braces, four spaces an indent, a `;` after each
// statement but the last of a list. Words print as mvdan/sh's printer has
// them, which is bash's source text for common words (arithmetic gets
// spaces around its operators, `$'...'` stays as written where bash
// prints the string it means). What shelter's rewrites added to a body
// before the run is left out again.
func funcText(name string, body *syntax.Stmt, nested bool) string {
	if orig, _, _, ok := rewrite.Unframed(body); ok {
		body = orig
	}
	p := funcPrinter{}
	p.function(name, body, 0, nested)
	return p.b.String()
}

type funcPrinter struct {
	b strings.Builder
}

func indentOf(n int) string { return strings.Repeat(" ", n) }

func (p *funcPrinter) function(name string, body *syntax.Stmt, ind int, keyword bool) {
	if keyword {
		p.b.WriteString("function ")
	}
	p.b.WriteString(name + " () \n" + indentOf(ind) + "{ \n" + indentOf(ind+4))
	if blk, ok := body.Cmd.(*syntax.Block); ok && len(body.Redirs) == 0 {
		p.list(blk.Stmts, ind+4)
	} else {
		p.stmt(body, ind+4)
	}
	p.b.WriteString("\n" + indentOf(ind) + "}")
}

// visible drops the statements shelter's rewrites added, and lists
// what a loop exit's guard runs in its place.
func visible(stmts []*syntax.Stmt) []*syntax.Stmt {
	var out []*syntax.Stmt
	for _, st := range stmts {
		if guarded, ok := rewrite.ExitGuarded(st); ok {
			out = append(out, visible(guarded)...)
		} else if assign, ok := rewrite.ReadonlyGuarded(st); ok {
			out = append(out, assign)
		} else if !rewriteAdded(st) {
			out = append(out, st)
		}
	}
	return out
}

func rewriteAdded(st *syntax.Stmt) bool {
	if rewrite.LoopAdded(st) {
		return true
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		// $(< f) and an element's assignment through a name reference
		// are the script's own.
		name := ""
		if len(c.Args) > 0 {
			name = c.Args[0].Lit()
		}
		return strings.HasPrefix(name, shast.InternalPrefix) && name != shast.CmdCat && name != shast.CmdNamerefSet
	case *syntax.BinaryCmd:
		return rewriteAdded(c.X)
	}
	return false
}

// list writes stmts one a line at ind, the first where the caller is.
func (p *funcPrinter) list(stmts []*syntax.Stmt, ind int) {
	stmts = visible(stmts)
	for i, st := range stmts {
		heredoc := p.stmt(st, ind)
		switch {
		case i == len(stmts)-1:
		case st.Background:
			p.b.WriteString(" ")
		case heredoc:
			p.b.WriteString("\n" + indentOf(ind))
		default:
			p.b.WriteString(";\n" + indentOf(ind))
		}
	}
}

// body writes stmts as the body of a compound command: each on its own
// line at ind, each ended with `;`.
func (p *funcPrinter) body(stmts []*syntax.Stmt, ind int) {
	for _, st := range visible(stmts) {
		p.b.WriteString(indentOf(ind))
		if !p.stmt(st, ind) {
			if st.Background {
				p.b.WriteString("\n")
			} else {
				p.b.WriteString(";\n")
			}
		}
	}
}

// inline writes stmts on one line, as bash prints a condition.
func (p *funcPrinter) inline(stmts []*syntax.Stmt, ind int) {
	for i, st := range visible(stmts) {
		if i > 0 {
			p.b.WriteString("; ")
		}
		p.stmt(st, ind)
	}
}

// stmt writes st; heredoc is true when it ended with here-documents
// (and so with a newline).
func (p *funcPrinter) stmt(st *syntax.Stmt, ind int) (heredoc bool) {
	if orig, ok := rewrite.Original(st); ok {
		st = orig
	}
	if guarded, ok := rewrite.ExitGuarded(st); ok && len(guarded) == 1 {
		st = guarded[0] // the right side of && or ||
	}
	negated := st.Negated
	if first := rewrite.LoopFirst(st); first != nil {
		// The rewrite's `!` and resume: the script wrote the loop.
		st, negated = first, false
	}
	if negated {
		p.b.WriteString("! ")
	}
	p.command(st.Cmd, ind)
	var docs []*syntax.Redirect
	for _, r := range st.Redirs {
		p.b.WriteString(" ")
		p.redirect(r)
		if r.Hdoc != nil {
			docs = append(docs, r)
		}
	}
	if st.Background {
		p.b.WriteString(" &")
	}
	for _, r := range docs {
		p.b.WriteString("\n" + printNode(r.Hdoc) + strings.Trim(printNode(r.Word), "'\"\\") + "\n")
	}
	return len(docs) > 0
}

func (p *funcPrinter) redirect(r *syntax.Redirect) {
	r = rewrite.OriginalRedirect(r)
	if r.N != nil {
		p.b.WriteString(r.N.Value)
	}
	p.b.WriteString(r.Op.String())
	switch r.Op {
	case syntax.DplIn, syntax.DplOut, syntax.Hdoc, syntax.DashHdoc:
	default:
		p.b.WriteString(" ")
	}
	p.b.WriteString(printNode(r.Word))
}

func (p *funcPrinter) command(cmd syntax.Command, ind int) {
	in := indentOf(ind)
	switch c := rewrite.AsWritten(cmd).(type) {
	case *syntax.CallExpr:
		var words []string
		for _, a := range c.Assigns {
			words = append(words, printNode(a))
		}
		for i, w := range c.Args {
			if i == 0 && w.Lit() == shast.CmdCat {
				continue
			}
			words = append(words, printNode(w))
		}
		p.b.WriteString(strings.Join(words, " "))
	case *syntax.Block:
		if len(c.Stmts) > 0 && c.Lbrace == c.Stmts[0].Position {
			// A group shelter's loop rewrite made.
			p.list(c.Stmts, ind)
			return
		}
		p.b.WriteString("{ \n" + indentOf(ind+4))
		p.list(c.Stmts, ind+4)
		p.b.WriteString("\n" + in + "}")
	case *syntax.Subshell:
		p.b.WriteString("( ")
		p.list(c.Stmts, ind)
		p.b.WriteString(" )")
	case *syntax.BinaryCmd:
		p.stmt(c.X, ind)
		switch c.Op {
		case syntax.PipeAll:
			p.b.WriteString(" 2>&1 | ")
		default:
			p.b.WriteString(" " + c.Op.String() + " ")
		}
		p.stmt(c.Y, ind)
	case *syntax.IfClause:
		p.ifClause(c, ind)
	case *syntax.WhileClause:
		if c.Until {
			p.b.WriteString("until ")
		} else {
			p.b.WriteString("while ")
		}
		p.inline(c.Cond, ind)
		p.b.WriteString("; do\n")
		p.body(c.Do, ind+4)
		p.b.WriteString(in + "done")
	case *syntax.ForClause:
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			p.b.WriteString("for " + l.Name.Value + " in ")
			if !l.InPos.IsValid() {
				p.b.WriteString(`"$@"`)
			}
			var words []string
			for _, w := range l.Items {
				words = append(words, printNode(w))
			}
			p.b.WriteString(strings.Join(words, " ") + ";\n")
		case *syntax.CStyleLoop:
			p.b.WriteString("for ((" + strings.Join(minified(rewrite.LoopAsWritten(c)), "; ") + "))\n")
		}
		p.b.WriteString(in + "do\n")
		p.body(c.Do, ind+4)
		p.b.WriteString(in + "done")
	case *syntax.CaseClause:
		p.b.WriteString("case " + printNode(c.Word) + " in \n")
		for _, item := range c.Items {
			var pats []string
			for _, w := range item.Patterns {
				pats = append(pats, printNode(w))
			}
			p.b.WriteString(indentOf(ind+4) + strings.Join(pats, " | ") + ")\n")
			if stmts := visible(item.Stmts); len(stmts) > 0 {
				p.b.WriteString(indentOf(ind + 8))
				p.list(stmts, ind+8)
				p.b.WriteString("\n")
			}
			p.b.WriteString(indentOf(ind+4) + item.Op.String() + "\n")
		}
		p.b.WriteString(in + "esac")
	case *syntax.ArithmCmd:
		p.b.WriteString("(( " + strings.Join(minified(c), ";") + " ))")
	case *syntax.TestClause:
		p.b.WriteString(printNode(c))
	case *syntax.DeclClause:
		words := []string{c.Variant.Value}
		for _, a := range c.Args {
			words = append(words, printNode(a))
		}
		p.b.WriteString(strings.Join(words, " "))
	case *syntax.FuncDecl:
		p.function(c.Name.Value, c.Body, ind, true)
	case *syntax.TimeClause:
		p.b.WriteString("time ")
		if c.PosixFormat {
			p.b.WriteString("-p ")
		}
		if c.Stmt != nil {
			p.stmt(c.Stmt, ind)
		}
	default:
		p.b.WriteString(printNode(cmd))
	}
}

func (p *funcPrinter) ifClause(c *syntax.IfClause, ind int) {
	in := indentOf(ind)
	p.b.WriteString("if ")
	p.inline(c.Cond, ind)
	p.b.WriteString("; then\n")
	p.body(c.Then, ind+4)
	switch {
	case c.Else == nil:
	case len(c.Else.Cond) == 0:
		p.b.WriteString(in + "else\n")
		p.body(c.Else.Then, ind+4)
	default:
		// bash prints elif as an if inside else.
		p.b.WriteString(in + "else\n" + indentOf(ind+4))
		p.ifClause(c.Else, ind+4)
		p.b.WriteString(";\n")
	}
	p.b.WriteString(in + "fi")
}

func printNode(n syntax.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	syntax.NewPrinter().Print(&b, n)
	// A guard of what follows a break reads $? from a variable
	// (package rewrite): the script wrote $?.
	text := rewrite.IndirectText(strings.ReplaceAll(b.String(), "${"+rewrite.GuardStatusVar+"}", "$?"))
	// The count of an associative array: the script wrote ${#NAME[@]}.
	for {
		i := strings.Index(text, "$("+shast.CmdArrayCount+" ")
		j := strings.IndexByte(text[i+1:], ')')
		if i < 0 || j < 0 {
			return text
		}
		text = text[:i] + "${#" + text[i+len("$("+shast.CmdArrayCount+" "):i+1+j] + "}" + text[i+2+j:]
	}
}

// minified prints a command's arithmetic as bash keeps it when written
// without spaces: (( )) or for (( )), the parts between the parentheses.
// mvdan/sh's printer prints no expression alone.
func minified(n syntax.Command) []string {
	var b strings.Builder
	syntax.NewPrinter(syntax.Minify(true)).Print(&b, n)
	_, expr, _ := strings.Cut(b.String(), "((")
	expr, _, _ = strings.Cut(expr, "))")
	parts := strings.Split(expr, ";")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}
