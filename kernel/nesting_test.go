package kernel

import (
	"strings"
	"testing"
)

// TestNestingRefusal: a script that nests too deep is refused with one
// line, as an unsupported construct.
func TestNestingRefusal(t *testing.T) {
	is, ok := nestingRefusal(strings.Repeat("( ", 1001) + "echo deep" + strings.Repeat(" )", 1001))
	if !ok || is.Severity != SeverityError || is.Code != CodeUnsupported {
		t.Fatalf("issue %+v, %v", is, ok)
	}
	want := "shelter: line 1:2001: the script nests deeper than 1000 levels (subshells, groups, substitutions, compound commands, chains of operators); split it into functions or smaller scripts"
	if got := IssueLine(is); got != want {
		t.Errorf("line:\n got %s\nwant %s", got, want)
	}
}
