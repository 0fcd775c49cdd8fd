package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/shelter-sh/shelter/internal/jsonschema"
	"github.com/shelter-sh/shelter/kernel"
)

// Tool is a harness tool, as [Func] and [Exec] make it: a [kernel.Tool] of
// kind [kernel.Harness] that also implements [kernel.Replacer],
// [kernel.Helper] and [kernel.StaticChecker]. A Tool is immutable and safe
// for concurrent use.
//
// Run maps the call's words onto the input ([Flags]), validates the input
// against the schema and only then runs the tool; a refusal is one line on
// stderr and status 2.
type Tool struct {
	def    Def
	desc   string
	flags  *Flags
	input  *jsonschema.Schema
	output *jsonschema.Schema // nil without an output schema
	run    runFunc
}

// runFunc runs a tool once its input is valid.
type runFunc func(ctx context.Context, t *Tool, c *kernel.Call, input json.RawMessage) error

// newTool checks a definition and compiles its schemas once.
func newTool(def Def, run runFunc) (*Tool, error) {
	if err := checkDef(def); err != nil {
		return nil, err
	}
	def.Input = bytes.TrimSpace(def.Input)
	if len(def.Input) == 0 {
		def.Input = emptyInput
	}
	def.Output = bytes.TrimSpace(def.Output)
	def.Replaces = slices.Clone(def.Replaces)
	def.PassEnv = slices.Clone(def.PassEnv)
	def.Env = maps.Clone(def.Env)
	def.ReadPaths = slices.Clone(def.ReadPaths)
	def.WritePaths = slices.Clone(def.WritePaths)
	t := &Tool{def: def, desc: agentDescription(def), run: run}
	var err error
	if t.input, err = compileSchema("input", def.Input); err != nil {
		return nil, &badSchemaError{tool: def.Name, which: "input", err: err}
	}
	if t.flags, err = NewFlags(def.Name, def.Input); err != nil {
		return nil, &badSchemaError{tool: def.Name, which: "input", err: err}
	}
	if len(def.Output) > 0 {
		if t.output, err = compileSchema("output", def.Output); err != nil {
			return nil, &badSchemaError{tool: def.Name, which: "output", err: err}
		}
	}
	return t, nil
}

// badSchemaError is a definition's schema that cannot be used; the YAML
// loader points at that schema's node.
type badSchemaError struct {
	tool  string
	which string // "input" or "output"
	err   error
}

func (e *badSchemaError) Error() string { return fmt.Sprintf("harness: tool %s: %v", e.tool, e.err) }

func (e *badSchemaError) Unwrap() error { return e.err }

// Name is the command name.
func (t *Tool) Name() string { return t.def.Name }

// Kind is [kernel.Harness].
func (t *Tool) Kind() kernel.Kind { return kernel.Harness }

// Description is the tool's description for agents; it ends with
// "Use instead of: …" when the tool replaces commands.
func (t *Tool) Description() string { return t.desc }

// InputSchema is the input schema as declared.
func (t *Tool) InputSchema() json.RawMessage { return t.def.Input }

// OutputSchema is the output schema as declared, nil when there is none.
func (t *Tool) OutputSchema() json.RawMessage { return t.def.Output }

// Annotations are the tool's behaviour hints.
func (t *Tool) Annotations() Annotations { return t.def.Annotations }

// Replaces lists the shell commands the tool is the preferred way to do;
// it feeds the kernel's guard.
func (t *Tool) Replaces() []string { return slices.Clone(t.def.Replaces) }

// Def returns the tool's definition, schemas as declared.
func (t *Tool) Def() Def {
	d := t.def
	d.Replaces = slices.Clone(d.Replaces)
	d.PassEnv = slices.Clone(d.PassEnv)
	d.Env = maps.Clone(d.Env)
	d.ReadPaths = slices.Clone(d.ReadPaths)
	d.WritePaths = slices.Clone(d.WritePaths)
	return d
}

// Flags returns the tool's shell mapping.
func (t *Tool) Flags() *Flags { return t.flags }

// Validate checks an input object against the input schema. The error is
// a one-line refusal: [*SchemaError], [*UnknownPropertyError] or
// [*UsageError].
func (t *Tool) Validate(input json.RawMessage) error {
	if _, err := t.flags.object(input, "input", "one JSON object"); err != nil {
		return err
	}
	return validate(t.def.Name, false, t.input, input, t.flags.names)
}

// ParseInput maps a call's words (after the name) onto the input and
// validates it: the input the tool would run with, or the one-line refusal.
// It returns [ErrHelp] for --help.
func (t *Tool) ParseInput(args []string, stdin io.Reader) (json.RawMessage, error) {
	input, err := t.flags.Parse(args, stdin)
	if err != nil {
		return nil, err
	}
	if err := validate(t.def.Name, false, t.input, input, t.flags.names); err != nil {
		return nil, err
	}
	return input, nil
}

// CheckStatic refuses, before anything of the script runs, a call whose
// words are all literal and cannot make a valid input. A call with no
// words may read JSON from stdin and one with opaque words is judged at
// execution.
func (t *Tool) CheckStatic(words []kernel.Word) error {
	if len(words) < 2 {
		return nil
	}
	args := make([]string, len(words)-1)
	for i, w := range words[1:] {
		if w.Opaque {
			return nil
		}
		args[i] = w.Text
	}
	if _, err := t.ParseInput(args, nil); err != nil && !errors.Is(err, ErrHelp) {
		return asRefusal(t.Name(), err)
	}
	return nil
}

// Run runs one call: words or stdin to input, validation, then the tool.
func (t *Tool) Run(ctx context.Context, c *kernel.Call) error {
	var args []string
	if len(c.Args) > 1 {
		args = c.Args[1:]
	}
	var stdin io.Reader
	if len(args) == 0 && c.Stdin != nil && !isTerminal(c.Stdin) {
		data, err := readStdin(ctx, c.Stdin)
		if err != nil {
			return err
		}
		stdin = bytes.NewReader(data)
	}
	input, err := t.ParseInput(args, stdin)
	if errors.Is(err, ErrHelp) {
		_, err = io.WriteString(c.Stdout, t.Help())
		return err
	}
	if err != nil {
		return asRefusal(t.Name(), err)
	}
	return t.run(ctx, t, c, input)
}

// isTerminal reports whether r is a terminal: a person at a prompt who
// typed the bare name gets the schema's refusal, not a silent wait for
// JSON.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// readStdin reads a call's input, giving up when ctx ends: a pipe whose
// writer never finishes must not hold the call past its timeout.
func readStdin(ctx context.Context, r io.Reader) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, MaxStdin+1))
		done <- result{data, err}
	}()
	select {
	case res := <-done:
		return res.data, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// checkOutput validates a tool's JSON result against the output schema,
// if there is one.
func (t *Tool) checkOutput(out json.RawMessage) error {
	if t.output == nil {
		return nil
	}
	return validate(t.def.Name, true, t.output, out, nil)
}
