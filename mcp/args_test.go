package mcp

import (
	"encoding/json"
	"io"
	"testing"
)

// TestBashInput holds the bash tool's arguments to what json.Unmarshal
// into strings accepts: null is "" (but a null command is no command),
// escapes are read, any other value is refused; of several unknown
// properties the first in sorted order is named.
func TestBashInput(t *testing.T) {
	for _, tc := range []struct {
		args, command, stdin, line string
	}{
		{args: `{"command":"echo hi"}`, command: "echo hi"},
		{args: `{"command":"echo \"a\\tb\" \u00e9 \ud83d\ude00"}`, command: "echo \"a\\tb\" é 😀"},
		{args: `{"command":null}`, line: "bash: 'command' is required: the bash source to run"},
		{args: `{"command":"cat","stdin":"in\nput"}`, command: "cat", stdin: "in\nput"},
		{args: `{"command":"cat","stdin":null}`, command: "cat"},
		{args: `{"command":3}`, line: "bash: 'command' must be a string"},
		{args: `{"command":"x","stdin":["a"]}`, line: "bash: 'stdin' must be a string"},
		{args: `{"zeta":1,"alpha":2,"command":"x"}`, line: "bash: unknown property 'alpha'; allowed: command, session, stdin, timeout_ms, yield_ms"},
		{args: `{}`, line: "bash: 'command' is required: the bash source to run"},
		{args: `{"command":"x","session":7}`, line: "bash: 'session' must be a string, the handle a result gave"},
	} {
		c, line := splitArgs("bash", json.RawMessage(tc.args))
		var in bashInput
		if line == "" {
			line = in.parse(c.args)
		}
		var stdin string
		if in.stdin != nil {
			b, _ := io.ReadAll(in.stdin)
			stdin = string(b)
		}
		if line != tc.line || line == "" && (in.command != tc.command || stdin != tc.stdin) {
			t.Errorf("%s: command %q, stdin %q, refusal %q; want %q, %q, %q", tc.args, in.command, stdin, line, tc.command, tc.stdin, tc.line)
		}
	}
}
