package kernel_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// reflected is a Result's JSON as encoding/json writes it by reflection,
// which MarshalJSON's bytes must equal: lists [] when empty, data null
// when absent, exit_code null for a yielded call, no HTML escaping.
func reflected(r kernel.Result) ([]byte, error) {
	type plain kernel.Result
	p := plain(r)
	if p.Issues == nil {
		p.Issues = []kernel.Issue{}
	}
	if p.Jobs == nil {
		p.Jobs = []kernel.Job{}
	}
	if len(p.Data) == 0 {
		p.Data = json.RawMessage("null")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	if r.Yielded {
		code := fmt.Appendf(nil, `{"exit_code":%d,`, r.ExitCode)
		out = append([]byte(`{"exit_code":null,`), bytes.TrimPrefix(out, code)...)
	}
	return out, nil
}

func checkResultJSON(t *testing.T, r kernel.Result) {
	t.Helper()
	got, err := r.MarshalJSON()
	want, werr := reflected(r)
	if (err != nil) != (werr != nil) {
		t.Fatalf("%+v: MarshalJSON error %v, encoding/json's %v", r, err, werr)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%+v:\nMarshalJSON %s\nencoding/json %s", r, got, want)
	}
}

func TestResultJSON(t *testing.T) {
	for _, r := range []kernel.Result{
		{},
		{Stdout: "hi\n", StdoutBytes: 3, Cwd: "/tmp/x", DurationMS: 12},
		{ExitCode: 2, Rejected: true, Stderr: "bash: 'x' <&> \"quoted\"\n", StderrBytes: 30},
		{ExitCode: -1, Yielded: true, Stdout: "1\n", Jobs: []kernel.Job{{ID: 1, PID: 4242, Command: "sleep 9 &", Log: "/tmp/s/job-1.log"}}},
		{ExitCode: 124, TimedOut: true, Cancelled: true, Truncated: true, SpillPath: "/s/out", StderrSpillPath: "/s/err", StdoutBytes: 1 << 40},
		{Data: json.RawMessage(" {\"a\": [1, 2, \"<x>\"]} "), Issues: []kernel.Issue{
			{Severity: kernel.SeverityNote, Code: kernel.CodeGap, Line: 1, Col: 3, Message: "x\u2028y"},
			{Severity: kernel.SeverityError, Code: kernel.CodeParse, Message: "bad \xff"},
		}},
		{Data: json.RawMessage(`{"a":`)},
		{Stdout: "\x00\x1b[0m\t\r\n\b\f\u2029 é \xed\xa0\x80"},
	} {
		checkResultJSON(t, r)
	}
}

func FuzzResultJSON(f *testing.F) {
	f.Add(0, "hi\n", "", []byte(nil), "/tmp", false, "note")
	f.Add(3, "<a&b>", "\x00\xff", []byte(` [1, {"x":"\u2028"}]`), "", true, "")
	f.Fuzz(func(t *testing.T, code int, stdout, stderr string, data []byte, cwd string, yielded bool, msg string) {
		r := kernel.Result{ExitCode: code, Stdout: stdout, Stderr: stderr, Data: data, Cwd: cwd, Yielded: yielded}
		if msg != "" {
			r.Issues = []kernel.Issue{{Severity: kernel.SeverityWarning, Code: msg, Message: msg}}
			r.Jobs = []kernel.Job{{ID: code, Command: msg, Log: stdout}}
		}
		checkResultJSON(t, r)
	})
}
