package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/shelter-sh/shelter/internal/refusal"
)

// splitArgs takes the session argument out of a call's arguments; line
// refuses arguments that are not a JSON object or a session that is not
// a string.
func splitArgs(tool string, raw json.RawMessage) (call, string) {
	var c call
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		c.args = map[string]json.RawMessage{}
		return c, ""
	}
	if raw[0] != '{' || !json.Valid(raw) {
		return c, fmt.Sprintf("%s: the arguments must be a JSON object", tool)
	}
	c.args = map[string]json.RawMessage{}
	members(raw, func(name string, value []byte) { c.args[name] = value })
	if h, ok := c.args["session"]; ok {
		delete(c.args, "session")
		if c.handle, ok = jsonString(h); !ok {
			return c, fmt.Sprintf("%s: 'session' must be a string, the handle a result gave", tool)
		}
	}
	return c, ""
}

// bashInput is the bash tool's input.
type bashInput struct {
	command        string
	stdin          io.Reader
	timeout, yield *time.Duration
}

var bashProperties = []string{"command", "session", "stdin", "timeout_ms", "yield_ms"}

// parse checks args against the bash tool's schema; it returns the
// refusal line, or "".
func (in *bashInput) parse(args map[string]json.RawMessage) string {
	unknown := "" // the first in sorted order
	for k := range args {
		if !slices.Contains(bashProperties, k) && (unknown == "" || k < unknown) {
			unknown = k
		}
	}
	if unknown != "" {
		return refusal.Line("bash", "unknown property "+refusal.Quote(unknown), bashProperties)
	}
	raw, ok := args["command"]
	if !ok || isNull(raw) {
		// A null command is no command, not an empty script to run.
		return "bash: 'command' is required: the bash source to run"
	}
	if in.command, ok = jsonString(raw); !ok {
		return "bash: 'command' must be a string"
	}
	if raw, ok := args["stdin"]; ok {
		s, ok := jsonString(raw)
		if !ok {
			return "bash: 'stdin' must be a string"
		}
		in.stdin = strings.NewReader(s)
	}
	for _, f := range []struct {
		name string
		d    **time.Duration
	}{{"timeout_ms", &in.timeout}, {"yield_ms", &in.yield}} {
		raw, ok := args[f.name]
		if !ok {
			continue
		}
		var ms int64
		if json.Unmarshal(raw, &ms) != nil || ms < 0 {
			return fmt.Sprintf("bash: '%s' must be an integer of milliseconds, 0 or more", f.name)
		}
		d := time.Duration(ms) * time.Millisecond
		*f.d = &d
	}
	return ""
}

// jsonString is the string raw, a valid JSON value, holds, as
// json.Unmarshal into a string reads it: null is ""; ok is false for any
// other value that is not a string.
func jsonString(raw json.RawMessage) (string, bool) {
	if isNull(raw) {
		return "", true
	}
	return unquote(raw)
}
