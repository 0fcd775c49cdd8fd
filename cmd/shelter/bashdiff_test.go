package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cliCase is one command line given to bash and to shelter alike: the same
// arguments, files, working directory and stdin; stdout and exit status
// must agree. The kernel's own differential suite (kernel/bashdiff_test.go)
// covers the language; these cases cover what only the command line
// decides: $0, the positional parameters, script files and stdin.
type cliCase struct {
	name  string
	files map[string]string // written under the case's directory
	dir   string            // the working directory, relative to it
	args  []string          // after the program name
	stdin string
}

var cliCases = []cliCase{
	{name: "c-dollar0-and-params", args: []string{"-c", `echo "0=$0 1=$1 #=$#"`, "a", "b"}},
	{name: "c-all-params", args: []string{"-c", `printf '[%s]\n' "$0" "$@"`, "name", "x y", "", "z"}},
	{name: "c-no-params", args: []string{"-c", `echo "$# [$*]"`}},
	{name: "c-dash-word-is-a-param", args: []string{"-c", `echo "$@"`, "x", "-y"}},
	{name: "c-flag-words-are-params", args: []string{"-c", `echo "0=$0 1=$1 2=$2"`, "a", "--tools", "--json"}},
	{name: "c-flag-word-is-dollar0", args: []string{"-c", `echo "0=$0 #=$# 1=$1"`, "--", "--help"}},
	{name: "c-exit-status", args: []string{"-c", "echo out; exit 5"}},
	{name: "c-reads-stdin", args: []string{"-c", "tr a-z A-Z"}, stdin: "piped\n"},
	{
		name:  "file-dollar0-is-its-path",
		files: map[string]string{"scripts/show.sh": `echo "$0"` + "\n"},
		args:  []string{"scripts/show.sh"},
	},
	{
		name:  "file-params",
		files: map[string]string{"s.sh": `echo "$# [$1] [$2]"` + "\n"},
		args:  []string{"s.sh", "a b", "c"},
	},
	{
		name:  "file-here-from-another-dir",
		files: map[string]string{"proj/bin/here.sh": `here=$(cd "$(dirname "$0")" && pwd); echo "${here#"$HOME"/}"` + "\n", "elsewhere/.keep": ""},
		dir:   "elsewhere",
		args:  []string{"../proj/bin/here.sh"},
	},
	{
		name:  "file-bash-source-dir",
		files: map[string]string{"proj/tool.sh": `cd "$(dirname "${BASH_SOURCE[0]}")" && basename "$PWD"` + "\n", "other/.keep": ""},
		dir:   "other",
		args:  []string{"../proj/tool.sh"},
	},
	{
		name: "file-sources-a-sibling",
		files: map[string]string{
			"lib/main.sh":   `. "$(dirname "$0")/helper.sh"; greet "$1"` + "\n",
			"lib/helper.sh": `greet() { echo "hello $1"; }` + "\n",
			"run/.keep":     "",
		},
		dir:  "run",
		args: []string{"../lib/main.sh", "you"},
	},
	{
		name:  "file-exit-status",
		files: map[string]string{"fail.sh": "echo before\nexit 4\necho after\n"},
		args:  []string{"fail.sh"},
	},
	{
		name:  "file-reads-stdin",
		files: map[string]string{"count.sh": "wc -l\n"},
		args:  []string{"count.sh"},
		stdin: "1\n2\n3\n",
	},
	{name: "stdin-script", stdin: "x=from-stdin\necho \"$x $#\"\n"},
	{name: "stdin-script-exit-status", stdin: "echo one\nexit 3\n"},
	{name: "stdin-script-functions", stdin: "f() {\n  echo \"in f: $1\"\n}\nf arg\n"},
}

func TestCLIBashDiff(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	// The test binary is shelter when called by that name (TestMain).
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cliCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			for name, data := range c.files {
				p := filepath.Join(home, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			dir := filepath.Join(home, c.dir)
			wantOut, wantCode := runCLI(t, bash, "bash", dir, home, c)
			gotOut, gotCode := runCLI(t, self, "shelter", dir, home, c)
			if gotOut != wantOut || gotCode != wantCode {
				t.Errorf("%s\n    bash:    status %d stdout %q\n    shelter: status %d stdout %q", strings.Join(c.args, " "), wantCode, wantOut, gotCode, gotOut)
			}
		})
	}
}

// runCLI runs path, called argv0, with the case's arguments and a hermetic
// environment, and returns its stdout and exit status.
func runCLI(t *testing.T, path, argv0, dir, home string, c cliCase) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, c.args...)
	cmd.Args[0] = argv0
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8", "TZ=UTC"}
	cmd.Stdin = strings.NewReader(c.stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s timed out; stderr %q", argv0, stderr.String())
	case errors.As(err, &ee):
		return stdout.String(), ee.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", argv0, err)
	}
	return stdout.String(), 0
}
