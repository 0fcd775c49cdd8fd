package kernel

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/spawn"
)

// validate is the static pass (DESIGN §8): before any statement runs, it
// refuses unsupported constructs, commands the guard catches and calls a
// tool is certain to refuse; unknown commands and what it cannot judge
// are warnings.
func (s *Session) validate(file *syntax.File) ([]Issue, map[string]bool) {
	funcs := make(map[string]bool)
	syntax.Walk(file, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			funcs[fd.Name.Value] = true
		}
		return true
	})
	var issues []Issue
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CoprocClause:
			issues = append(issues, issueAt(n.Pos(), SeverityError, CodeUnsupported, "coproc is not supported"))
		case *syntax.FuncDecl:
			if n.Name == nil {
				issues = append(issues, issueAt(n.Pos(), SeverityError, CodeUnsupported, "a function needs a name"))
			}
		case *syntax.CallExpr:
			for _, a := range n.Assigns {
				s.checkAssign(&issues, a, n)
			}
			if len(n.Args) > 0 {
				words := make([]Word, len(n.Args))
				for i, w := range n.Args {
					words[i] = staticWord(w)
				}
				s.checkCommand(&issues, n.Pos(), words, funcs)
			}
		case *syntax.DeclClause:
			for _, a := range n.Args {
				s.checkAssign(&issues, a, n)
			}
		}
		return true
	})
	return issues, funcs
}

func issueAt(pos syntax.Pos, sev Severity, code, msg string) Issue {
	return Issue{Severity: sev, Code: code, Line: int(pos.Line()), Col: int(pos.Col()), Message: msg}
}

// checkAssign applies the guard's variable entries to an assignment of
// cmd, which the refusal quotes whole.
func (s *Session) checkAssign(issues *[]Issue, a *syntax.Assign, cmd syntax.Node) {
	if a.Name == nil {
		return
	}
	if e, ok := s.guard.matchVar(a.Name.Value); ok {
		var text strings.Builder
		syntax.NewPrinter(syntax.SingleLine(true)).Print(&text, cmd)
		*issues = append(*issues, issueAt(a.Pos(), SeverityError, CodeGuard, guardLine(strings.TrimSpace(text.String()), e, "nothing ran")))
	}
}

// checkCommand judges one simple command: the guard, then the launched
// command's tool or its presence on PATH. funcs are the script's own
// functions; nil when there is no script.
func (s *Session) checkCommand(issues *[]Issue, pos syntax.Pos, words []Word, funcs map[string]bool) {
	if e, ok := s.guard.matchCommand(words); ok {
		*issues = append(*issues, issueAt(pos, SeverityError, CodeGuard, guardLine(wordsText(words), e, "nothing ran")))
		return
	}
	inner, _ := unwrapLaunchers(words)
	if len(inner) == 0 || inner[0].Opaque {
		return
	}
	name := inner[0].Text
	if funcs[name] || s.runner.Funcs[name] != nil {
		return
	}
	if t := s.tools[name]; t != nil {
		if c, ok := t.(StaticChecker); ok {
			if err := c.CheckStatic(inner); err != nil {
				sev := SeverityError
				var u *uncertainError
				if errors.As(err, &u) {
					sev = SeverityWarning
				}
				*issues = append(*issues, issueAt(pos, sev, CodeRefused, err.Error()))
			}
		}
		return
	}
	if interp.IsBuiltin(name) || syntax.IsKeyword(name) {
		return
	}
	if line, ok := s.externalRefusal(name, &Call{Dir: s.runner.Dir, Env: []string{"PATH=" + s.pathVar()}}); ok {
		*issues = append(*issues, issueAt(pos, SeverityWarning, CodeExternal, line))
		return
	}
	if _, err := spawn.LookPath(s.pathVar(), s.runner.Dir, name); err != nil {
		*issues = append(*issues, issueAt(pos, SeverityWarning, CodeUnknown, fmt.Sprintf("%s: not a function, tool or program on PATH", name)))
	}
}

// pathVar is the session's current $PATH.
func (s *Session) pathVar() string {
	if v, ok := s.runner.Vars["PATH"]; ok {
		return v.String()
	}
	return s.runner.Env.Get("PATH").String()
}

// staticWord evaluates a word without running anything: quotes and
// escapes are resolved; expansions, substitutions, globs, braces and
// tildes make it opaque.
func staticWord(w *syntax.Word) Word {
	var b strings.Builder
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[") || strings.Contains(p.Value, "{") || i == 0 && strings.HasPrefix(p.Value, "~") {
				return Word{Opaque: true}
			}
			b.WriteString(unescapeLit(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				return Word{Opaque: true}
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return Word{Opaque: true}
			}
			for _, dp := range p.Parts {
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					return Word{Opaque: true}
				}
				b.WriteString(unescapeDouble(lit.Value))
			}
		default:
			return Word{Opaque: true}
		}
	}
	return Word{Text: b.String()}
}

func unescapeLit(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
