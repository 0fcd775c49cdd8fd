package builtins

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// jqFiles are the inputs of the comparison with jq 1.6. Objects have
// their keys in sorted order, as gojq prints them (docs/sandbox.md).
var jqFiles = map[string]string{
	"a.json":    `{"a":1,"b":[1,2,{"c":"x"}],"s":"hé"}` + "\n",
	"many.json": "1\n\"two\"\n[3]\n{\"four\":4}\nnull\nfalse\n",
	"nums.json": "[1.0, 1.5, 3e2, 1e17, 1e300, 1e1000, 100000000000000000000, 0.1, 1e-7, 0.00001, 0.0001, 123456789012, 1.23456789012345678, -0, 10000000, 1e16, 1e15, 2.5e20, -1.5e-10, 9007199254740993]\n",
	"text.txt":  "line one\nline two\n\nlast",
	"bad.json":  "1\n[2,\n3\n",
	"prog.jq":   ".a\n",
	"str.json":  "\"\\u007f\\u0000\\t\\n\\\"\\\\/é😀x\\udc00\"\n",
	"deep.json": `{"x":{"y":{"z":[[],{},[{}]]}}}`,
	"noeol":     `{"a":[1,2]}`,
	"d/":        "",
}

func TestJqGNU(t *testing.T) {
	tools := []kernel.Tool{cmdJq}
	cases := []gnuCase{
		{name: "identity", script: "jq . a.json"},
		{name: "default filter", script: "jq < a.json"},
		{name: "stdin dash", script: "jq . - < a.json"},
		{name: "field", script: "jq .b a.json"},
		{name: "many inputs", script: "jq -c . many.json"},
		{name: "numbers", script: "jq -c . nums.json"},
		{name: "numbers pretty", script: "jq '.[2:6]' nums.json"},
		{name: "strings", script: "jq . str.json"},
		{name: "ascii", script: "jq -a . str.json"},
		{name: "ascii long", script: "jq --ascii-output -c . a.json"},
		{name: "deep", script: "jq . deep.json"},
		{name: "no eol", script: "jq -c .a noeol"},
		{name: "raw", script: "jq -r '.s, .b[2].c, .a' a.json"},
		{name: "raw long", script: "jq --raw-output .s a.json"},
		{name: "raw ascii", script: "jq -r -a '.s, .b' a.json"},
		{name: "join", script: "jq -j '.s, .a, .b' a.json"},
		{name: "join long", script: "jq --join-output '.[]' many.json", stderrShape: true},
		{name: "compact", script: "jq -c . deep.json"},
		{name: "compact long", script: "jq --compact-output . a.json"},
		{name: "tab", script: "jq --tab . deep.json"},
		{name: "indent", script: "jq --indent 3 . deep.json"},
		{name: "indent zero", script: "jq --indent 0 . a.json"},
		{name: "indent seven", script: "jq --indent 7 .b a.json"},
		{name: "indent minus one", script: "jq --indent -1 .b a.json"},
		{name: "indent then tab", script: "jq --indent 1 --tab .b a.json"},
		{name: "tab then indent", script: "jq --tab --indent 1 .b a.json"},
		{name: "tab then compact", script: "jq --tab -c .b a.json"},
		{name: "sort keys", script: "jq -S -c . a.json"},
		{name: "sort keys long", script: "jq --sort-keys . deep.json"},
		{name: "monochrome", script: "jq -M -c . a.json"},
		{name: "null input", script: "jq -n '1+1'"},
		{name: "null input long", script: "jq --null-input '[1,2]'"},
		{name: "null input inputs", script: "jq -n -c '[inputs]' many.json"},
		{name: "input", script: "jq -c '[., input]' many.json"},
		{name: "slurp", script: "jq -c -s . many.json"},
		{name: "slurp long", script: "jq --slurp -c 'length' many.json a.json"},
		{name: "slurp empty", script: "jq -s -c . < /dev/null"},
		{name: "raw input", script: "jq -R . text.txt"},
		{name: "raw input long", script: "jq --raw-input -c '[., length]' text.txt"},
		{name: "raw input slurp", script: "jq -Rs . text.txt many.json"},
		{name: "raw input null", script: "jq -nR '[inputs]' -c text.txt"},
		{name: "clustered", script: "jq -rc '.b, .s' a.json"},
		{name: "clustered null", script: "jq -nrj '\"a\", \"b\"'"},
		{name: "arg", script: "jq -n --arg x 'hi there' '$x'"},
		{name: "argjson", script: "jq -n -c --argjson v '{\"k\":[1,null]}' '$v.k'"},
		{name: "two args", script: "jq -n -c --arg a 1 --argjson b 2 '[$a, $b, $ARGS.named.b]'"},
		{name: "slurpfile", script: "jq -n -c --slurpfile v many.json '$v'"},
		{name: "rawfile", script: "jq -n --rawfile v text.txt '$v'"},
		{name: "args", script: "jq -n -c '$ARGS.positional' --args a 'b c' -- -r"},
		{name: "surrogate pair", script: "printf '\"\\\\ud83d\\\\ude00\"' | jq -a ."},
		{name: "lone high surrogate", script: "printf '\"\\\\ud800x\"' | jq .", stderrShape: true},
		{name: "jsonargs", script: "jq -n -c '$ARGS.positional' --jsonargs 1 '{\"a\":2}' null"},
		{name: "args then files", script: "jq -c '[., $ARGS.positional]' a.json --args x y"},
		{name: "from file", script: "jq -f prog.jq a.json"},
		{name: "from file long", script: "jq --from-file prog.jq a.json"},
		{name: "from file cluster", script: "jq -cf prog.jq a.json"},
		{name: "double dash", script: "jq -c . -- a.json"},
		{name: "env", script: "FOO=bar jq -n 'env.FOO, $ENV.FOO'"},
		{name: "input filename", script: "jq -c '[input_filename]' a.json noeol"},
		{name: "input filename stdin", script: "jq input_filename < a.json"},
		{name: "string interpolation", script: "jq -n -r '\"x\\(1+2)y\", @base64 \"a\\(\"b\")\", ([1,\"a\"]|@csv)'"},
		{name: "keys", script: "jq -c 'keys, length, (.b|map(type))' a.json"},
		{name: "reduce", script: "jq -n 'reduce range(10) as $i (0; . + $i)'"},
		{name: "tostring", script: "jq -c '[.[] | tostring]' many.json -s"},
		{name: "select", script: "jq -c 'select(type == \"number\" or type == \"array\")' many.json"},
		{name: "multiple files", script: "jq -c .a a.json noeol"},
		{name: "invalid utf8", script: "printf '\"a\\377b\"\\n' | jq ."},
		{name: "invalid utf8 raw", script: "printf 'a\\377b\\n' | jq -R ."},
		{name: "nul raw", script: "printf 'a\\000b\\n' | jq -R -c '[., length]'"},
		{name: "crlf", script: "printf '{\"a\":1}\\r\\n[2]\\r\\n' | jq -c ."},
		{name: "empty input", script: "jq . < /dev/null"},
		{name: "whitespace input", script: "printf ' \\n\\t\\n' | jq ."},

		{name: "exit status true", script: "jq -e .a a.json"},
		{name: "exit status false", script: "jq -e '.a == 2' a.json"},
		{name: "exit status null", script: "jq --exit-status .zz a.json"},
		{name: "exit status none", script: "jq -e empty a.json"},
		{name: "exit status no input", script: "jq -e . < /dev/null"},
		{name: "exit status last run", script: "jq -e 'if . == 1 then null else empty end' many.json"},
		{name: "exit status last value", script: "jq -n -e 'null, 1'"},
		{name: "exit status null last", script: "jq -n -e '1, false'"},
		{name: "exit status raw", script: "jq -n -r -e '\"\"'"},
		{name: "without exit status", script: "jq -n 'null, false'"},

		{name: "error", script: "jq 'error(\"boom\")' many.json"},
		{name: "error at line", script: "jq 'if . == [3] then error(\"three\") else . end' -c many.json"},
		{name: "error stdin lines", script: "printf '1\\n2\\n\\n\\n' | jq 'error(\"e\")'"},
		{name: "error same line", script: "printf '1 2' | jq 'error(\"e\")'"},
		{name: "error multi-line value", script: "printf '[1,\\n2]\\n[3]' | jq 'error(\"e\")'"},
		{name: "error null input", script: "jq -n 'error(\"x\")'"},
		{name: "error object", script: "jq -n 'error({\"a\":1})'"},
		{name: "error null", script: "jq -n '1, error(null), 2'"},
		{name: "error then ok", script: "printf '1 2' | jq 'if . == 1 then error(\"x\") else . end'"},
		{name: "error with exit status", script: "jq -n -e '1, error(\"x\")'"},
		{name: "error raw input", script: "jq -R 'error(\"x\")' text.txt"},
		{name: "error slurp", script: "jq -s 'error(\"x\")' many.json a.json"},
		{name: "error after input", script: "jq -n 'input, input | error(\"x\")' many.json"},
		{name: "try catch", script: "jq -n -c '[try error(\"x\") catch ., (.a?), 1]'"},
		{name: "runtime error shape", script: "jq '.a.b' many.json", stderrShape: true},
		{name: "halt", script: "jq 'halt' many.json"},
		{name: "halt error", script: "jq -n '\"bye\\n\" | halt_error'"},
		{name: "halt error code", script: "jq -n '{\"a\":1} | halt_error(3)'"},
		{name: "debug", script: "jq -n -c '1 | debug | . + 1'"},
		{name: "stderr", script: "jq -n -c '[1] | stderr | 2'"},

		{name: "missing file", script: "jq . nope"},
		{name: "missing file continues", script: "jq -c . a.json nope"},
		{name: "missing file exit status", script: "jq -e . nope"},
		{name: "slurpfile missing", script: "jq -n --slurpfile v nope '$v'"},
		{name: "rawfile missing", script: "jq -n --rawfile v nope '$v'"},
		{name: "from file missing", script: "jq -n -f nope"},
		{name: "parse error", script: "jq -c . bad.json", stderrShape: true},
		{name: "parse error stdin", script: "printf '1\\nfoo\\n' | jq .", stderrShape: true},
		{name: "parse error eof", script: "printf '{' | jq .", stderrShape: true},
		{name: "parse error exit status", script: "printf 'null x' | jq -e .", stderrShape: true},
		{name: "parse error depth", script: "printf '%0300d' 0 | tr 0 '[' | jq .", stderrShape: true},
		{name: "undefined function", script: "jq -n 'foo'", stderrShape: true},
		{name: "argjson invalid", script: "jq -n --argjson v '{' '$v'", stderrShape: true},
	}
	for i := range cases {
		cases[i].files = jqFiles
	}
	compareGNU(t, tools, cases)
}

// jqRun1 runs one jq script in a host session over jqFiles.
func jqRun1(t *testing.T, script, stdin string) kernel.Result {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, jqFiles)
	return run(t, []kernel.Tool{cmdJq}, dir, stdin, script)
}

// TestJqDifferences pins the behaviour docs/sandbox.md lists where
// shelter's jq and jq 1.6 part.
func TestJqDifferences(t *testing.T) {
	for _, tc := range []struct {
		name, script, stdin, stdout string
		status                      int
		stderr                      string // a substring
	}{
		// gojq's objects keep no order: keys print sorted, as with -S.
		{name: "key order", script: `jq -c .`, stdin: `{"b":1,"a":2}`, stdout: "{\"a\":2,\"b\":1}\n"},
		// -- before the filter ends the flags (jq 1.6 prints its usage).
		{name: "dash dash first", script: `jq -n -- -1`, stdout: "-1\n"},
		// A flag's value that starts with '-' is a value.
		{name: "negative argjson", script: `jq -n --argjson n -1 '$n'`, stdout: "-1\n"},
		// gojq's wording for a built-in's runtime error.
		{name: "index error", script: `jq .a`, stdin: "1\n", status: 5, stderr: "jq: error (at <stdin>:1): expected an object but got: number (1)\n"},
		// tostring and tojson format numbers as gojq does.
		{name: "tojson", script: `jq -n -c '[1e17|tojson, tostring]'`, stdout: "[\"100000000000000000\",\"100000000000000000\"]\n"},
		// A directory operand is reported.
		{name: "directory", script: `jq . d`, status: 2, stderr: "jq: error: Could not open file d: Is a directory\n"},
		// Modules are refused: nothing is loaded from the file system.
		{name: "import", script: `jq -n 'import "prog" as p; 1'`, status: 3, stderr: "cannot load module"},
		{name: "include", script: `jq -n 'include "prog"; 1'`, status: 3, stderr: "cannot load module"},
		{name: "input line number", script: `jq -c '[., input_line_number]'`, stdin: "1\n2", stdout: "[1,1]\n[2,1]\n"},
		{name: "indent out of range", script: `jq --indent 8 .`, stdin: "1", status: 2, stderr: "jq: invalid --indent '8'; allowed: a number from -1 to 7\n"},
		{name: "arg needs two", script: `jq -n --arg x`, status: 2, stderr: "jq: flag '--arg' needs a value; allowed: --arg NAME VALUE\n"},
		{name: "unknown flag", script: `jq -z .`, status: 2, stderr: "jq: unknown flag '-z'; allowed: "},
		{name: "unknown long flag", script: `jq --seq .`, status: 2, stderr: "jq: unknown flag '--seq'; allowed: "},
		{name: "from file without operand", script: `jq -n -f`, status: 2, stderr: "jq: flag '-f' without a filter file; allowed: -f FILE as the first operand\n"},
		{name: "arg equals", script: `jq -n -c --arg=x 1 '[$x, $ARGS.named]'`, stdout: "[\"1\",{\"x\":\"1\"}]\n"},
		{name: "ARGS key order", script: `jq -n -c '$ARGS' --args a`, stdout: "{\"named\":{},\"positional\":[\"a\"]}\n"},
		// gojq has no $__loc__.
		{name: "loc", script: `jq -n '$__loc__'`, status: 3, stderr: "jq: error: variable not defined: $__loc__ at <top-level>, line 1:\n$__loc__\njq: 1 compile error\n"},
		// jq 1.6 cuts a line at a NUL byte; here it is a byte no JSON text has.
		{name: "nul", script: `printf '1 \\0002' | jq .`, stdout: "1\n", status: 4, stderr: "parse error: Invalid literal"},
		// gojq's wording for a syntax error, with its line.
		{name: "syntax error", script: `jq '.a |'`, status: 3, stderr: "jq: error: unexpected EOF at <top-level>, line 1:\n.a |\njq: 1 compile error\n"},
		{name: "syntax error line", script: `jq -n $'1 |\n\n)'`, status: 3, stderr: "at <top-level>, line 3:"},
		// jq 1.6 crashes on an invalid --jsonargs text.
		{name: "jsonargs invalid", script: `jq -n '$ARGS' --jsonargs '[1'`, status: 2, stderr: "jq: invalid JSON text passed to --jsonargs\nUse jq --help"},
		{name: "duplicate arg", script: `jq -n -c --arg a 1 --arg a 2 '[$a, $ARGS.named]'`, stdout: "[\"2\",{\"a\":\"2\"}]\n"},
		// The words follow getopt_long, as every builtin's do
		// (docs/sandbox.md): jq 1.6 has no prefixes, no --name=VALUE.
		{name: "prefix with value", script: `jq -n -c --slurpf=v many.json '$v'`, stdout: "[1,\"two\",[3],{\"four\":4},null,false]\n"},
		{name: "prefix two words", script: `jq -n -c --argj v 1 '$v'`, stdout: "1\n"},
		{name: "ambiguous prefix", script: `jq --sl=x .`, status: 2, stderr: "jq: ambiguous flag '--sl'; allowed: --slurp, --slurpfile\n"},
		{name: "clustered unknown", script: `jq -rZ .`, status: 2, stderr: "jq: unknown flag '-Z'; allowed: -M/--monochrome-output, "},
		{name: "arg last", script: `jq -n '$x' --arg`, status: 2, stderr: "jq: flag '--arg' needs a value; allowed: --arg NAME VALUE\n"},
		{name: "argjson needs two", script: `jq -n --argjson x`, status: 2, stderr: "jq: flag '--argjson' needs a value; allowed: --argjson NAME JSON\n"},
		{name: "arg value is a flag", script: `jq -n -c --arg x -- '$x'`, stdout: "\"--\"\n"},
		{name: "indent equals", script: `jq --indent=3 .b a.json`, stdout: "[\n   1,\n   2,\n   {\n      \"c\": \"x\"\n   }\n]\n"},
		{name: "indent next word", script: `jq --ind 3 -c --indent 1 .b a.json`, stdout: "[1,2,{\"c\":\"x\"}]\n"},
		{name: "indent equals out of range", script: `jq --indent=-2 .`, stdin: "1", status: 2, stderr: "jq: invalid --indent '-2'; allowed: a number from -1 to 7\n"},
		{name: "indent last", script: `jq . --indent`, status: 2, stderr: "jq: flag '--indent' needs a value; allowed: --indent N\n"},
		{name: "dash dash before filter", script: `jq -c -- .b a.json`, stdout: "[1,2,{\"c\":\"x\"}]\n"},
		{name: "dash dash then args", script: `jq -n -c --args -- '$ARGS.positional' -r --`, stdout: "[\"-r\",\"--\"]\n"},
		// --help is the help only as the first word.
		{name: "help later", script: `jq . --help`, status: 2, stderr: "jq: unknown flag '--help'; allowed: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := jqRun1(t, tc.script, tc.stdin)
			if res.Stdout != tc.stdout || res.ExitCode != tc.status || !strings.Contains(res.Stderr, tc.stderr) || (tc.stderr == "" && res.Stderr != "") {
				t.Errorf("%s: stdout %q status %d stderr %q; want %q, %d, %q", tc.script, res.Stdout, res.ExitCode, res.Stderr, tc.stdout, tc.status, tc.stderr)
			}
		})
	}
}

// TestJqEnviron: $ENV and env are the session's exports, never shelter's
// own environment.
func TestJqEnviron(t *testing.T) {
	t.Setenv("SHELTER_JQ_SECRET", "leaked")
	res := jqRun1(t, `export MINE=yes; jq -n -c '[$ENV.SHELTER_JQ_SECRET, env.SHELTER_JQ_SECRET, $ENV.MINE]'`, "")
	if res.Stdout != "[null,null,\"yes\"]\n" {
		t.Errorf("environment: %q (stderr %q)", res.Stdout, res.Stderr)
	}
}

func TestJqData(t *testing.T) {
	for _, tc := range []struct {
		script string
		data   string // "" for none
	}{
		{`jq .b a.json`, `[1,2,{"c":"x"}]`},
		{`jq -c . a.json`, `{"a":1,"b":[1,2,{"c":"x"}],"s":"hé"}`},
		{`jq '.[]' many.json`, ""},
		{`jq -r .s a.json`, ""},
		{`jq -j .a a.json`, ""},
		{`jq -n 1e1000`, `1.7976931348623157e+308`},
	} {
		res := jqRun1(t, tc.script, "")
		got := string(res.Data)
		if got != tc.data {
			t.Errorf("%s: data %q, want %q", tc.script, got, tc.data)
		}
		if tc.data != "" && !json.Valid(res.Data) {
			t.Errorf("%s: data is not JSON: %q", tc.script, got)
		}
	}
}

func TestJqNumberFormat(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0", 1: "1", -2.5: "-2.5", 1e17: "1e+17", 1e16: "1e+16", 1e15: "1000000000000000",
		1e-5: "1e-05", 1e-4: "0.0001", 123.456: "123.456", 1.5e300: "1.5e+300", 5e-324: "5e-324",
	} {
		if got := string(jqFormatNumber(nil, f)); got != want {
			t.Errorf("%v: %q, want %q", f, got, want)
		}
	}
}

func TestJqSandbox(t *testing.T) {
	files := map[string]string{"in.json": "[1]\n"}
	for _, operand := range []string{"/etc/passwd", "../secret", "abs-link", "rel-link", "$OUT/secret"} {
		for _, script := range []string{
			"jq -c . in.json " + operand + " in.json",
			"jq -n --slurpfile v " + operand + " 1",
			"jq -n --rawfile v " + operand + " 1",
			"jq -n -f " + operand,
		} {
			res, _ := secretRun(t, []kernel.Tool{cmdJq}, files, `"SECRET"`+"\n", script)
			if strings.Contains(res.Stdout+res.Stderr, "SECRET") || strings.Contains(res.Stdout+res.Stderr, "root:") {
				t.Errorf("%s: read outside: %q %q", script, res.Stdout, res.Stderr)
			}
			if res.ExitCode != 2 || !strings.Contains(res.Stderr, "outside the sandbox root") {
				t.Errorf("%s: status %d stderr %q", script, res.ExitCode, res.Stderr)
			}
			if strings.HasPrefix(script, "jq -c") && res.Stdout != "[1]\n[1]\n" {
				t.Errorf("%s: stdout %q", script, res.Stdout)
			}
		}
	}
}

func TestJqCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errs strings.Builder
	call := &kernel.Call{Args: []string{"jq", "-n", "range(1e9)"}, Stdout: &out, Stderr: &errs}
	if err := cmdJq.Run(ctx, call); err == nil {
		t.Errorf("jq with a cancelled context: no error")
	}
	if errs.String() != "" {
		t.Errorf("stderr %q", errs.String())
	}
}

func BenchmarkJq(b *testing.B) {
	var in strings.Builder
	for i := range 10000 {
		in.WriteString(`{"id":` + strings.Repeat("1", i%7+1) + `,"name":"item","tags":["a","b"],"score":1.5}` + "\n")
	}
	for range b.N {
		var out strings.Builder
		call := &kernel.Call{Args: []string{"jq", "-c", "select(.id > 100) | .tags"}, Stdin: strings.NewReader(in.String()), Stdout: &out, Stderr: &out}
		if err := cmdJq.Run(context.Background(), call); err != nil {
			b.Fatal(err)
		}
	}
}

// A value of --arg that starts with a dash is the value, as in jq.
func TestJqDashValue(t *testing.T) {
	res := run(t, []kernel.Tool{cmdJq}, t.TempDir(), "", `jq -n --arg x -foo --argjson n -1 '[$x, $n]' -c`)
	if res.Stdout != "[\"-foo\",-1]\n" || res.ExitCode != 0 {
		t.Errorf("stdout %q status %d stderr %q", res.Stdout, res.ExitCode, res.Stderr)
	}
}
