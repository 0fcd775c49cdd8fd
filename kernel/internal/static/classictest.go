package static

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

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
