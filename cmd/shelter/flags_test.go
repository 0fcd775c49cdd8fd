package main

import (
	"errors"
	"reflect"
	"slices"
	"testing"
)

// TestScriptOnlyAgreesWithTheFlagSet holds the shortcut parseFlags takes
// for `-c SCRIPT` to what the flag set makes of the same line, and to
// declining every line it is not sure of.
func TestScriptOnlyAgreesWithTheFlagSet(t *testing.T) {
	for _, tc := range []struct {
		verb  string
		args  []string
		taken bool
	}{
		{"run", []string{"-c", "true"}, true},
		{"run", []string{"-c", "echo $0 $1", "name", "one", "--json"}, true},
		{"run", []string{"-c", "-x", "-"}, true},
		{"run", []string{"-c", "", ""}, true},
		{"run", []string{"-c", "true", "--json"}, true},
		{"run", []string{"-c", "true", "--", "x"}, true},
		{"run", []string{"-c", "true", "-c", "false"}, true},
		{"check", []string{"-c", "echo"}, true},
		{"check", []string{"-c", "echo", "--json"}, false},
		{"check", []string{"-c", "echo", "--", "x"}, false},
		{"run", []string{"--c", "true"}, false},
		{"run", []string{"-c=true"}, false},
		{"run", []string{"--json", "-c", "true"}, false},
		{"run", []string{"-c"}, false},
		{"run", []string{"script.sh"}, false},
		{"tools", []string{"-c", "true"}, false},
	} {
		var short options
		rest, ok := short.scriptOnly(tc.verb, tc.args)
		if ok != tc.taken {
			t.Errorf("%s %q: taken %v, want %v", tc.verb, tc.args, ok, tc.taken)
		}
		if !ok {
			continue
		}
		var full options
		fullRest, err := full.parseFlagSet(tc.verb, tc.args)
		if err != nil {
			t.Fatalf("%s %q: %v", tc.verb, tc.args, err)
		}
		if !reflect.DeepEqual(short, full) || !slices.Equal(rest, fullRest) {
			t.Errorf("%s %q: shortcut %+v %q, flag set %+v %q", tc.verb, tc.args, short, rest, full, fullRest)
		}
	}
}

// TestWordsAfterScriptAreArguments: as in bash, every word after -c
// SCRIPT is $0 or a positional parameter, flag-like or not; flags before
// -c stay shelter's, and a flag's value is never taken for -c.
func TestWordsAfterScriptAreArguments(t *testing.T) {
	for _, tc := range []struct {
		verb   string
		args   []string
		script string
		rest   []string
		json   bool
		tools  list
		env    list
	}{
		{verb: "run", args: []string{"-c", "S", "--tools", "x"}, script: "S", rest: []string{"--tools", "x"}},
		{verb: "run", args: []string{"-c", "S", "a", "--json", "b"}, script: "S", rest: []string{"a", "--json", "b"}},
		{verb: "run", args: []string{"--json", "-c", "S", "--json"}, script: "S", rest: []string{"--json"}, json: true},
		{verb: "run", args: []string{"--tools", "t.yaml", "-c", "S", "--tools", "u.yaml"}, script: "S", rest: []string{"--tools", "u.yaml"}, tools: list{"t.yaml"}},
		{verb: "run", args: []string{"-c", "S", "--", "x"}, script: "S", rest: []string{"--", "x"}},
		{verb: "run", args: []string{"-c", "S", "-c", "T"}, script: "S", rest: []string{"-c", "T"}},
		{verb: "run", args: []string{"-c=S", "--help"}, script: "S", rest: []string{"--help"}},
		{verb: "run", args: []string{"--c", "S", "-h"}, script: "S", rest: []string{"-h"}},
		{verb: "run", args: []string{"--env", "-c", "-c", "S", "--env", "B=2"}, script: "S", rest: []string{"--env", "B=2"}, env: list{"-c"}},
		{verb: "run", args: []string{"--env=A=1", "--json=false", "-c", "S", "--cwd", "d"}, script: "S", rest: []string{"--cwd", "d"}, env: list{"A=1"}},
		{verb: "run", args: []string{"file.sh", "-c", "S"}, rest: []string{"file.sh", "-c", "S"}},
		{verb: "run", args: []string{"--", "-c", "S"}, rest: []string{"-c", "S"}},
		{verb: "check", args: []string{"-c", "S", "--json"}, script: "S", rest: []string{}, json: true},
	} {
		var o options
		rest, err := o.parseFlags(tc.verb, tc.args)
		if err != nil {
			t.Errorf("%s %q: %v", tc.verb, tc.args, err)
			continue
		}
		if len(rest) == 0 {
			rest = []string{}
		}
		if o.script != tc.script || o.hasScript != (tc.script != "") || !slices.Equal(rest, tc.rest) ||
			o.json != tc.json || !slices.Equal(o.tools, tc.tools) || !slices.Equal(o.env, tc.env) {
			t.Errorf("%s %q: script %q rest %q json %v tools %q env %q; want script %q rest %q json %v tools %q env %q",
				tc.verb, tc.args, o.script, rest, o.json, o.tools, o.env, tc.script, tc.rest, tc.json, tc.tools, tc.env)
		}
	}
}

// TestScriptFlagRefusals: a line that ends at -c, or that has a bad flag
// before it, is refused as before.
func TestScriptFlagRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		line string
	}{
		{[]string{"-c"}, "shelter: -c: needs a value: -c SCRIPT"},
		{[]string{"--json", "-c"}, "shelter: -c: needs a value: -c SCRIPT"},
		{[]string{"--nosuch", "-c", "S", "--json"}, "shelter: unknown flag '--nosuch'; allowed: --agent, --allow-external, --allow-read, --allow-write, --builtins, --confine, --cwd, --env, --help, --json, --network, --norc, --output-limit, --pass-env, --profile, --root, --timeout, --tools, --workspace, -c"},
		{[]string{"--timeout", "5", "-c", "S", "--timeout", "x"}, "shelter: --timeout: '5' has no unit; write a Go duration such as 5s, 500ms or 2m (0 for none)"},
	} {
		var o options
		_, err := o.parseFlags("run", tc.args)
		if err == nil || err.Error() != tc.line {
			t.Errorf("%q: error %v, want %s", tc.args, err, tc.line)
		}
	}
	var o options
	if _, err := o.parseFlags("run", []string{"-h", "-c", "S"}); !errors.Is(err, errHelp) {
		t.Errorf("-h -c S: %v, want the help", err)
	}
}
