package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"shelter": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", os.Getenv("PATH"))
			env.Setenv("SHELTER_TEST_SECRET", "hunter2")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"jsonfields": jsonFields,
		},
	})
}

// jsonFields checks that stdout is one JSON object with exactly the named
// fields, in that order: jsonfields name...
func jsonFields(ts *testscript.TestScript, neg bool, args []string) {
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile("stdout")))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		ts.Fatalf("stdout is not a JSON object: %v", err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			ts.Fatalf("%v", err)
		}
		keys = append(keys, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			ts.Fatalf("%v", err)
		}
	}
	if slices.Equal(keys, args) == neg {
		ts.Fatalf("fields %v, want %v", keys, args)
	}
}

func TestTerminalStdinSaysREPLIsNotBuilt(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	var stdout, stderr bytes.Buffer
	code := run(nil, tty, &stdout, &stderr)
	if code != 2 || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "REPL is not built yet") {
		t.Errorf("exit %d stdout %q stderr %q", code, stdout.String(), stderr.String())
	}
}

func TestVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"version"}, nil, &stdout, &stderr); code != 0 || !strings.HasPrefix(stdout.String(), "shelter ") {
		t.Errorf("exit %d stdout %q stderr %q", code, stdout.String(), stderr.String())
	}
	fmt.Fprint(&stdout)
}
