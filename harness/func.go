package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"

	"github.com/shelter-sh/shelter/kernel"
)

// Input is what a [Handler] is handed for one call.
type Input struct {
	// Args is the input object, already validated against the schema.
	Args json.RawMessage
	// Dir is the session's working directory.
	Dir string
	// Env is the session's exported environment, "NAME=VALUE" each.
	Env []string
	// Caller is who is calling, as the embedder set it for the session;
	// it is never taken from the input.
	Caller kernel.Caller
	// Stdout and Stderr are the call's output streams.
	Stdout, Stderr io.Writer
}

// Handler is the Go function behind a tool. Its result is the tool's JSON
// output; its error ends the call (see [Func]).
type Handler func(ctx context.Context, in Input) (any, error)

// Func makes a Go-function tool. The handler's result is marshalled to
// JSON, printed on stdout (one line) and set as the call's data; a nil
// result prints nothing. When def has an output schema the result must
// match it, or the call fails with status 1.
//
// A [*kernel.Refusal] error prints its line and exits 2; a
// [kernel.ExitStatus] exits with that status; any other error is printed
// as "NAME: ERROR" and exits 1. A panic in the handler is recovered and
// reported the same way, so one tool cannot bring the embedder down.
//
// Func fails when the name is not [a-z][a-z0-9_-]{0,47}, when a schema
// does not compile or the input schema does not describe an object, or
// when h is nil.
func Func(def Def, h Handler) (kernel.Tool, error) {
	if h == nil {
		return nil, fmt.Errorf("harness: tool %s: nil handler", def.Name)
	}
	// A function runs in shelter's process, which no confinement holds:
	// what a program may reach means nothing here.
	def.Network, def.ReadPaths, def.WritePaths = false, nil, nil
	t, err := newTool(def, func(ctx context.Context, t *Tool, c *kernel.Call, input json.RawMessage) error {
		return runHandler(ctx, t, h, c, input)
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

func runHandler(ctx context.Context, t *Tool, h Handler, c *kernel.Call, input json.RawMessage) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	res, err := h(ctx, Input{
		Args:   input,
		Dir:    c.Dir,
		Env:    c.Env,
		Caller: c.Caller,
		Stdout: c.Stdout,
		Stderr: c.Stderr,
	})
	if err != nil {
		return err
	}
	if isNil(res) {
		return nil
	}
	out, err := marshalLine(res)
	if err != nil {
		return fmt.Errorf("result is not JSON: %v", err)
	}
	if err := t.checkOutput(out); err != nil {
		fmt.Fprintln(c.Stderr, err)
		return kernel.ExitStatus(1)
	}
	if _, err := c.Stdout.Write(append(out, '\n')); err != nil {
		return err
	}
	c.SetData(out)
	return nil
}

// marshalLine renders v as compact JSON without HTML escaping: one line.
func marshalLine(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// isNil reports a nil result: nil itself or a nil pointer or interface.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
