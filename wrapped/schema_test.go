package wrapped_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func compileSchema(t *testing.T, name string, schema json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, schema)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name+".json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name + ".json")
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, schema)
	}
	return s
}

func validates(s *jsonschema.Schema, input string) bool {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(input)))
	return err == nil && s.Validate(v) == nil
}

func TestSchemasCompile(t *testing.T) {
	cmds := loadFixture(t, t.TempDir())
	for name, c := range cmds {
		compileSchema(t, name, c.InputSchema())
		for _, v := range c.Verbs() {
			compileSchema(t, v.Title(), v.Schema())
		}
	}
}

func TestVerbSchema(t *testing.T) {
	cmds := loadFixture(t, t.TempDir())
	probe, _ := cmds["probe"].Verb("run")
	var got map[string]any
	if err := json.Unmarshal(probe.Schema(), &got); err != nil {
		t.Fatal(err)
	}
	props := got["properties"].(map[string]any)
	want := map[string]string{
		"s": `{"type":"boolean"}`, "n": `{"type":"integer"}`, "m": `{"type":"string"}`,
		"tag":   `{"type":"array","items":{"type":"string"}}`,
		"first": `{"type":"string"}`,
		"rest":  `{"type":"array","items":{"type":"string"}}`,
		"std":   `{"type":"string"}`,
	}
	for name, w := range want {
		var wv any
		json.Unmarshal([]byte(w), &wv)
		if !reflect.DeepEqual(props[name], wv) {
			t.Errorf("%s: got %v, want %s", name, props[name], w)
		}
	}
	if got["additionalProperties"] != false {
		t.Errorf("additionalProperties: %v", got["additionalProperties"])
	}
	status, _ := cmds["git"].Verb("status")
	s := compileSchema(t, "status", status.Schema())
	if !validates(s, `{"untracked-files":"all"}`) || validates(s, `{"untracked-files":"maybe"}`) || validates(s, `{"bogus":1}`) {
		t.Errorf("status schema: enum or additionalProperties not enforced")
	}
	commit, _ := cmds["git"].Verb("commit")
	s = compileSchema(t, "commit", commit.Schema())
	if validates(s, `{}`) || !validates(s, `{"message":"m","all":true}`) {
		t.Errorf("commit schema: required not enforced")
	}
	dash, _ := cmds["probe"].Verb("dash")
	if !bytes.Contains(dash.Schema(), []byte(`"args":{"type":"array"`)) {
		t.Errorf("after-dash-dash verb without args: %s", dash.Schema())
	}
	s = compileSchema(t, "git", cmds["git"].InputSchema())
	if !validates(s, `{"log":{"max-count":5}}`) || validates(s, `{"log":{},"status":{}}`) || validates(s, `{}`) || validates(s, `{"log":{"max-count":"5"}}`) {
		t.Errorf("command schema does not pick one verb")
	}
}

func TestPlanJSON(t *testing.T) {
	root := t.TempDir()
	cmds := loadFixture(t, root)
	cases := []struct {
		cmd, verb, input string
		argv             []string
		line             string
	}{
		{"git", "log", `{"max-count":5,"oneline":true,"since":"2d","revision":["main","--"]}`, nil,
			"git log: revision '--' starts with '-'; allowed: a value that does not start with -"},
		{"git", "log", `{"revision":["main"],"oneline":true,"max-count":5}`, []string{"log", "--max-count=5", "--oneline", "main"}, ""},
		{"git", "log", `{"oneline":false}`, []string{"log"}, ""},
		{"git", "log", ``, []string{"log"}, ""},
		{"git", "log", `{"since":"--output=x"}`, []string{"log", "--since=--output=x"}, ""},
		{"git", "log", `{"max-count":1.5}`, nil, "git log: invalid max-count '1.5'; allowed: an integer"},
		{"git", "log", `{"max-count":"5"}`, nil, `git log: invalid max-count '"5"'; allowed: an integer`},
		{"git", "log", `{"oneline":"yes"}`, nil, `git log: invalid oneline '"yes"'; allowed: a boolean`},
		{"git", "log", `{"output":"x"}`, nil, "git log: unknown property 'output'; allowed: max-count, oneline, revision, since"},
		{"git", "log", `[1]`, nil, "git log: input that is not a JSON object; allowed: a JSON object"},
		{"git", "comit", `{}`, nil, "git: unknown verb 'comit'; allowed: commit, diff, log, push, status"},
		{"git", "commit", `{}`, nil, "git commit: required flag '--message' not given; allowed: a call with --message"},
		{"git", "commit", `{"message":"-m is fine in a value"}`, []string{"commit", "--message=-m is fine in a value"}, ""},
		{"git", "push", `{"refspec":"main"}`, nil, "git push: 'refspec' given without 'remote' before it; allowed: remote before refspec"},
		{"git", "push", `{"remote":"-x","refspec":"main"}`, nil, "git push: remote '-x' starts with '-'; allowed: a value that does not start with -"},
		{"git", "status", `{"untracked-files":"maybe"}`, nil, "git status: invalid --untracked-files 'maybe'; allowed: all, no, normal"},
		{"probe", "run", `{"m":"-v","tag":["a","b"],"s":true,"first":"f"}`, []string{"--lead", "run", "--verb-lead", "-s", "-m", "-v", "--tag=a", "--tag=b", "f"}, ""},
		{"probe", "run", `{"tag":"a"}`, nil, "probe run: 'tag' is not an array; allowed: an array"},
		{"probe", "dash", `{"one":"x","args":["-s","--", "y"]}`, []string{"--lead", "dash", "x", "--", "-s", "--", "y"}, ""},
		{"probe", "dash", `{"args":["y"]}`, []string{"--lead", "dash", "--", "y"}, ""},
		{"probe", "fwd", `{"args":["--unknown","x"]}`, []string{"--lead", "fwd", "--unknown", "x"}, ""},
		{"probe", "fwd", `{"args":["--help"]}`, nil, "probe fwd: a JSON call cannot ask for help; allowed: the schema (tools --json)"},
		{"tool", "", `{"word":"sub"}`, []string{"sub"}, ""},
		{"tool", "tool", `{"version":true}`, []string{"--version"}, ""},
		{"python", "", `{"script":"/etc/passwd"}`, nil, "python: script '/etc/passwd' is outside its directory; allowed: paths under " + root},
	}
	for _, tc := range cases {
		t.Run(tc.cmd+" "+tc.verb+" "+tc.input, func(t *testing.T) {
			plan, err := cmds[tc.cmd].PlanJSON(tc.verb, json.RawMessage(tc.input), "/")
			if tc.line != "" {
				if err == nil || err.Error() != tc.line {
					t.Fatalf("got %v, %v; want %s", plan, err, tc.line)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(plan.Argv[1:], tc.argv) {
				t.Errorf("argv %q, want %q", plan.Argv[1:], tc.argv)
			}
		})
	}
}

// A JSON call that the schema accepts plans; one it refuses is refused.
func TestPlanJSONAgreesWithSchema(t *testing.T) {
	cmds := loadFixture(t, t.TempDir())
	v, _ := cmds["git"].Verb("log")
	s := compileSchema(t, "log", v.Schema())
	for _, input := range []string{`{}`, `{"max-count":3}`, `{"oneline":true,"since":"x"}`, `{"max-count":"x"}`, `{"nope":1}`, `{"revision":[1]}`} {
		_, err := cmds["git"].PlanJSON("log", json.RawMessage(input), "/")
		if ok := validates(s, input); ok != (err == nil) {
			t.Errorf("%s: schema says %v, PlanJSON says %v", input, ok, err)
		}
	}
}
