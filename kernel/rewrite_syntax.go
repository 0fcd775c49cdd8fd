package kernel

import "mvdan.cc/sh/v3/syntax"

// rewriteBashSyntax rewrites, in one walk of file, the constructs that
// mvdan/sh runs differently from bash into ones it runs as bash does
// (docs/embedding.md, "Bash compatibility"). Each rewrite keeps bash's
// meaning for every input it touches and leaves alone what it cannot
// prove.
func rewriteBashSyntax(file *syntax.File) {
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryTest:
			quoteRegexLiterals(n)
		case *syntax.Assign:
			unescapeAssignValue(n)
		}
		return true
	})
}
