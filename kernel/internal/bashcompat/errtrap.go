package bashcompat

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// In an ERR trap, bash's $LINENO is the line of the command that failed;
// mvdan/sh's is the line within the trap's own text. The action shelter
// hands to mvdan/sh's trap reads CommandLineVar instead, which the kernel
// sets to the line of each simple command as it starts, in a session
// whose scripts name LINENO in a trap (or BASH_COMMAND, which it sets to
// the command's words). A command that is not simple ([[ ]], (( )), an
// assignment alone) leaves the line of the simple command before it.

// CommandLineVar holds the line of the latest simple command.
const CommandLineVar = "SHELTER_LINENO"

// errTrapAction is action as mvdan/sh's trap runs it: $LINENO reads
// CommandLineVar. An action that does not parse is left alone, for the
// trap to report.
func errTrapAction(action string) string {
	if !strings.Contains(action, "LINENO") {
		return action
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(action), "")
	if err != nil {
		return action
	}
	changed := false
	shast.Walk(file, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil && pe.Param.Value == "LINENO" {
			pe.Param = &syntax.Lit{ValuePos: pe.Param.ValuePos, ValueEnd: pe.Param.ValueEnd, Value: CommandLineVar}
			changed = true
		}
		return true
	})
	if !changed {
		return action
	}
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, file); err != nil {
		return action
	}
	return b.String()
}
