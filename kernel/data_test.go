package kernel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// jsonTool prints a JSON object and declares it as the call's data.
type jsonTool struct{}

func (jsonTool) Name() string                 { return "jsontool" }
func (jsonTool) Kind() kernel.Kind            { return kernel.Harness }
func (jsonTool) Description() string          { return "Print a JSON object." }
func (jsonTool) InputSchema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (jsonTool) Run(_ context.Context, c *kernel.Call) error {
	fmt.Fprintln(c.Stdout, `{"ok":true}`)
	c.SetData(json.RawMessage(`{"ok":true}`))
	return nil
}

func TestDataComesFromTheLastCommandWritingTheResult(t *testing.T) {
	s := newSession(t, kernel.Config{Tools: []kernel.Tool{jsonTool{}}}, kernel.SessionOptions{})
	for _, tc := range []struct {
		script, data string
	}{
		{"jsontool", `{"ok":true}`},
		{"echo first; jsontool", `{"ok":true}`},
		{"jsontool; echo after", ""},
		{"jsontool | cat", ""},
		{"echo x | jsontool | cat", ""},
		{"cat </dev/null | jsontool", `{"ok":true}`},
		{"x=$(jsontool); echo $x", ""},
		{"jsontool >/dev/null", ""},
		{"jsontool; false", ""},
	} {
		res := run(t, s, tc.script)
		if string(res.Data) != tc.data {
			t.Errorf("%q: data %s, want %q", tc.script, res.Data, tc.data)
		}
	}
}
