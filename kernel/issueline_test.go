package kernel_test

import (
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// One shape for an issue, in a refused run, in shelter check and at the
// prompt.
func TestIssueLine(t *testing.T) {
	for _, tc := range []struct {
		is   kernel.Issue
		want string
	}{
		{kernel.Issue{Severity: kernel.SeverityError, Code: kernel.CodeParse, Line: 1, Col: 6, Message: "`$((` must be followed by an expression"},
			"shelter: line 1:6: `$((` must be followed by an expression"},
		{kernel.Issue{Severity: kernel.SeverityWarning, Code: kernel.CodeUnknown, Line: 2, Col: 1, Message: "nope: not a function, tool or program on PATH"},
			"shelter: line 2:1: warning: nope: not a function, tool or program on PATH"},
		{kernel.Issue{Severity: kernel.SeverityWarning, Code: kernel.CodeExternal, Line: 1, Col: 1, Message: "shelter: external command 'curl' is not allowed in this session"},
			"shelter: line 1:1: warning: external command 'curl' is not allowed in this session"},
		{kernel.Issue{Severity: kernel.SeverityWarning, Code: kernel.CodeExternal, Message: "shelter: external command 'curl' is not allowed in this session"},
			"shelter: warning: external command 'curl' is not allowed in this session"},
		{kernel.Issue{Severity: kernel.SeverityError, Code: kernel.CodeRefused, Line: 1, Col: 1, Message: "git: unknown verb 'x'; allowed: log"},
			"git: unknown verb 'x'; allowed: log"},
		{kernel.Issue{Severity: kernel.SeverityError, Code: kernel.CodeParse, Message: "shelter: empty argv; give at least a command name"},
			"shelter: empty argv; give at least a command name"},
	} {
		if got := kernel.IssueLine(tc.is); got != tc.want {
			t.Errorf("IssueLine(%+v)\n got %s\nwant %s", tc.is, got, tc.want)
		}
	}
}
