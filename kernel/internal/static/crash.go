package static

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// Crashes finds the constructs mvdan/sh panics on, each a finding
// that says what to write instead. A panic in a pipeline stage or
// a background job is in a goroutine nobody can recover, so the static
// pass refuses them before anything runs. assoc reports the associative
// arrays the session holds already; nil means none.
//
// What panics, in mvdan/sh v3.14.1:
//   - an arithmetic write (`++`, `--`, `=`, `+=` …) to anything but a
//     plain name: the operand's Lit() is "" and looking up the variable
//     "" panics (expand.Arithm, expand.Config.assgnArit);
//   - an associative array's element without a key, or with a key that
//     parsed as arithmetic (`[k+1]=v`, `[-1]=v`), when the array is
//     declared -A or its first key is quoted (interp.Runner.assignVal);
//   - a subscript of an associative array that parsed as arithmetic,
//     `${A[k+1]}`, `${A[-1]}` (expand.Config.varInd, assignElem);
//   - `-v ”` or `-R ”` in a test, `unset ”`, and using a name
//     reference declared with an empty target (looking up "");
//   - test or [ comparing the result of a comparison or a group,
//     `[ a = b = c ]`, `[ \( a \) = b ]` (interp.Runner.bashTest).
func Crashes(f *syntax.File, assoc func(name string) bool) []Finding {
	c := NewCrashCheck(f, assoc)
	shast.Walk(f, c.Visit)
	return c.findings
}

// A Finding is a construct the static pass refuses as unsupported: where
// it stands, and the message that says what to write instead.
type Finding struct {
	Line, Col int
	Message   string
}

// A CrashCheck is the walk of [Crashes], which the kernel's static pass
// shares: it calls Visit for every node but words and literals.
type CrashCheck struct {
	file     *syntax.File
	assoc    func(name string) bool
	names    map[string]bool // the script's associative arrays, found when first asked
	findings []Finding
	// rewritten: the script runs rewritten (rewrite.Script), which makes
	// an arithmetic command's one write to an element an assignment;
	// elementWrite is the write of the command being walked.
	rewritten    bool
	elementWrite syntax.ArithmExpr
}

// NewCrashCheck starts a check of f; assoc is as for [Crashes].
func NewCrashCheck(f *syntax.File, assoc func(name string) bool) CrashCheck {
	return CrashCheck{file: f, assoc: assoc}
}

// Rewritten tells c that its script runs rewritten (rewrite.Script):
// what the rewrites turn into a form that runs, such as `(( a[i]++ ))`
// (shast.ElementWrite), is not refused. Source given at run time (eval,
// source, a trap) is not rewritten.
func (c *CrashCheck) Rewritten() { c.rewritten = true }

// Findings are what the walk found so far, in the order it met them.
func (c *CrashCheck) Findings() []Finding { return c.findings }

// bracketWord reports whether w is the literal [ or ], which shast.StaticWord
// takes for a glob.
func bracketWord(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	return ok && (lit.Value == "[" || lit.Value == "]")
}

func (c *CrashCheck) isAssoc(name string) bool {
	if c.names == nil {
		c.names = assocNames(c.file)
	}
	return c.names[name] || c.assoc != nil && c.assoc(name)
}

func (c *CrashCheck) add(pos syntax.Pos, format string, a ...any) {
	c.findings = append(c.findings, Finding{Line: int(pos.Line()), Col: int(pos.Col()), Message: fmt.Sprintf(format, a...)})
}

// Visit checks n; it always walks on.
func (c *CrashCheck) Visit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.ArithmCmd:
		if c.rewritten && shast.ElementWrite(n.X) != nil {
			c.elementWrite = n.X
		}
	case *syntax.UnaryArithm:
		if c.elementWrite == syntax.ArithmExpr(n) {
			break
		}
		if (n.Op == syntax.Inc || n.Op == syntax.Dec) && !shast.PlainName(n.X) {
			x := arithText(n.X)
			c.add(n.Pos(), "arithmetic cannot write to an array element: '%s'; write '%s=$(( %s %s 1 ))'",
				arithText(n), x, x, n.Op.String()[:1])
		}
	case *syntax.BinaryArithm:
		if op, ok := shast.ArithAssignOp(n.Op); ok && !shast.PlainName(n.X) && c.elementWrite != syntax.ArithmExpr(n) {
			x, y := arithText(n.X), arithText(n.Y)
			fix := fmt.Sprintf("%s=$(( %s ))", x, y)
			if op != "" {
				fix = fmt.Sprintf("%s=$(( %s %s (%s) ))", x, x, op, y)
			}
			c.add(n.Pos(), "arithmetic cannot write to an array element: '%s'; write '%s'", arithText(n), fix)
		}
	case *syntax.ParamExp:
		if _, word := n.Index.(*syntax.Word); n.Param != nil && n.Index != nil && !word {
			if c.isAssoc(n.Param.Value) {
				c.add(n.Pos(), "%s is an associative array, and its key '%s' is arithmetic; quote the key: '${%s[\"%s\"]}'",
					n.Param.Value, keyText(n.Index), n.Param.Value, keyText(n.Index))
			}
		}
	case *syntax.CallExpr:
		for _, as := range n.Assigns {
			assocElems(as, "", c.add)
		}
		if len(n.Args) == 0 {
			return true
		}
		switch n.Args[0].Lit() {
		case "test", "[", "unset": // judged on their words below
		default:
			return true
		}
		// The words are judged only when none is opaque, as most
		// commands' are not: they are made then.
		for _, w := range n.Args {
			if shast.StaticWord(w).Opaque && !bracketWord(w) {
				return true
			}
		}
		args := make([]string, len(n.Args))
		for i, w := range n.Args {
			if bracketWord(w) {
				args[i] = w.Lit() // not a glob
			} else {
				args[i] = shast.StaticWord(w).Text
			}
		}
		if line, ok := BuiltinRefusal(args); ok {
			c.add(n.Pos(), "%s", line)
		}
	case *syntax.DeclClause:
		declIssues(n, c.add)
	case *syntax.TestClause:
		shast.Walk(n.X, func(t syntax.Node) bool {
			if u, ok := t.(*syntax.UnaryTest); ok && (u.Op == syntax.TsVarSet || u.Op == syntax.TsRefVar) {
				if w, ok := u.X.(*syntax.Word); ok {
					if sw := shast.StaticWord(w); !sw.Opaque && sw.Text == "" {
						c.add(u.Pos(), "'%s' needs the name of a variable, not ''", u.Op)
					}
				}
			}
			return true
		})
	}
	return true
}

// SourceRefusal is [shast.CheckNesting] and [Crashes] for source given at
// run time (eval's argument, a sourced file, a trap's command): what
// refuses it first, or false when it may run. Source that does not parse
// is left to the interpreter, which reports it. assoc is as for Crashes;
// [AssocIn] makes one of a handler's environment.
func SourceRefusal(src string, assoc func(name string) bool) (Finding, bool) {
	if e, deep := shast.CheckNesting(src); deep {
		return Finding{Line: e.Line, Col: e.Col, Message: e.Error()}, true
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return Finding{}, false
	}
	if found := Crashes(f, assoc); len(found) > 0 {
		return found[0], true
	}
	return Finding{}, false
}

// AssocIn reports the associative arrays of env, such as
// interp.HandlerCtx(ctx).Env.
func AssocIn(env expand.Environ) func(name string) bool {
	return func(name string) bool { return env.Get(name).Kind == expand.Associative }
}

// BuiltinRefusal judges a call of test, [ or unset on its expanded
// arguments, as the call handler sees them: the line that refuses it, or
// false when it may run.
func BuiltinRefusal(args []string) (string, bool) {
	if len(args) == 0 {
		return "", false
	}
	switch args[0] {
	case "unset":
		vars := true
		for i, a := range args[1:] {
			if a == "-f" {
				vars = false
				continue
			}
			if a == "-v" {
				continue
			}
			for _, a := range args[1+i:] {
				if a == "" && vars {
					return "unset: '' is not a variable name", true
				}
			}
			break
		}
	case "test", "[":
		rest := args[1:]
		if args[0] == "[" {
			if len(rest) == 0 || rest[len(rest)-1] != "]" {
				return "", false
			}
			rest = rest[:len(rest)-1]
		}
		return classicTestRefusal(args[0], rest)
	}
	return "", false
}

// arithText prints an arithmetic expression as it reads in source.
func arithText(x syntax.ArithmExpr) string {
	var b strings.Builder
	// The printer prints arithmetic only inside a node; positions on the
	// same line keep it on one.
	syntax.NewPrinter().Print(&b, &syntax.ArithmCmd{Left: x.Pos(), Right: x.End(), X: x})
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(b.String(), "(("), "))"))
}

// keyText prints an arithmetic key tightly, as it is usually typed.
func keyText(x syntax.ArithmExpr) string {
	var b strings.Builder
	syntax.NewPrinter(syntax.Minify(true)).Print(&b, &syntax.ArithmCmd{Left: x.Pos(), Right: x.End(), X: x})
	return strings.TrimSuffix(strings.TrimPrefix(b.String(), "(("), "))")
}

// assocNames are the names the script makes associative arrays: declared
// -A, or assigned a list whose first key is quoted.
func assocNames(f *syntax.File) map[string]bool {
	names := make(map[string]bool)
	shast.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			for _, as := range n.Assigns {
				if as.Name != nil && as.Array != nil && arrayType(as, "") == "-A" {
					names[as.Name.Value] = true
				}
			}
		case *syntax.DeclClause:
			declWalk(n, func(as *syntax.Assign, valType string) {
				if valType == "-A" || as.Array != nil && arrayType(as, valType) == "-A" {
					names[as.Name.Value] = true
				}
			})
		}
		return true
	})
	return names
}

// arrayType is how mvdan/sh types an array assignment: the declaration's
// -a, -A or -n, else -A when the first key is quoted.
func arrayType(as *syntax.Assign, valType string) string {
	if valType != "" {
		return valType
	}
	if elems := as.Array.Elems; len(elems) > 0 {
		if w, ok := elems[0].Index.(*syntax.Word); ok && len(w.Parts) == 1 {
			switch w.Parts[0].(type) {
			case *syntax.DblQuoted, *syntax.SglQuoted:
				return "-A"
			}
		}
	}
	return "-a"
}

// declWalk calls fn for every named argument of a declaration, with the
// -a, -A or -n in force for it. As in mvdan/sh, a word of flags counts
// for its first flag only, but for the words of letters the rewrites
// split (-rA, -gA: every flag counts), and the type lasts to the end of the
// declaration; a flag in an expansion is not known and not counted.
func declWalk(d *syntax.DeclClause, fn func(as *syntax.Assign, valType string)) {
	valType := ""
	if d.Variant != nil && d.Variant.Value == "nameref" {
		valType = "-n"
	}
	for _, as := range d.Args {
		if as.Name == nil {
			if as.Value == nil {
				continue
			}
			w := shast.StaticWord(as.Value)
			if w.Opaque || len(w.Text) < 2 || w.Text[0] != '-' {
				continue
			}
			flags := w.Text[1:2]
			if strings.Trim(w.Text[1:], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
				flags = w.Text[1:] // split by the rewrite (package rewrite, splitDeclFlags)
			}
			for _, f := range flags {
				switch f {
				case 'a', 'A', 'n':
					valType = "-" + string(f)
				}
			}
			continue
		}
		fn(as, valType)
	}
}

func declIssues(d *syntax.DeclClause, add func(syntax.Pos, string, ...any)) {
	declWalk(d, func(as *syntax.Assign, valType string) {
		if valType == "-n" && !as.Naked && as.Array == nil {
			if w := shast.StaticWord(orEmpty(as.Value)); !w.Opaque && w.Text == "" {
				add(as.Pos(), "a name reference needs the name of a variable: '%s -n %s=VAR'", d.Variant.Value, as.Name.Value)
			}
		}
		assocElems(as, valType, add)
	})
}

func orEmpty(w *syntax.Word) *syntax.Word {
	if w == nil {
		return &syntax.Word{}
	}
	return w
}

// assocElems refuses the elements of an associative array's list that
// have no key or an arithmetic one.
func assocElems(as *syntax.Assign, valType string, add func(syntax.Pos, string, ...any)) {
	if as.Name == nil || as.Array == nil || arrayType(as, valType) != "-A" {
		return
	}
	for _, e := range as.Array.Elems {
		switch idx := e.Index.(type) {
		case nil:
			val := ""
			if e.Value != nil {
				var b strings.Builder
				syntax.NewPrinter().Print(&b, e.Value)
				val = b.String()
			}
			add(e.Pos(), "%s is an associative array: its element '%s' needs a key; write '[key]=%s'", as.Name.Value, val, val)
		case *syntax.Word:
		default:
			add(e.Pos(), "%s is an associative array, and the key '%s' is arithmetic; quote the key: '[\"%s\"]=…'",
				as.Name.Value, keyText(idx), keyText(idx))
		}
	}
}
