package rewrite

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// Arithmetic errors as bash has them (docs/embedding.md, "Bash
// compatibility"). In bash an error in an arithmetic expansion — `$(( ))`,
// `$[ ]`, an array index, a substring's offset — ends the shell, or the
// subshell it runs in, with status 1; mvdan/sh prints the error and goes
// on with status 0. The one expansion error mvdan/sh does treat as fatal
// is `${name?message}` of an unset name, so the operations that can fail
// get a guard built of it:
//
//	X / Y   becomes  X / ((Y) ? (Y) : ${X/Y?division by 0 …})
//	X ** Y  becomes  X ** ((Y) >= 0 ? (Y) : ${X**Y?exponent less than 0 …})
//
// mvdan/sh's ternary evaluates only the branch taken, and the name of the
// guard is the expression's text, which no script can assign, so the
// guard fires exactly when bash's error would. Y is evaluated twice, so
// it is guarded only when that is harmless (see pureDivisor). A constant
// bash rejects (`09`, `2#3`, `65#1`) becomes its guard outright.
//
// `(( ))`, `let`, `for (( ))` and `[[ ]]` are commands: there bash's error
// fails the command with status 1 and the script goes on, which mvdan/sh
// already does for division by zero; those expressions are not guarded.

// maxGuardDepth bounds how many guards nest along one divisor: each
// doubles the evaluations of the divisor below it.
const maxGuardDepth = 4

// guardArithmNode rewrites n as above when it is an arithmetic expansion,
// an index, a let clause (parsing its quoted arguments) or a [[ ]] (making
// the operands of its integer comparisons arithmetic).
func guardArithmNode(n syntax.Node) {
	switch n := n.(type) {
	case *syntax.ArithmExp:
		// One without a position is made for [[ ]] (arithOperand),
		// where an error fails the test only.
		if n.Left.IsValid() {
			n.X, _ = guardExpr(n.X)
		}
	case *syntax.ParamExp:
		n.Index = guardIndex(n.Index)
		if n.Slice != nil {
			n.Slice.Offset = guardIndex(n.Slice.Offset)
			n.Slice.Length = guardIndex(n.Slice.Length)
		}
	case *syntax.Assign:
		n.Index = guardIndex(n.Index)
	case *syntax.LetClause:
		for i, x := range n.Exprs {
			if w, ok := x.(*syntax.Word); ok {
				if parsed, ok := quotedArithm(w); ok {
					n.Exprs[i] = parsed
				}
			}
		}
	case *syntax.TestClause:
		shast.Walk(n.X, func(t syntax.Node) bool {
			if b, ok := t.(*syntax.BinaryTest); ok && intComparison(b.Op) {
				for _, x := range []*syntax.TestExpr{&b.X, &b.Y} {
					if ae, ok := arithOperand(*x); ok {
						*x = &syntax.Word{Parts: []syntax.WordPart{ae}}
					}
				}
			}
			_, cmd := t.(*syntax.CmdSubst)
			return !cmd
		})
	}
}

// guardIndex guards an index or offset; a plain word is left alone, as
// it may be an associative array's key.
func guardIndex(x syntax.ArithmExpr) syntax.ArithmExpr {
	if x == nil {
		return nil
	}
	if _, ok := x.(*syntax.Word); ok {
		return x
	}
	x, _ = guardExpr(x)
	return x
}

// guardExpr returns x with its failing operations guarded, and how deep
// the guards nest in it.
func guardExpr(x syntax.ArithmExpr) (syntax.ArithmExpr, int) {
	switch x := x.(type) {
	case *syntax.Word:
		if msg, ok := badConstant(x); ok {
			return guardWord(x.Lit(), msg), 0
		}
		return x, 0
	case *syntax.ParenArithm:
		var d int
		x.X, d = guardExpr(x.X)
		return x, d
	case *syntax.UnaryArithm:
		if x.Op == syntax.Inc || x.Op == syntax.Dec {
			return x, 0
		}
		var d int
		x.X, d = guardExpr(x.X)
		return x, d
	case *syntax.BinaryArithm:
		var name, token string
		fails := failingOp(x.Op)
		if fails {
			if fails = pureDivisor(x.Y); fails {
				name, token = guardText(x), guardText(x.Y)
			}
		}
		var dx, dy int
		if _, assign := shast.ArithAssignOp(x.Op); !assign {
			x.X, dx = guardExpr(x.X)
		}
		x.Y, dy = guardExpr(x.Y)
		if fails && dy < maxGuardDepth {
			x.Y, dy = guardOperand(x.Op, x.Y, name, token), dy+1
		}
		return x, max(dx, dy)
	}
	return x, 0
}

// guardPrinters print guards' texts: a printer costs more to make than
// to use.
var guardPrinters = sync.Pool{New: func() any { return syntax.NewPrinter() }}

// guardText is x's text, as [arithText]: written directly for operators on literals,
// the common case, else with a printer from guardPrinters.
func guardText(x syntax.ArithmExpr) string {
	var b strings.Builder
	if writeArithm(&b, x) {
		return b.String()
	}
	p := guardPrinters.Get().(*syntax.Printer)
	defer guardPrinters.Put(p)
	b.Reset()
	p.Print(&b, &syntax.ArithmCmd{Left: x.Pos(), Right: x.End(), X: x})
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(b.String(), "(("), "))"))
}

// writeArithm writes x much as the printer does (`!a`, not `! a`), when x is operators on
// literals; it reports false for anything else.
func writeArithm(b *strings.Builder, x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case *syntax.Word:
		lit := x.Lit()
		b.WriteString(lit)
		return lit != ""
	case *syntax.ParenArithm:
		b.WriteByte('(')
		ok := writeArithm(b, x.X)
		b.WriteByte(')')
		return ok
	case *syntax.UnaryArithm:
		if x.Post {
			ok := writeArithm(b, x.X)
			b.WriteString(x.Op.String())
			return ok
		}
		b.WriteString(x.Op.String())
		return writeArithm(b, x.X)
	case *syntax.BinaryArithm:
		if !writeArithm(b, x.X) {
			return false
		}
		if x.Op == syntax.Comma {
			b.WriteString(", ")
		} else {
			b.WriteString(" " + x.Op.String() + " ")
		}
		return writeArithm(b, x.Y)
	}
	return false
}

// failingOp reports the operators bash fails on for some right operand.
func failingOp(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Quo, syntax.Rem, syntax.QuoAssgn, syntax.RemAssgn, syntax.Pow:
		return true
	}
	return false
}

// guardOperand is y guarded for op; name is the whole expression's text
// and token y's, as bash's message has them.
func guardOperand(op syntax.BinAritOperator, y syntax.ArithmExpr, name, token string) syntax.ArithmExpr {
	cond := syntax.ArithmExpr(&syntax.ParenArithm{X: y})
	msg := "division by 0"
	if op == syntax.Pow {
		cond = &syntax.BinaryArithm{Op: syntax.Geq, X: cond, Y: shast.LitWord("0")}
		msg = "exponent less than 0"
	}
	return &syntax.ParenArithm{X: &syntax.BinaryArithm{
		Op: syntax.TernQuest,
		X:  cond,
		Y: &syntax.BinaryArithm{
			Op: syntax.TernColon,
			X:  &syntax.ParenArithm{X: y},
			Y:  guardWord(name, msg+` (error token is "`+token+`")`),
		},
	}}
}

// guardWord is `${name?msg}`: name is never a variable (guards name
// expressions, which hold an operator, and constants, which start with
// a digit), so expanding it always fails, fatally, printing "name: msg".
func guardWord(name, msg string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.ParamExp{
		Param: &syntax.Lit{Value: name},
		Exp:   &syntax.Expansion{Op: syntax.ErrorUnset, Word: shast.LitWord(msg)},
	}}}
}

// volatileVars change between two reads: a divisor naming one is read
// once, so it is not guarded.
var volatileVars = map[string]bool{"RANDOM": true, "SRANDOM": true, "SECONDS": true, "EPOCHREALTIME": true, "EPOCHSECONDS": true}

// pureDivisor reports whether y may be evaluated twice with the same
// value and no effect: no assignment, ++ or --, substitution, nested
// expansion or arithmetic index, and no variable that changes on read.
// Further divisions in y are allowed; they are guarded in turn.
func pureDivisor(y syntax.ArithmExpr) bool {
	pure := true
	shast.Walk(y, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryArithm:
			if _, assign := shast.ArithAssignOp(n.Op); assign {
				pure = false
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				pure = false
			}
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
			pure = false
		case *syntax.ParamExp:
			if n.Slice != nil || n.Index != nil && !isWord(n.Index) || n.Param != nil && volatileVars[n.Param.Value] {
				pure = false
			}
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
				pure = false
			}
		case *syntax.Lit:
			if volatileVars[n.Value] {
				pure = false
			}
		}
		return pure
	})
	return pure
}

func isWord(x syntax.ArithmExpr) bool {
	_, ok := x.(*syntax.Word)
	return ok
}

// badConstant reports the message bash fails a constant with, such as
// `09` or `2#3`; w is a constant when it is one literal starting with a
// digit.
func badConstant(w *syntax.Word) (string, bool) {
	s := w.Lit()
	if s == "" || s[0] < '0' || s[0] > '9' {
		return "", false
	}
	if base, digits, ok := strings.Cut(s, "#"); ok {
		switch {
		case strings.Trim(base, "0123456789") != "":
			return "", false
		case base[0] == '0':
			return `invalid number (error token is "` + s + `")`, true
		case len(base) > 2 || atoiSmall(base) < 2 || atoiSmall(base) > 64:
			return `invalid arithmetic base (error token is "` + s + `")`, true
		case digits == "":
			return `invalid integer constant (error token is "` + s + `")`, true
		}
		return digitsIn(s, digits, atoiSmall(base))
	}
	switch {
	case len(s) > 1 && (s[:2] == "0x" || s[:2] == "0X"):
		return digitsIn(s, s[2:], 16)
	case s[0] == '0':
		return digitsIn(s, s[1:], 8)
	}
	return digitsIn(s, s, 10)
}

// digitsIn checks the digits of constant s against base with bash's digit set: below
// base 37 letters of either case count from 10, above it lower case
// counts from 10, upper case from 36, then '@' and '_'. A character that
// is no digit ends the constant for bash, which then fails on an operator;
// only '.' is reported as that, the rest is left to the interpreter.
func digitsIn(constant, s string, base int) (string, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		d := 64
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'z':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'Z':
			d = int(c-'A') + 10
			if base > 36 {
				d += 26
			}
		case c == '@' && base > 36:
			d = 62
		case c == '_' && base > 36:
			d = 63
		case c == '.':
			return `syntax error: invalid arithmetic operator (error token is "` + s[i:] + `")`, true
		default:
			return "", false
		}
		if d >= base {
			return `value too great for base (error token is "` + constant + `")`, true
		}
	}
	return "", false
}

// atoiSmall parses a string of at most two decimal digits.
func atoiSmall(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// quotedArithm parses a let argument that is quoted text, `let 'a = 3 * 4'`,
// which mvdan/sh reads as one word (and so as 0). It declines text that is
// not plain arithmetic on names and numbers.
func quotedArithm(w *syntax.Word) (syntax.ArithmExpr, bool) {
	quoted := false
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
		}
	}
	if !quoted {
		return nil, false
	}
	text, ok := shast.LiteralText(w)
	if !ok {
		return nil, false
	}
	return parseArithm(text)
}

// parseArithm parses text as arithmetic when it nests within bounds and
// holds only operators, names and numbers, and writes only to names (what
// the static pass would refuse is not made here).
func parseArithm(text string) (syntax.ArithmExpr, bool) {
	if _, deep := shast.CheckNesting("$((" + text + "))"); deep {
		return nil, false
	}
	x, err := syntax.NewParser().Arithmetic(strings.NewReader(text))
	if err != nil || x == nil {
		return nil, false
	}
	ok := true
	shast.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			if len(n.Parts) != 1 {
				ok = false
			} else if _, lit := n.Parts[0].(*syntax.Lit); !lit {
				ok = false
			}
		case nil, *syntax.Lit, *syntax.ParenArithm:
		case *syntax.UnaryArithm:
			if (n.Op == syntax.Inc || n.Op == syntax.Dec) && !shast.PlainName(n.X) {
				ok = false
			}
		case *syntax.BinaryArithm:
			if _, assign := shast.ArithAssignOp(n.Op); assign && !shast.PlainName(n.X) {
				ok = false
			}
		default:
			ok = false
		}
		return ok
	})
	return x, ok
}

func intComparison(op syntax.BinTestOperator) bool {
	switch op {
	case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
		return true
	}
	return false
}

// arithOperand is an operand of [[ A -eq B ]] as the arithmetic bash
// makes of it: `[[ x+1 -eq 5 ]]` adds, `[[ $n -eq 4 ]]` follows a name
// that n holds. A decimal number is left as it is.
func arithOperand(x syntax.TestExpr) (*syntax.ArithmExp, bool) {
	w, ok := x.(*syntax.Word)
	if !ok {
		return nil, false
	}
	// No position: guardArithmNode leaves it unguarded.
	ae := &syntax.ArithmExp{}
	text, static := shast.LiteralText(w)
	switch {
	case static && text != "" && strings.Trim(text, "0123456789") == "":
		return nil, false
	case static:
		parsed, ok := parseArithm(text)
		if !ok {
			return nil, false
		}
		ae.X = parsed
	default:
		ae.X = w
	}
	return ae, true
}
