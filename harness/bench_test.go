package harness_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/shelter-sh/shelter/harness"
	"github.com/shelter-sh/shelter/kernel"
)

var benchArgs = []string{"--unit", "nginx", "--lines", "50", "--follow", "--tags", "a,b"}

// BenchmarkParseArgs is the shell mapping alone.
func BenchmarkParseArgs(b *testing.B) {
	f, err := harness.NewFlags("logs", json.RawMessage(logsSchema))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := f.Parse(benchArgs, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseInput maps and validates against the compiled schema.
func BenchmarkParseInput(b *testing.B) {
	tool := echoFunc(b, logsDef(), nil).(*harness.Tool)
	for b.Loop() {
		if _, err := tool.ParseInput(benchArgs, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFuncCall is a whole call of a Go-function tool through a
// session: parse, static pass, guard, mapping, validation, handler.
func BenchmarkFuncCall(b *testing.B) {
	s := session(b, []kernel.Tool{echoFunc(b, logsDef(), nil)}, kernel.SessionOptions{})
	ctx := context.Background()
	for b.Loop() {
		res, err := s.Run(ctx, "logs --unit nginx --lines 50 --follow --tags a,b", kernel.RunOptions{})
		if err != nil || res.ExitCode != 0 {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkExecCall is a whole call of an executable tool (cat), process
// start included.
func BenchmarkExecCall(b *testing.B) {
	tool, err := harness.Exec(harness.Def{Name: "show", Input: json.RawMessage(logsSchema)}, []string{"cat"})
	if err != nil {
		b.Fatal(err)
	}
	s := session(b, []kernel.Tool{tool}, kernel.SessionOptions{})
	ctx := context.Background()
	for b.Loop() {
		res, err := s.Run(ctx, "show --unit nginx --lines 50", kernel.RunOptions{})
		if err != nil || res.ExitCode != 0 {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkGuardRefusal is a script the guard refuses before it runs.
func BenchmarkGuardRefusal(b *testing.B) {
	s := session(b, []kernel.Tool{echoFunc(b, logsDef(), nil)}, kernel.SessionOptions{})
	ctx := context.Background()
	for b.Loop() {
		res, err := s.Run(ctx, "touch marker; sudo journalctl -u nginx | grep x", kernel.RunOptions{})
		if err != nil || res.ExitCode != 2 {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkNewTool makes a tool: both schemas compiled, flags read.
func BenchmarkNewTool(b *testing.B) {
	def := logsDef()
	def.Input = json.RawMessage(nestedSchema)
	def.Output = json.RawMessage(logsSchema)
	for b.Loop() {
		if _, err := harness.Func(def, func(context.Context, harness.Input) (any, error) { return nil, nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate validates JSON input (an MCP call) against a schema
// with nested objects, arrays and an enum.
func BenchmarkValidate(b *testing.B) {
	tool := echoFunc(b, harness.Def{Name: "logs", Input: json.RawMessage(nestedSchema)}, nil).(*harness.Tool)
	input := json.RawMessage(`{"unit":"nginx","meta":{"depth":3,"path/x":"a"},"pair":["a",1],"tags":["x","y"]}`)
	for b.Loop() {
		if err := tool.Validate(input); err != nil {
			b.Fatal(err)
		}
	}
}
