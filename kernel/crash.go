package kernel

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// crashIssues finds the constructs mvdan/sh panics on, each an error
// issue that says what to write instead. A panic in a pipeline stage or
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
func crashIssues(f *syntax.File, assoc func(name string) bool) []Issue {
	c := crashCheck{file: f, assoc: assoc}
	shast.Walk(f, c.visit)
	return c.issues
}

// crashCheck is crashIssues' walk, which validate shares.
type crashCheck struct {
	file   *syntax.File
	assoc  func(name string) bool
	names  map[string]bool // the script's associative arrays, found when first asked
	issues []Issue
}

// bracketWord reports whether w is the literal [ or ], which shast.StaticWord
// takes for a glob.
func bracketWord(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	return ok && (lit.Value == "[" || lit.Value == "]")
}

func (c *crashCheck) isAssoc(name string) bool {
	if c.names == nil {
		c.names = assocNames(c.file)
	}
	return c.names[name] || c.assoc != nil && c.assoc(name)
}

func (c *crashCheck) add(pos syntax.Pos, format string, a ...any) {
	c.issues = append(c.issues, issueAt(pos, SeverityError, CodeUnsupported, fmt.Sprintf(format, a...)))
}

// visit checks n; it always walks on.
func (c *crashCheck) visit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.UnaryArithm:
		if (n.Op == syntax.Inc || n.Op == syntax.Dec) && !shast.PlainName(n.X) {
			x := arithText(n.X)
			c.add(n.Pos(), "arithmetic cannot write to an array element: '%s'; write '%s=$(( %s %s 1 ))'",
				arithText(n), x, x, n.Op.String()[:1])
		}
	case *syntax.BinaryArithm:
		if op, ok := shast.ArithAssignOp(n.Op); ok && !shast.PlainName(n.X) {
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
		if line, ok := builtinRefusal(args); ok {
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

// crashRefusal is [nestingRefusal] and [crashIssues] for source given at
// run time (eval's argument, a sourced file, a trap's command): the line
// that refuses it, or false when it may run. Source that does not parse
// is left to the interpreter, which reports it. assoc is as for
// crashIssues; [assocIn] makes one of a handler's environment.
func crashRefusal(src string, assoc func(name string) bool) (string, bool) {
	if is, ok := nestingRefusal(src); ok {
		return IssueLine(is), true
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return "", false
	}
	if issues := crashIssues(f, assoc); len(issues) > 0 {
		return IssueLine(issues[0]), true
	}
	return "", false
}

// assocIn reports the associative arrays of env, such as
// interp.HandlerCtx(ctx).Env.
func assocIn(env expand.Environ) func(name string) bool {
	return func(name string) bool { return env.Get(name).Kind == expand.Associative }
}

// builtinRefusal judges a call of test, [ or unset on its expanded
// arguments, as the call handler sees them: the line that refuses it, or
// false when it may run.
func builtinRefusal(args []string) (string, bool) {
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
// for its first flag only, and the type lasts to the end of the
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
			if !w.Opaque && len(w.Text) >= 2 && w.Text[0] == '-' {
				switch w.Text[1] {
				case 'a', 'A', 'n':
					valType = w.Text[:2]
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

// classicTestRefusal parses test's arguments as mvdan/sh does (a copy
// of interp's classic test parser) and refuses what its evaluation
// panics on. Arguments that do not parse are left to test, which fails
// with status 2.
func classicTestRefusal(name string, args []string) (string, bool) {
	if !slices.ContainsFunc(args, refusableTestOp) {
		// Both refusals need one of these operators among the words.
		return "", false
	}
	p := classicParser{rem: args}
	p.next()
	expr := p.classicTest("[", false)
	if p.failed || expr == nil {
		return "", false
	}
	var line string
	shast.Walk(expr, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryTest:
			if n.Op == syntax.TsMatch || n.Op == syntax.TsNoMatch {
				if _, word := n.X.(*syntax.Word); !word && line == "" {
					line = fmt.Sprintf("%s: '%s' cannot compare the result of a comparison or a group; write one test per comparison, joined by && or ||", name, n.Op)
				}
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
				if w, ok := n.X.(*syntax.Word); ok && w.Lit() == "" && line == "" {
					line = fmt.Sprintf("%s: '%s' needs the name of a variable, not ''", name, n.Op)
				}
			}
		}
		return line == ""
	})
	return line, line != ""
}

// refusableTestOp reports a word that can make the operator of a test
// classicTestRefusal refuses: a string comparison or -v/-R.
func refusableTestOp(w string) bool {
	switch w {
	case "=", "==", "!=", "-v", "-R":
		return true
	}
	return false
}

// classicParser is interp's testParser: test and [ parse their arguments
// with it after expansion.
type classicParser struct {
	eof    bool
	val    string
	rem    []string
	failed bool
}

func (p *classicParser) next() {
	if p.eof || len(p.rem) == 0 {
		p.eof = true
		p.val = ""
		return
	}
	p.val = p.rem[0]
	p.rem = p.rem[1:]
}

func (p *classicParser) followWord() *syntax.Word {
	if p.eof {
		p.failed = true
	}
	w := &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: p.val}}}
	p.next()
	return w
}

func (p *classicParser) classicTest(fval string, pastAndOr bool) syntax.TestExpr {
	var left syntax.TestExpr
	if pastAndOr {
		left = p.testExprBase()
	} else {
		left = p.classicTest(fval, true)
	}
	if left == nil || p.eof || p.val == ")" || p.failed {
		return left
	}
	opStr := p.val
	op := classicBinaryOp(p.val)
	if op == 0 {
		p.failed = true
		return left
	}
	b := &syntax.BinaryTest{Op: op, X: left}
	p.next()
	switch b.Op {
	case syntax.AndTest, syntax.OrTest:
		if b.Y = p.classicTest(opStr, false); b.Y == nil {
			p.failed = true
		}
	default:
		b.Y = p.followWord()
	}
	return b
}

func (p *classicParser) testExprBase() syntax.TestExpr {
	if p.eof || p.val == ")" || p.failed {
		return nil
	}
	op := classicUnaryOp(p.val)
	switch op {
	case syntax.TsNot:
		u := &syntax.UnaryTest{Op: op}
		p.next()
		u.X = p.classicTest(op.String(), false)
		if u.X == nil {
			// interp leaves a nil operand that it never evaluates.
			p.failed = true
			return nil
		}
		return u
	case syntax.TsParen:
		pe := &syntax.ParenTest{}
		p.next()
		pe.X = p.classicTest(op.String(), false)
		if p.val != ")" || pe.X == nil {
			p.failed = true
			return nil
		}
		p.next()
		return pe
	case 0:
		return p.followWord()
	default:
		u := &syntax.UnaryTest{Op: op}
		p.next()
		if p.eof {
			return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: op.String()}}}
		}
		u.X = p.followWord()
		return u
	}
}

func classicUnaryOp(val string) syntax.UnTestOperator {
	switch val {
	case "!":
		return syntax.TsNot
	case "(":
		return syntax.TsParen
	case "-v":
		return syntax.TsVarSet
	case "-R":
		return syntax.TsRefVar
	}
	// The other unary operators take a word and cannot panic; any
	// operator will do for them.
	if len(val) == 2 && val[0] == '-' && strings.IndexByte("eafdcbpSLhkguGONrwxstzno", val[1]) >= 0 {
		return syntax.TsExists
	}
	return 0
}

func classicBinaryOp(val string) syntax.BinTestOperator {
	switch val {
	case "-a":
		return syntax.AndTest
	case "-o":
		return syntax.OrTest
	case "==", "=":
		return syntax.TsMatch
	case "!=":
		return syntax.TsNoMatch
	case "-nt", "-ot", "-ef", "-eq", "-ne", "-le", "-ge", "-lt", "-gt":
		return syntax.TsEql
	}
	return 0
}
