package wrapped_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tools.yaml")
	notExec := filepath.Join(dir, "plain")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, src, want string
	}{
		{"syntax", "commands: [\n", "1:1: did not find expected node content"},
		{"top level not a mapping", "- a\n", "1:1: want a mapping with the keys commands and/or tools"},
		{"unknown top-level key", "command: {}\n", "1:1: unknown key 'command'; allowed: commands, tools"},
		{"unknown command key", "commands:\n  git:\n    executable: @HELPER@\n    verb: {}\n",
			"4:5: unknown key 'verb' in command 'git'; allowed: about, annotations, env, executable, lead, network, pass_env, read_paths, root, tty, verbs, write_paths"},
		{"unknown verb key", "commands:\n  git:\n    executable: @HELPER@\n    verbs:\n      log: {flag: {}}\n",
			"5:13: unknown key 'flag' in git log; allowed: about, annotations, examples, flags, json, lead, network, omit_name, positionals, read_paths, stdin, tail, write_paths"},
		{"unknown flag key", "commands:\n  git:\n    executable: @HELPER@\n    verbs:\n      log:\n        flags:\n          n: {typ: int}\n",
			"7:15: unknown key 'typ' in git log flag 'n'; allowed: about, alias, choices, repeatable, required, style, type"},
		{"unknown positional key", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      positionals:\n        - {name: a, optional: true}\n",
			"6:21: unknown key 'optional' in git positional; allowed: about, hold, many, name, path_under, required"},
		{"no verbs and no root", "commands:\n  git:\n    executable: @HELPER@\n",
			"2:3: git: no verbs and no root; declare at least one"},
		{"verb declared twice", "commands:\n  git:\n    executable: @HELPER@\n    verbs:\n      log: {}\n      log: {}\n",
			"6:7: git: verb 'log' declared twice"},
		{"command declared twice", "commands:\n  git:\n    executable: @HELPER@\n    root: {}\n  git:\n    root: {}\n",
			"5:3: command 'git' declared twice"},
		{"flag declared twice", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      flags:\n        a: {}\n        a: {}\n",
			"7:9: git: flag 'a' declared twice"},
		{"alias shadows another flag", "commands:\n  git:\n    executable: @HELPER@\n    verbs:\n      log:\n        flags:\n          max-count: {type: int}\n          number: {type: int, alias: [max-count]}\n",
			"8:11: git log: spelling '--max-count' used twice (flags 'max-count' and 'number')"},
		{"name and alias written differently, spelled alike", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      flags:\n        n: {}\n        num: {alias: [-n]}\n",
			"7:9: git: spelling '-n' used twice (flags 'n' and 'num')"},
		{"choices on a switch", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      flags:\n        color: {type: switch, choices: [a]}\n",
			"6:9: git: flag 'color': choices on a switch"},
		{"choices on an int", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      flags:\n        n: {type: int, choices: ['1']}\n",
			"6:9: git: flag 'n': choices on an int flag; choices take strings"},
		{"style on a switch", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      flags:\n        v: {style: equals}\n",
			"6:9: git: flag 'v': style on a switch"},
		{"unknown type", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      flags:\n        v: {type: bool}\n",
			"6:19: git: flag 'v': type 'bool' is not one of string, int, switch"},
		{"unknown tail", "commands:\n  git:\n    executable: @HELPER@\n    root: {tail: rest}\n",
			"4:18: git: tail 'rest' is not one of deny, after-dash-dash, forward"},
		{"not a boolean", "commands:\n  git:\n    executable: @HELPER@\n    tty: yes please\n",
			"4:10: tty must be true or false"},
		{"many not last", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      positionals:\n        - {name: a, many: true}\n        - {name: b}\n",
			"6:11: git: argument 'a' takes the rest (many) but is not the last"},
		{"required after optional", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      positionals:\n        - {name: a}\n        - {name: b, required: true}\n",
			"7:11: git: required argument 'b' comes after the optional 'a'"},
		{"positional without a name", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      positionals:\n        - {many: true}\n",
			"6:11: git: a positional needs a name"},
		{"executable not found", "commands:\n  git:\n    executable: no-such-program-anywhere\n    root: {}\n",
			"3:17: git: executable 'no-such-program-anywhere' not found in PATH"},
		{"executable missing", "commands:\n  git:\n    executable: /no/such/file\n    root: {}\n",
			"3:17: git: executable '/no/such/file' does not exist"},
		{"executable not a regular file", "commands:\n  git:\n    executable: /tmp\n    root: {}\n",
			"3:17: git: executable '/tmp' is not a regular file"},
		{"executable without exec bit", "commands:\n  git:\n    executable: ./plain\n    root: {}\n",
			"3:17: git: executable '" + notExec + "' has no exec bit"},
		{"no executable", "commands:\n  git:\n    root: {}\n",
			"2:3: git: no executable given"},
		{"path_under missing", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      positionals:\n        - {name: a, path_under: nowhere}\n",
			"6:33: git: argument 'a': path_under directory '" + filepath.Join(dir, "nowhere") + "' does not exist"},
		{"hold not a boolean", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      positionals:\n        - {name: a, path_under: /, hold: yes}\n",
			"6:42: git: argument 'a': hold must be true or false; got 'yes'"},
		{"hold not a boolean, name after it", "commands:\n  git:\n    executable: @HELPER@\n    verbs:\n      run:\n        positionals:\n          - {hold: 'true', path_under: /, name: a}\n",
			"7:20: git run: argument 'a': hold must be true or false; got 'true'"},
		{"hold a list", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      positionals:\n        - {name: a, path_under: /, hold: [true]}\n",
			"6:42: git: argument 'a': hold must be true or false; got a list"},
		{"hold without path_under", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      positionals:\n        - {name: a, hold: false}\n",
			"6:27: git: argument 'a': hold without path_under; only a path_under argument is held"},
		{"required on a switch", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      flags:\n        v: {required: true}\n",
			"6:9: git: flag 'v': a switch cannot be required"},
		{"names alike without dashes", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      flags:\n        x: {type: string}\n        --x: {}\n",
			"7:9: git: flag '--x': another flag has the same name without dashes"},
		{"an argument named like a flag", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      flags: {all: {}}\n      positionals: [{name: all}]\n",
			"6:21: git: argument 'all' has the name of a flag or another argument"},
		{"an argument named args beside extra words", "commands:\n  git:\n    executable: @HELPER@\n    root:\n      positionals: [{name: args}]\n      tail: forward\n",
			"4:5: git: a flag or argument named 'args' collides with the extra words of tail forward in the schema"},
		{"a verb named like the command beside a root", "commands:\n  git:\n    executable: @HELPER@\n    verbs: {git: {}}\n    root: {}\n",
			"4:13: git: verb 'git' has the command's name, which names the root in schemas"},
		{"key given twice", "commands:\n  git:\n    executable: @HELPER@\n    about: a\n    about: b\n    root: {}\n",
			"5:5: command 'git': 'about' given twice"},
		{"unknown annotation", "commands:\n  git:\n    executable: @HELPER@\n    annotations: {readonly: true}\n    root: {}\n",
			"4:19: unknown key 'readonly' in git annotations; allowed: destructive, idempotent, open_world, read_only"},
		{"annotation not a boolean", "commands:\n  git:\n    executable: @HELPER@\n    verbs:\n      log: {annotations: {read_only: yes}}\n",
			"5:38: git log annotations read_only must be true or false"},
		{"annotations not a mapping", "commands:\n  git:\n    executable: @HELPER@\n    annotations: [read_only]\n    root: {}\n",
			"4:18: git annotations must be a mapping"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.ReplaceAll(tc.src, "@HELPER@", helper)
			_, err := wrapped.LoadBytes(file, []byte(src), wrapped.LoadOptions{})
			want := file + ":" + tc.want
			if err == nil || err.Error() != want {
				t.Fatalf("got  %v\nwant %s", err, want)
			}
			var le *wrapped.LoadError
			if !errors.As(err, &le) || le.File != file {
				t.Errorf("not a *LoadError: %T", err)
			}
		})
	}
}

func TestLoadKeepsOrderAndSkipsTools(t *testing.T) {
	src := `
tools:
  logs: {description: anything here is package harness's}
commands:
  zed:
    executable: @HELPER@
    verbs:
      zulu: {flags: {zz: {}, aa: {}}}
      alpha: {}
  abc:
    executable: @HELPER@
    root: {}
`
	cmds, err := wrapped.LoadBytes("tools.yaml", []byte(strings.ReplaceAll(src, "@HELPER@", helper)), wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 2 || cmds[0].Name() != "zed" || cmds[1].Name() != "abc" {
		t.Fatalf("commands out of order: %v", cmds)
	}
	var names []string
	for _, v := range cmds[0].Verbs() {
		names = append(names, v.Name())
	}
	if !reflect.DeepEqual(names, []string{"zulu", "alpha"}) {
		t.Errorf("verbs %v", names)
	}
	if f := cmds[0].Verbs()[0].Flags(); f[0].Name() != "zz" || f[1].Name() != "aa" {
		t.Errorf("flags out of order")
	}
	if !strings.Contains(string(cmds[0].InputSchema()), `"properties":{"zulu":`) {
		t.Errorf("schema out of order: %s", cmds[0].InputSchema())
	}
}

// DecodeYAML takes the value node of commands:, for a reader of the whole
// file that lives elsewhere.
func TestDecodeYAMLNode(t *testing.T) {
	var doc yaml.Node
	src := "commands:\n  say:\n    executable: /bin/echo\n    root: {positionals: [{name: text, many: true}]}\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	cmds, err := wrapped.DecodeYAML("f.yaml", doc.Content[0].Content[1], wrapped.LoadOptions{Path: "/nowhere"})
	if err != nil || len(cmds) != 1 || cmds[0].Executable() != "/bin/echo" {
		t.Fatalf("%v %v", cmds, err)
	}
	// A bare name is looked up in LoadOptions.Path only.
	src = "commands:\n  say:\n    executable: echo\n    root: {}\n"
	yaml.Unmarshal([]byte(src), &doc)
	if _, err := wrapped.DecodeYAML("f.yaml", doc.Content[0].Content[1], wrapped.LoadOptions{Path: "/nowhere"}); err == nil || err.Error() != "f.yaml:3:17: say: executable 'echo' not found in PATH" {
		t.Errorf("lookup outside Path: %v", err)
	}
}

func TestLoadFileMissing(t *testing.T) {
	_, err := wrapped.LoadFile("/no/such/tools.yaml", wrapped.LoadOptions{})
	if err == nil || err.Error() != "/no/such/tools.yaml:1:1: no such file or directory" {
		t.Errorf("%v", err)
	}
}

// The Go builder and YAML produce the same declaration: same help, same
// schema, same argv.
func TestBuilderMatchesYAML(t *testing.T) {
	fromYAML := loadString(t, strings.ReplaceAll(`
commands:
  git:
    executable: @HELPER@
    about: Version control.
    lead: [--no-pager]
    env: {GIT_PAGER: cat}
    read_paths: [/usr/share]
    write_paths: [/tmp]
    annotations: {destructive: true}
    verbs:
      log:
        about: Show commit logs.
        annotations: {read_only: true, idempotent: true}
        network: true
        read_paths: [/etc]
        flags:
          max-count: {alias: [n], type: int, about: Limit the number of commits.}
          oneline: {}
          format: {type: string, style: separate, repeatable: true}
          color: {choices: [never, always], required: true}
        positionals:
          - {name: revision, many: true}
        tail: after-dash-dash
        stdin: pipe
        json: true
        examples: {last five: git log -n 5 --oneline}
    root:
      omit_name: true
      flags: {version: {}}
      positionals: [{name: word, required: true}, {name: file, path_under: /, hold: false}]
`, "@HELPER@", helper))["git"]
	fromGo, err := wrapped.New("git", helper).
		About("Version control.").
		Lead("--no-pager").
		Env("GIT_PAGER", "cat").
		ReadPaths("/usr/share").
		WritePaths("/tmp").
		Annotations(kernel.Annotations{Destructive: true}).
		Verb(wrapped.NewVerb("log").
			About("Show commit logs.").
			Annotations(kernel.Annotations{ReadOnly: true, Idempotent: true}).
			Network().
			ReadPaths("/etc").
			Flag(wrapped.Int("max-count").Alias("n").About("Limit the number of commits."),
				wrapped.Switch("oneline"),
				wrapped.String("format").Style(wrapped.StyleSeparate).Repeatable(),
				wrapped.Choice("color", "never", "always").Required()).
			Arg(wrapped.Many("revision")).
			Tail(wrapped.TailAfterDashDash).
			Stdin(wrapped.StdinPipe).
			JSON().
			Example("last five", "git log -n 5 --oneline")).
		Root(wrapped.NewVerb("").OmitName().Flag(wrapped.Switch("version")).Arg(wrapped.Arg("word").Required(), wrapped.Arg("file").Under("/").Hold(false))).
		Build(wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := fromYAML.Help(), fromGo.Help(); a != b {
		t.Errorf("command help:\n%s\n---\n%s", a, b)
	}
	if a, b := string(fromYAML.InputSchema()), string(fromGo.InputSchema()); a != b {
		t.Errorf("schema:\n%s\n%s", a, b)
	}
	if !reflect.DeepEqual(fromYAML.Env(), fromGo.Env()) {
		t.Errorf("env %q, %q", fromYAML.Env(), fromGo.Env())
	}
	for _, name := range []string{"log", ""} {
		vy, _ := fromYAML.Verb(name)
		vg, _ := fromGo.Verb(name)
		if vy.Help() != vg.Help() || vy.Tail() != vg.Tail() || vy.Stdin() != vg.Stdin() || vy.JSON() != vg.JSON() {
			t.Errorf("verb %q differs", name)
		}
		if vy.Annotations() != vg.Annotations() {
			t.Errorf("verb %q: annotations %+v, %+v", name, vy.Annotations(), vg.Annotations())
		}
		if vy.Network() != vg.Network() || !reflect.DeepEqual(vy.ReadPaths(), vg.ReadPaths()) || !reflect.DeepEqual(vy.WritePaths(), vg.WritePaths()) {
			t.Errorf("verb %q reaches differently: %v %q %q, %v %q %q", name,
				vy.Network(), vy.ReadPaths(), vy.WritePaths(), vg.Network(), vg.ReadPaths(), vg.WritePaths())
		}
	}
	for _, call := range [][]string{
		{"log", "-n", "5", "--format", "%h", "--color=never", "main", "--", "x"},
		{"log"},
		{"word", "--version"},
		{"--version"},
	} {
		py, ey := fromYAML.Plan(call, "/")
		pg, eg := fromGo.Plan(call, "/")
		if !reflect.DeepEqual(py, pg) || fmt.Sprint(ey) != fmt.Sprint(eg) {
			t.Errorf("%q: %+v %v, %+v %v", call, py, ey, pg, eg)
		}
	}
}

// TestAnnotations: a verb's hints are its own, else its command's, each
// hint not declared false, else the cautious ones.
func TestAnnotations(t *testing.T) {
	cmds, err := wrapped.LoadBytes("tools.yaml", []byte(strings.ReplaceAll(`
commands:
  git:
    executable: @HELPER@
    annotations: {destructive: true}
    verbs:
      log: {annotations: {read_only: true}}
      push: {}
      fetch: {annotations: {}}
  go:
    executable: @HELPER@
    verbs:
      version: {annotations: {read_only: true, idempotent: true}}
      build: {}
`, "@HELPER@", helper)), wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cautious := kernel.Annotations{Destructive: true, OpenWorld: true}
	want := map[string]kernel.Annotations{
		"git log":    {ReadOnly: true},
		"git push":   {Destructive: true},
		"git fetch":  {},
		"go version": {ReadOnly: true, Idempotent: true},
		"go build":   cautious,
	}
	got := map[string]kernel.Annotations{}
	for _, c := range cmds {
		for _, v := range c.Verbs() {
			got[v.Title()] = v.Annotations()
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("annotations\ngot  %+v\nwant %+v", got, want)
	}
}

// aliasFile declares one command whose verb v0 has flags f0…f(flags-1);
// verbs v1…v(verbs-1) are aliases of v0.
func aliasFile(verbs, flags int) string {
	var b strings.Builder
	b.WriteString("commands:\n  c0:\n    executable: /bin/echo\n    verbs:\n      v0: &v\n        flags: {")
	for i := range flags {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "f%d: {}", i)
	}
	b.WriteString("}\n")
	for i := 1; i < verbs; i++ {
		fmt.Fprintf(&b, "      v%d: *v\n", i)
	}
	return b.String()
}

// Aliases may share declarations, but what they repeat is bounded: a few
// nested ones in a small file would otherwise declare millions of flags.
func TestLoadAliases(t *testing.T) {
	cmds, err := wrapped.LoadBytes("shared.yaml", []byte(aliasFile(30, 20)), wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := cmds[0].Verb("v29"); !ok || len(v.Flags()) != 20 {
		t.Fatalf("the alias v29 was not expanded")
	}
	// 61 entries (flags: and 60 flags) a verb: v164 passes 10000.
	_, err = wrapped.LoadBytes("bomb.yaml", []byte(aliasFile(300, 60)), wrapped.LoadOptions{})
	if want := "bomb.yaml:170:13: aliases repeat more than 10000 entries; write the declarations out"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	// An alias of what holds aliases counts all it repeats, at the outer
	// alias: c0 holds 6040 entries, c1 repeats them.
	src := strings.Replace(aliasFile(100, 60), "  c0:\n", "  c0: &c\n", 1) + "  c1: *c\n"
	_, err = wrapped.LoadBytes("nested.yaml", []byte(src), wrapped.LoadOptions{})
	if want := "nested.yaml:106:7: aliases repeat more than 10000 entries; write the declarations out"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
