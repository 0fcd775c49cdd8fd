package kernel

import (
	"slices"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// introspection's one pass finds what the plain searches of each name
// find.
func TestIntrospectionAsSearches(t *testing.T) {
	for _, src := range []string{
		"", "echo hi", "echo $_", "echo ${_}", "x_y=1", "_=1", "$_", "{_", "${_",
		"f() { echo $FUNCNAME; }", "echo ${BASH_SOURCE[0]}", "echo $BASH_LINENO", "FUNCNEST=3",
		"caller 0", "recaller", "trap 'echo $LINENO' ERR", "echo $LINENO", "trap - ERR",
		"trap 'echo \"$BASH_COMMAND\"' EXIT", "BASH_COMMANDS", "FUNCNAM", "BASH_", "LINEN trap",
	} {
		checkIntrospection(t, src)
		// The same past shortScript, where the searches take over.
		checkIntrospection(t, strings.Repeat(" ", shortScript)+src)
	}
}

func FuzzIntrospection(f *testing.F) {
	f.Add("trap 'echo $LINENO $_' ERR; f() { caller; }")
	f.Fuzz(checkIntrospection)
}

func checkIntrospection(t *testing.T, src string) {
	stack, underscore, commands := introspection(src)
	wantUnderscore := strings.Contains(src, "$_") || strings.Contains(src, "${_")
	wantCommands := strings.Contains(src, "BASH_COMMAND") || strings.Contains(src, "LINENO") && strings.Contains(src, "trap")
	if stack != bashcompat.ReadsCallStack(src) || underscore != wantUnderscore || commands != wantCommands {
		t.Errorf("%q: introspection = %v %v %v, the searches %v %v %v", src, stack, underscore, commands,
			bashcompat.ReadsCallStack(src), wantUnderscore, wantCommands)
	}
}

// The shell's identity the kernel answers is named in shast.IdentityVars,
// which the listings and the rewrites' hints read.
func TestIdentityNamedInShast(t *testing.T) {
	for _, vars := range []map[string]string{buildIdentity(), hostIdentity()} {
		for name := range vars {
			if !slices.Contains(shast.IdentityVars, name) {
				t.Errorf("%s is not in shast.IdentityVars", name)
			}
		}
	}
}
