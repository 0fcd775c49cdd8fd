package main

import (
	"errors"
	"slices"
	"testing"
)

// TestEverySpellingOfGosFlagPackage: the CLI reads its flags as Go's
// flag package did, and the README and scripts rely on each spelling.
func TestEverySpellingOfGosFlagPackage(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		json    bool
		profile string
		env     list
		rest    []string
	}{
		{args: []string{"--json", "--profile", "agent"}, json: true, profile: "agent"},
		{args: []string{"-json", "-profile", "agent"}, json: true, profile: "agent"},
		{args: []string{"-json=true", "--profile=sandbox"}, json: true, profile: "sandbox"},
		{args: []string{"--json", "--json=F", "-profile=agent"}, profile: "agent"},
		{args: []string{"--json=1", "-env", "A=1", "--env=B=2", "x", "--json=0"}, json: true, profile: "host", env: list{"A=1", "B=2"}, rest: []string{"x", "--json=0"}},
		{args: []string{"--env", "--json", "-", "--json"}, profile: "host", env: list{"--json"}, rest: []string{"-", "--json"}},
		{args: []string{"--json", "--", "--json"}, json: true, profile: "host", rest: []string{"--json"}},
	} {
		var o options
		rest, err := o.parseFlags("run", tc.args)
		if err != nil || o.json != tc.json || o.profile != tc.profile || !slices.Equal(o.env, tc.env) || !slices.Equal(rest, tc.rest) && len(rest)+len(tc.rest) > 0 {
			t.Errorf("%q: json %v profile %q env %q rest %q err %v; want json %v profile %q env %q rest %q",
				tc.args, o.json, o.profile, o.env, rest, err, tc.json, tc.profile, tc.env, tc.rest)
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-help"}, {"--h"}, {"--help=x"}, {"--json", "-h", "--nosuch"}} {
		var o options
		if _, err := o.parseFlags("run", args); !errors.Is(err, errHelp) {
			t.Errorf("%q: %v, want the help", args, err)
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
		{[]string{"-c"}, "shelter: flag '-c' needs a value; allowed: -c SCRIPT"},
		{[]string{"--json", "-c"}, "shelter: flag '-c' needs a value; allowed: -c SCRIPT"},
		{[]string{"--nosuch", "-c", "S", "--json"}, "shelter: unknown flag '--nosuch'; allowed: --agent, --allow-external, --allow-read, --allow-write, --builtins, -c, --confine, --cwd, --env, --json, --network, --norc, --output-limit, --pass-env, --profile, --root, --timeout, --tools, --workspace"},
		{[]string{"---json"}, "shelter: unknown flag '---json'; allowed: --agent, --allow-external, --allow-read, --allow-write, --builtins, -c, --confine, --cwd, --env, --json, --network, --norc, --output-limit, --pass-env, --profile, --root, --timeout, --tools, --workspace"},
		{[]string{"--json=maybe"}, "shelter: --json: 'maybe' is not a boolean; write --json alone, or --json=false"},
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

// BenchmarkParseFlags is what reading the flags costs a start
// (docs/performance.md).
func BenchmarkParseFlags(b *testing.B) {
	for _, args := range [][]string{{"-c", "true"}, {"--json", "--profile", "agent", "--timeout", "5s", "-c", "true"}} {
		b.Run(args[0], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var o options
				if _, err := o.parseFlags("run", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
