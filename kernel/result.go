package kernel

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Result is the one answer to a call: the same shape in Go, in
// `shelter --json` and as MCP structured content. In JSON every field is
// always present; empty lists are [] and absent data is null.
type Result struct {
	// ExitCode is the call's status. A yielded call has none yet: its
	// ExitCode is -1, as os.ProcessState.ExitCode says of a process that
	// has not exited, and its JSON exit_code is null (which
	// json.Unmarshal leaves as it finds it: read Yielded first). `wait %N`
	// of its job gives the status when it ends.
	ExitCode    int             `json:"exit_code"`
	Stdout      string          `json:"stdout"`
	Stderr      string          `json:"stderr"`
	Data        json.RawMessage `json:"data"`
	Cwd         string          `json:"cwd"`
	DurationMS  int64           `json:"duration_ms"`
	TimedOut    bool            `json:"timed_out"`
	Cancelled   bool            `json:"cancelled"`
	Rejected    bool            `json:"rejected"`
	Truncated   bool            `json:"truncated"`
	StdoutBytes int64           `json:"stdout_bytes"`
	StderrBytes int64           `json:"stderr_bytes"`
	SpillPath   string          `json:"spill_path"`
	// StderrSpillPath is SpillPath's counterpart for stderr.
	StderrSpillPath string `json:"stderr_spill_path"`
	// Yielded is true when the call returned at its yield point
	// (RunOptions.Yield) and goes on as the last of Jobs: it is still
	// running, and ExitCode is no status.
	Yielded bool    `json:"yielded"`
	Issues  []Issue `json:"issues"`
	Jobs    []Job   `json:"jobs"`
}

// MarshalJSON writes every field, with [] for empty lists and null for
// absent data: exit_code is null for a yielded call.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	p := plain(r)
	if p.Issues == nil {
		p.Issues = []Issue{}
	}
	if p.Jobs == nil {
		p.Jobs = []Job{}
	}
	if len(p.Data) == 0 {
		p.Data = json.RawMessage("null")
	}
	// Output is shell text: `&`, `<` and `>` stay as they are.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	if r.Yielded {
		// exit_code is the first field: no status while the call runs on.
		code := fmt.Appendf(nil, `{"exit_code":%d,`, r.ExitCode)
		out = append([]byte(`{"exit_code":null,`), bytes.TrimPrefix(out, code)...)
	}
	return out, nil
}

// Severity of an [Issue].
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	// SeverityNote is a known gap (docs/embedding.md, "Known gaps"): the
	// script runs, and where it uses the construct shelter does otherwise
	// than bash.
	SeverityNote Severity = "note"
)

// Issue is a finding of validation: an error refuses the script, a warning
// or a note does not. Line and Col are 1-based; 0 when unknown.
type Issue struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Line     int      `json:"line"`
	Col      int      `json:"col"`
	Message  string   `json:"message"`
}

// Issue codes.
const (
	CodeParse       = "parse"       // the script does not parse
	CodeUnsupported = "unsupported" // a construct shelter does not run
	CodeUnknown     = "unknown-command"
	CodeRefused     = "refused" // a tool's static check refused the call
	CodeGuard       = "guard"   // a command a harness tool replaces
	CodeExternal    = "external"
	CodeInternal    = "internal" // the interpreter failed; the session stays usable
	CodeMemory      = "memory"   // the call's memory budget would be exceeded
	CodeGap         = "gap"      // a note: a construct shelter runs otherwise than bash
)
