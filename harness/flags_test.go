package harness_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/harness"
)

// logsSchema is the spec's example.
const logsSchema = `{
  "type": "object",
  "properties": {
    "unit": {"type": "string", "description": "The unit to read."},
    "lines": {"type": "integer"},
    "follow": {"type": "boolean"},
    "tags": {"type": "array", "items": {"type": "string"}}
  },
  "required": ["unit"]
}`

// richSchema has a property of every shape the mapping knows.
const richSchema = `{
  "type": "object",
  "properties": {
    "unit": {"type": "string"},
    "lines": {"type": "integer"},
    "max_lines": {"type": "integer"},
    "follow": {"type": "boolean"},
    "ratio": {"type": "number"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "ports": {"type": "array", "items": {"type": "integer"}},
    "filters": {"type": "array", "items": {"type": "object"}},
    "meta": {"type": "object"},
    "list": {"type": "array"},
    "level": {"enum": ["info", "warn"]},
    "limit": {"type": ["integer", "null"]},
    "ref": {"$ref": "#/$defs/count"},
    "any": {}
  },
  "$defs": {"count": {"type": "integer"}}
}`

const logsAllowed = "allowed: --follow, --json, --lines, --tags, --unit"

func TestShellMapping(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // the JSON input, or the error line
	}{
		{"separate value", []string{"--unit", "nginx", "--lines", "50"}, `{"lines":50,"unit":"nginx"}`},
		{"equals value", []string{"--unit=nginx"}, `{"unit":"nginx"}`},
		{"equals in value", []string{"--unit=a=b"}, `{"unit":"a=b"}`},
		{"value that looks like a flag", []string{"--unit", "--help"}, `{"unit":"--help"}`},
		{"empty string", []string{"--unit", ""}, `{"unit":""}`},
		{"dash spelling", []string{"--max-lines", "3"}, `{"max_lines":3}`},
		{"underscore spelling", []string{"--max_lines=3"}, `{"max_lines":3}`},
		{"boolean alone", []string{"--follow"}, `{"follow":true}`},
		{"boolean true", []string{"--follow=true"}, `{"follow":true}`},
		{"boolean false", []string{"--follow=false"}, `{"follow":false}`},
		{"boolean other word", []string{"--follow=yes"}, "logs: invalid --follow 'yes'; allowed: a boolean (write --follow, --follow=true or --follow=false)"},
		{"boolean empty word", []string{"--follow="}, "logs: invalid --follow ''; allowed: a boolean (write --follow, --follow=true or --follow=false)"},
		{"boolean takes no separate word", []string{"--follow", "false"}, "logs: unexpected argument 'false'; allowed: --any, --filters, --follow, --json, --level, --limit, --lines, --list, --max-lines, --meta, --ports, --ratio, --ref, --tags, --unit"},
		{"integer", []string{"--lines", "-5"}, `{"lines":-5}`},
		{"integer plus sign and zeros", []string{"--lines=+007"}, `{"lines":7}`},
		{"integer beyond int64", []string{"--lines", "123456789012345678901234567890"}, `{"lines":123456789012345678901234567890}`},
		{"integer not truncated", []string{"--lines=1.9"}, "logs: invalid --lines '1.9'; allowed: an integer (base 10)"},
		{"integer separate not truncated", []string{"--lines", "1.9"}, "logs: invalid --lines '1.9'; allowed: an integer (base 10)"},
		{"integer not hex", []string{"--lines", "0x10"}, "logs: invalid --lines '0x10'; allowed: an integer (base 10)"},
		{"integer not exponent", []string{"--lines", "1e3"}, "logs: invalid --lines '1e3'; allowed: an integer (base 10)"},
		{"number", []string{"--ratio", "0.5"}, `{"ratio":0.5}`},
		{"number exponent", []string{"--ratio", "-1.5e-3"}, `{"ratio":-1.5e-3}`},
		{"number integer", []string{"--ratio", "3"}, `{"ratio":3}`},
		{"number not JSON", []string{"--ratio", ".5"}, "logs: invalid --ratio '.5'; allowed: a number"},
		{"number not NaN", []string{"--ratio", "NaN"}, "logs: invalid --ratio 'NaN'; allowed: a number"},
		{"array repeated", []string{"--tags", "a", "--tags", "b"}, `{"tags":["a","b"]}`},
		{"array commas", []string{"--tags", "a,b"}, `{"tags":["a","b"]}`},
		{"array both", []string{"--tags=a,b", "--tags", "c"}, `{"tags":["a","b","c"]}`},
		{"array of integers", []string{"--ports", "80,443"}, `{"ports":[80,443]}`},
		{"array item refused", []string{"--ports", "80,x"}, "logs: invalid --ports 'x'; allowed: an integer (base 10) (repeat --ports or separate values with commas)"},
		{"array of objects", []string{"--filters", `{"a":1}`, "--filters", `[{"b":2},{"c":3}]`}, `{"filters":[{"a":1},{"b":2},{"c":3}]}`},
		{"array of objects not JSON", []string{"--filters", "a=1"}, "logs: invalid --filters 'a=1'; allowed: JSON (give one item as a JSON object, or a JSON array of items)"},
		{"array of objects spaced", []string{"--filters", ` [ {"a": 1}, {"b": [1, 2]} ] `}, `{"filters":[{"a":1},{"b":[1,2]}]}`},
		{"array of untyped items, commas", []string{"--list", "a,1,true"}, `{"list":["a",1,true]}`},
		{"array of untyped items, JSON array", []string{"--list", `["a,b", {"c": 1}]`, "--list", "x"}, `{"list":["a,b",{"c":1},"x"]}`},
		{"array of untyped items, JSON object", []string{"--list", `{"a": 1, "b": 2}`}, `{"list":[{"a":1,"b":2}]}`},
		{"array of untyped items, not JSON", []string{"--list", `[a,b]`}, `{"list":["[a","b]"]}`},
		{"object", []string{"--meta", `{"k": "v"}`}, `{"meta":{"k":"v"}}`},
		{"object not JSON", []string{"--meta", "k=v"}, "logs: invalid --meta 'k=v'; allowed: a JSON object"},
		{"enum without type", []string{"--level", "warn"}, `{"level":"warn"}`},
		{"nullable null", []string{"--limit", "null"}, `{"limit":null}`},
		{"nullable value", []string{"--limit", "5"}, `{"limit":5}`},
		{"nullable refused", []string{"--limit", "x"}, "logs: invalid --limit 'x'; allowed: an integer or null"},
		{"local reference", []string{"--ref", "2"}, `{"ref":2}`},
		{"untyped JSON", []string{"--any", "5"}, `{"any":5}`},
		{"untyped string", []string{"--any", "hello"}, `{"any":"hello"}`},
		{"untyped object", []string{"--any", `{"a":1}`}, `{"any":{"a":1}}`},
		{"json", []string{"--json", `{"unit": "x", "lines": 5}`}, `{"unit":"x","lines":5}`},
		{"json equals", []string{`--json={"unit":"x"}`}, `{"unit":"x"}`},
		{"json with a flag", []string{"--json", `{"unit":"x"}`, "--lines", "5"}, "logs: --json beside '--lines'; allowed: flags without --json, --json alone (the whole input)"},
		{"flag with json", []string{"--lines", "5", "--json", `{"unit":"x"}`}, "logs: --json beside '--lines'; allowed: flags without --json, --json alone (the whole input)"},
		{"json twice", []string{"--json", `{}`, "--json", `{}`}, "logs: flag '--json' given twice; allowed: one --json"},
		{"json not an object", []string{"--json", `[1]`}, "logs: --json is not one JSON object: not a JSON object; allowed: --json OBJECT"},
		{"json unknown key", []string{"--json", `{"unti":"x"}`}, "logs: unknown property 'unti'; allowed: any, filters, follow, level, limit, lines, list, max_lines, meta, ports, ratio, ref, tags, unit"},
		{"json without value", []string{"--json"}, "logs: flag '--json' needs a value; allowed: --json '{…}'"},
		{"missing value", []string{"--unit"}, "logs: flag '--unit' needs a value; allowed: --unit STRING"},
		{"missing array value", []string{"--lines", "1", "--tags"}, "logs: flag '--tags' needs a value; allowed: --tags STRING,…"},
		{"given twice", []string{"--unit", "a", "--unit=b"}, "logs: flag '--unit' given twice; allowed: one --unit"},
		{"boolean twice", []string{"--follow", "--follow=false"}, "logs: flag '--follow' given twice; allowed: one --follow"},
		{"no words", nil, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := harness.ParseArgs("logs", json.RawMessage(richSchema), tt.args, nil)
			if err != nil {
				if err.Error() != tt.want {
					t.Errorf("ParseArgs(%q):\n got error %s\nwant       %s", tt.args, err, tt.want)
				}
				return
			}
			if string(got) != tt.want {
				t.Errorf("ParseArgs(%q):\n got %s\nwant %s", tt.args, got, tt.want)
			}
		})
	}
}

// TestUnknownArgumentIsNeverDropped puts a word the schema does not name
// in every position of an otherwise valid call.
func TestUnknownArgumentIsNeverDropped(t *testing.T) {
	valid := []string{"--unit", "nginx", "--follow", "--lines=5", "--tags", "a"}
	for _, stray := range []string{"--unti", "--unti=x", "nginx", "-u", "--", "-", "--Unit", "--follow-x"} {
		for i := 0; i <= len(valid); i++ {
			if i > 0 && (valid[i-1] == "--unit" || valid[i-1] == "--tags") {
				continue // that position is a value
			}
			args := append(append(append([]string{}, valid[:i]...), stray), valid[i:]...)
			_, err := harness.ParseArgs("logs", json.RawMessage(logsSchema), args, nil)
			kind := "unknown flag"
			if stray == "nginx" || stray == "--" || stray == "-" {
				kind = "unexpected argument"
			}
			want := "logs: " + kind + " '" + strings.SplitN(stray, "=", 2)[0] + "'; " + logsAllowed
			if err == nil || err.Error() != want {
				t.Errorf("ParseArgs(%q) = %v, want %s", args, err, want)
			}
			var ue *harness.UnknownArgumentError
			if !errors.As(err, &ue) || strings.Join(ue.Allowed, " ") != "--follow --json --lines --tags --unit" {
				t.Errorf("ParseArgs(%q): error %#v", args, err)
			}
		}
	}
}

func TestSpecUnknownArgumentLine(t *testing.T) {
	_, err := harness.ParseArgs("logs", json.RawMessage(logsSchema), []string{"--unti", "nginx"}, nil)
	const want = "logs: unknown flag '--unti'; allowed: --follow, --json, --lines, --tags, --unit"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestStdinJSON(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"object", nil, `{"unit": "x"}` + "\n", `{"unit":"x"}`},
		{"empty", nil, "", `{}`},
		{"blank", nil, " \n", `{}`},
		{"not an object", nil, `["x"]`, "logs: stdin is not one JSON object: not a JSON object; allowed: flags (--help), one JSON object"},
		{"not JSON", nil, "unit=x", "logs: stdin is not one JSON object: not a JSON object; allowed: flags (--help), one JSON object"},
		{"two objects", nil, `{} {}`, "logs: stdin is not one JSON object: invalid character '{' after top-level value; allowed: flags (--help), one JSON object"},
		{"unknown key", nil, `{"unti": 1}`, "logs: unknown property 'unti'; allowed: follow, lines, tags, unit"},
		{"flags win, stdin unread", []string{"--unit", "y"}, `{"unit":"x"}`, `{"unit":"y"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := harness.ParseArgs("logs", json.RawMessage(logsSchema), tt.args, strings.NewReader(tt.stdin))
			if err != nil {
				got = json.RawMessage(err.Error())
			}
			if string(got) != tt.want {
				t.Errorf("got %s\nwant %s", got, tt.want)
			}
		})
	}
	if got, err := harness.ParseArgs("logs", json.RawMessage(logsSchema), nil, nil); err != nil || string(got) != `{}` {
		t.Errorf("no words, no stdin: got %s %v", got, err)
	}
}

func TestHelpWord(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"--unit", "x", "--help"}} {
		if _, err := harness.ParseArgs("logs", json.RawMessage(logsSchema), args, nil); !errors.Is(err, harness.ErrHelp) {
			t.Errorf("ParseArgs(%q) = %v, want ErrHelp", args, err)
		}
	}
}

func TestFlagSpellings(t *testing.T) {
	f, err := harness.NewFlags("t", json.RawMessage(`{"type":"object","properties":{
		"max_lines":{"type":"integer"},"max-lines":{"type":"string"},"json":{},"help":{},"a=b":{},"dry_run":{"type":"boolean"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.Allowed(), " "); got != "--dry-run --json --max-lines --max_lines" {
		t.Errorf("Allowed() = %s", got)
	}
	got, err := f.Parse([]string{"--max-lines", "x", "--max_lines", "3", "--dry-run"}, nil)
	if err != nil || string(got) != `{"dry_run":true,"max-lines":"x","max_lines":3}` {
		t.Errorf("Parse = %s %v", got, err)
	}
	got, err = f.Parse([]string{"--json", `{"json":1,"help":2,"a=b":3}`}, nil)
	if err != nil || string(got) != `{"json":1,"help":2,"a=b":3}` {
		t.Errorf("Parse --json = %s %v", got, err)
	}
}

func TestNewFlagsRefusesNonObjectSchemas(t *testing.T) {
	for _, schema := range []string{`[]`, `true`, `{"type":"string"}`, `{"type":["object","null"]}`, `nope`} {
		if _, err := harness.NewFlags("t", json.RawMessage(schema)); err == nil {
			t.Errorf("NewFlags(%s) succeeded", schema)
		}
	}
	for _, schema := range []string{``, `{}`, `{"type":"object"}`, `{"type":["object"]}`} {
		if _, err := harness.NewFlags("t", json.RawMessage(schema)); err != nil {
			t.Errorf("NewFlags(%s): %v", schema, err)
		}
	}
}

// FuzzParseArgs maps arbitrary words and stdin onto a schema: it must
// never panic, and what it returns is a JSON object whose keys the schema
// names.
func FuzzParseArgs(f *testing.F) {
	f.Add("--unit\x00nginx\x00--lines\x0050", "")
	f.Add("--follow=yes", "")
	f.Add("--tags\x00a,b\x00--tags\x00c", "")
	f.Add("--filters\x00[{\"a\":1}]\x00--meta\x00{}", "")
	f.Add("--json\x00{\"unit\":\"x\"}", "")
	f.Add("", `{"unit":"x","lines":1}`)
	f.Add("", `[`)
	f.Add("--lines=1.9\x00--ratio\x00-0.0e+1", "")
	f.Add("--\x00-x\x00--=\x00--json=", "{")
	f.Add("\n\x00--unit\x00\x1b[1m", "")
	flags, err := harness.NewFlags("logs", json.RawMessage(richSchema))
	if err != nil {
		f.Fatal(err)
	}
	names := map[string]bool{}
	for _, a := range flags.Allowed() {
		names[strings.ReplaceAll(strings.TrimPrefix(a, "--"), "-", "_")] = true
	}
	f.Fuzz(func(t *testing.T, words, stdin string) {
		var args []string
		if words != "" {
			args = strings.Split(words, "\x00")
		}
		got, err := flags.Parse(args, strings.NewReader(stdin))
		if err != nil {
			if strings.Contains(err.Error(), "\n") && !errors.Is(err, harness.ErrHelp) {
				t.Errorf("a refusal of more than one line: %q", err)
			}
			return
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(got, &obj); err != nil {
			t.Fatalf("Parse(%q) = %s: not a JSON object: %v", args, got, err)
		}
		for k := range obj {
			if !names[k] {
				t.Errorf("Parse(%q) = %s: key %q not in the schema", args, got, k)
			}
		}
	})
}
