package kernel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/shelter-sh/shelter/internal/jsonquote"
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
// absent data: exit_code is null for a yielded call. The bytes are those
// of encoding/json without HTML escaping (output is shell text: `&`, `<`
// and `>` stay as they are), written without reflection: the Result is
// every MCP call's answer. It fails only when Data is not valid JSON.
func (r Result) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 320+len(r.Stdout)+len(r.Stderr)+len(r.Data)+len(r.Cwd))
	b = append(b, `{"exit_code":`...)
	if r.Yielded {
		// No status while the call runs on.
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(r.ExitCode), 10)
	}
	b = jsonquote.Append(append(b, `,"stdout":`...), r.Stdout)
	b = jsonquote.Append(append(b, `,"stderr":`...), r.Stderr)
	b = append(b, `,"data":`...)
	if len(r.Data) == 0 {
		b = append(b, "null"...)
	} else {
		buf := bytes.NewBuffer(b)
		if err := json.Compact(buf, r.Data); err != nil {
			return nil, fmt.Errorf("kernel: Result.Data: %v", err)
		}
		b = buf.Bytes()
	}
	b = jsonquote.Append(append(b, `,"cwd":`...), r.Cwd)
	b = strconv.AppendInt(append(b, `,"duration_ms":`...), r.DurationMS, 10)
	b = strconv.AppendBool(append(b, `,"timed_out":`...), r.TimedOut)
	b = strconv.AppendBool(append(b, `,"cancelled":`...), r.Cancelled)
	b = strconv.AppendBool(append(b, `,"rejected":`...), r.Rejected)
	b = strconv.AppendBool(append(b, `,"truncated":`...), r.Truncated)
	b = strconv.AppendInt(append(b, `,"stdout_bytes":`...), r.StdoutBytes, 10)
	b = strconv.AppendInt(append(b, `,"stderr_bytes":`...), r.StderrBytes, 10)
	b = jsonquote.Append(append(b, `,"spill_path":`...), r.SpillPath)
	b = jsonquote.Append(append(b, `,"stderr_spill_path":`...), r.StderrSpillPath)
	b = strconv.AppendBool(append(b, `,"yielded":`...), r.Yielded)
	b = append(b, `,"issues":[`...)
	for i, is := range r.Issues {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonquote.Append(append(b, `{"severity":`...), string(is.Severity))
		b = jsonquote.Append(append(b, `,"code":`...), is.Code)
		b = strconv.AppendInt(append(b, `,"line":`...), int64(is.Line), 10)
		b = strconv.AppendInt(append(b, `,"col":`...), int64(is.Col), 10)
		b = append(jsonquote.Append(append(b, `,"message":`...), is.Message), '}')
	}
	b = append(b, `],"jobs":[`...)
	for i, j := range r.Jobs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(append(b, `{"id":`...), int64(j.ID), 10)
		b = strconv.AppendInt(append(b, `,"pid":`...), int64(j.PID), 10)
		b = jsonquote.Append(append(b, `,"command":`...), j.Command)
		b = append(jsonquote.Append(append(b, `,"log":`...), j.Log), '}')
	}
	return append(b, "]}"...), nil
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
