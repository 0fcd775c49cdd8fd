package wrapped_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/shell"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

const examplesFile = "../examples/tools.yaml"

// loadExamples loads examples/tools.yaml, copied into dir when dir is not
// empty (a relative path in it is the file's directory's).
func loadExamples(t testing.TB, dir string) map[string]*wrapped.Command {
	t.Helper()
	path := examplesFile
	if dir != "" {
		data, err := os.ReadFile(examplesFile)
		if err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(dir, "tools.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmds, err := wrapped.LoadFile(path, wrapped.LoadOptions{Path: os.Getenv("PATH")})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*wrapped.Command{}
	for _, c := range cmds {
		out[c.Name()] = c
	}
	return out
}

func needProgram(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed", name)
	}
}

var gitEnv = map[string]string{
	"GIT_AUTHOR_NAME": "Shelter Test", "GIT_AUTHOR_EMAIL": "test@example.com",
	"GIT_COMMITTER_NAME": "Shelter Test", "GIT_COMMITTER_EMAIL": "test@example.com",
	"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
}

// gitRepo makes a repository on branch main with three commits: one
// touching docs/ dated 2001, one touching docs/ now and one not touching
// docs/ now. A `--since=2.days.ago` log of docs/ shows the second only.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git := func(env []string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
		for k, v := range gitEnv {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	commit := func(file, content, message string, env ...string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, file)), 0o755)
		os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644)
		git(nil, "add", ".")
		git(env, "commit", "-q", "-m", message)
	}
	git(nil, "init", "-q", "-b", "main")
	commit("docs/guide.md", "draft\n", "docs: draft the guide", "GIT_AUTHOR_DATE=2001-01-01T12:00:00Z", "GIT_COMMITTER_DATE=2001-01-01T12:00:00Z")
	commit("docs/guide.md", "guide\n", "docs: add the guide")
	commit("main.go", "package main\n", "code: add main")
	return dir
}

func TestExampleGit(t *testing.T) {
	needProgram(t, "git")
	repo := gitRepo(t)
	cmds := loadExamples(t, "")
	s := newSession(t, kernel.Config{Env: gitEnv}, repo, map[string]*wrapped.Command{"git": cmds["git"]})

	res := run(t, s, "git log -n 5 --oneline --since=2.days.ago main -- docs")
	if res.ExitCode != 0 || !strings.HasSuffix(res.Stdout, " docs: add the guide\n") || strings.Count(res.Stdout, "\n") != 1 {
		t.Errorf("log: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	os.WriteFile(filepath.Join(repo, "new.txt"), []byte("x\n"), 0o644)
	if res := run(t, s, "git status --short"); res.Stdout != "?? new.txt\n" {
		t.Errorf("status: %q %q", res.Stdout, res.Stderr)
	}
	res = run(t, s, `git add new.txt && git commit -m "add new.txt" > /dev/null && git log -n 1 --format=%s`)
	if res.ExitCode != 0 || res.Stdout != "add new.txt\n" {
		t.Errorf("add, commit, log: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	if res := run(t, s, "git --version"); !strings.HasPrefix(res.Stdout, "git version ") {
		t.Errorf("--version: %q %q", res.Stdout, res.Stderr)
	}
	res = run(t, s, "git log --output=/tmp/x")
	if !res.Rejected || res.Issues[0].Message != "git log: unknown flag '--output'; allowed: --author, --format, -n/--max-count, --oneline, --since, --stat" {
		t.Errorf("refusal: %+v", res.Issues)
	}
	res = run(t, s, "git push origin main")
	// The root takes no word but flags: a word that is no verb names them.
	if !res.Rejected || res.Issues[0].Message != "git: unknown verb 'push'; allowed: add, branch, checkout, commit, diff, init, log, show, status, switch" {
		t.Errorf("push: %+v", res.Issues)
	}
	// Branches: made, switched to, listed.
	res = run(t, s, "git switch -c topic && git branch --show-current && git checkout -b other main && git branch --show-current && git switch main && git branch side && git branch")
	if res.ExitCode != 0 || res.Stdout != "topic\nother\n  other\n  side\n  topic\n* main\n" && res.Stdout != "topic\nother\n* main\n  other\n  side\n  topic\n" {
		t.Errorf("branches: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	os.WriteFile(filepath.Join(repo, "main.go"), []byte("changed\n"), 0o644)
	if res := run(t, s, "git checkout -- main.go && git status --porcelain"); res.ExitCode != 0 || res.Stdout != "" {
		t.Errorf("checkout --: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	os.Mkdir(filepath.Join(repo, "fresh"), 0o755)
	if res := run(t, s, "git init -q -b trunk fresh && cd fresh && git branch --show-current"); res.ExitCode != 0 || res.Stdout != "trunk\n" {
		t.Errorf("init: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	// The pinned git runs with PATH gone.
	if res := run(t, s, "PATH=/nowhere git status --porcelain"); res.ExitCode != 0 {
		t.Errorf("PATH gone: exit %d stderr %q", res.ExitCode, res.Stderr)
	}
}

func TestExampleGo(t *testing.T) {
	needProgram(t, "go")
	cmds := loadExamples(t, "")
	s := newSession(t, kernel.Config{}, t.TempDir(), map[string]*wrapped.Command{"go": cmds["go"]})
	if res := run(t, s, "go version"); res.ExitCode != 0 || !strings.HasPrefix(res.Stdout, "go version go") {
		t.Errorf("version: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	if res := run(t, s, "go env GOOS"); res.ExitCode != 0 || res.Stdout != runtime.GOOS+"\n" {
		t.Errorf("env: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	res := run(t, s, "go env-json GOOS GOARCH")
	var data map[string]string
	if res.ExitCode != 0 || json.Unmarshal(res.Data, &data) != nil || data["GOOS"] != runtime.GOOS || data["GOARCH"] != runtime.GOARCH {
		t.Errorf("env-json: exit %d data %s stderr %q", res.ExitCode, res.Data, res.Stderr)
	}
	res = run(t, s, "go run main.go")
	if !res.Rejected || res.Issues[0].Message != "go: unknown verb 'run'; allowed: build, env, env-json, mod, test, version, vet" {
		t.Errorf("run: %+v", res.Issues)
	}
	// A module made and tidied, offline: it requires nothing.
	if res := run(t, s, "go mod init example.com/hello && go mod tidy && cat go.mod"); res.ExitCode != 0 || !strings.HasPrefix(res.Stdout, "module example.com/hello\n") {
		t.Errorf("mod: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	if res := run(t, s, "go mod edit -replace=a=b"); !res.Rejected || res.Issues[0].Message != "go mod: unknown flag '-replace=a=b'; allowed: (none)" {
		t.Errorf("mod edit: %+v", res.Issues)
	}
	plan, err := cmds["go"].Plan([]string{"test", "-run", "TestX", "-count", "1", "-v", "./..."}, "/")
	if err != nil || strings.Join(plan.Argv[1:], " ") != "test -run=TestX -count=1 -v ./..." {
		t.Errorf("test plan: %v %v", plan, err)
	}
}

func TestExamplePython(t *testing.T) {
	needProgram(t, "python3")
	project := t.TempDir()
	cmds := loadExamples(t, "")
	os.MkdirAll(filepath.Join(project, "tools"), 0o755)
	script := "import json, os, sys\nprint(json.dumps({'argv': [os.path.realpath(sys.argv[0])] + sys.argv[1:], 'given': sys.argv[0], 'stdin': sys.stdin.read()}))\n"
	os.WriteFile(filepath.Join(project, "tools", "hello.py"), []byte(script), 0o644)
	s := newSession(t, kernel.Config{}, project, map[string]*wrapped.Command{"python3": cmds["python3"]})

	res := run(t, s, "echo hi | python3 tools/hello.py -- a 'b c'")
	var out struct {
		Argv  []string
		Given string
		Stdin string
	}
	if res.ExitCode != 0 || json.Unmarshal([]byte(res.Stdout), &out) != nil {
		t.Fatalf("run: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	want := []string{filepath.Join(project, "tools", "hello.py"), "--", "a", "b c"}
	if real, _ := filepath.EvalSymlinks(project); real != project {
		want[0] = filepath.Join(real, "tools", "hello.py")
	}
	if strings.Join(out.Argv, "|") != strings.Join(want, "|") || out.Stdin != "hi\n" {
		t.Errorf("script saw %q %q, want %q", out.Argv, out.Stdin, want)
	}
	// Outside the sandbox profile the script is handed the checked path
	// itself: what its tracebacks and sys.argv[0] name.
	if out.Given != want[0] {
		t.Errorf("script was handed %q, want %s", out.Given, want[0])
	}
	// Scripts are the working directory's, not the tools file's: judged
	// when the call runs, where the directory is known.
	res = run(t, s, "python3 /etc/passwd")
	if res.ExitCode != 2 || res.Stderr != "python3: script '/etc/passwd' is outside its directory; allowed: paths under "+project+"\n" {
		t.Errorf("outside: exit %d stderr %q", res.ExitCode, res.Stderr)
	}
	res = run(t, s, "cd tools; python3 ../x.py; cd ..")
	if res.Stderr != "python3: script '../x.py' is outside its directory; allowed: paths under "+filepath.Join(project, "tools")+"\n" {
		t.Errorf("above the working directory: exit %d stderr %q", res.ExitCode, res.Stderr)
	}
	// The project's tests, by name and discovered; -m itself is no flag.
	os.WriteFile(filepath.Join(project, "tools", "greet.py"), []byte("def greet():\n    return 'hi'\n"), 0o644)
	os.WriteFile(filepath.Join(project, "tools", "__init__.py"), nil, 0o644)
	os.WriteFile(filepath.Join(project, "test_greet.py"), []byte("import unittest\nfrom tools.greet import greet\nclass T(unittest.TestCase):\n    def test_greet(self):\n        self.assertEqual(greet(), 'hi')\n"), 0o644)
	for _, call := range []string{"python3 unittest -v", "python3 unittest test_greet.T.test_greet", "python3 unittest discover -p 'test_*.py'"} {
		if res := run(t, s, call); res.ExitCode != 0 || !strings.Contains(res.Stderr, "Ran 1 test") {
			t.Errorf("%s: exit %d stdout %q stderr %q", call, res.ExitCode, res.Stdout, res.Stderr)
		}
	}
	res = run(t, s, "python3 -m http.server")
	if !res.Rejected || res.Issues[0].Message != "python3: unknown flag '-m'; allowed: -V/--version" {
		t.Errorf("-m: %+v", res.Issues)
	}
	res = run(t, s, "python3 -c 'print(1)'")
	if !res.Rejected || res.Issues[0].Message != "python3: unknown flag '-c'; allowed: -V/--version" {
		t.Errorf("-c: %+v", res.Issues)
	}
	if res := run(t, s, "python3 -V"); res.ExitCode != 0 || !strings.HasPrefix(res.Stdout, "Python 3") {
		t.Errorf("-V: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// The examples load from where they are, and every example call shown in
// a verb's help plans without refusal.
func TestExamplesFileLoads(t *testing.T) {
	needProgram(t, "git")
	needProgram(t, "go")
	needProgram(t, "python3")
	cmds := loadExamples(t, "")
	dir, err := filepath.Abs(filepath.Dir(examplesFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"git", "go", "python3"} {
		c := cmds[name]
		if c == nil {
			t.Fatalf("%s missing from %s", name, examplesFile)
		}
		checked := 0
		for _, v := range c.Verbs() {
			_, examples, ok := strings.Cut(v.Help(), "\nexamples:\n")
			if !ok {
				continue
			}
			examples, _, _ = strings.Cut(examples, "\n\n") // the root's help goes on to its verbs
			for _, line := range strings.Split(strings.TrimRight(examples, "\n"), "\n") {
				_, call, _ := strings.Cut(line, ": ")
				words, err := shell.Fields(call, func(string) string { return "" })
				if err != nil || len(words) == 0 || words[0] != name {
					t.Errorf("%s: example %q is not a call of %s (%v)", v.Title(), call, name, err)
					continue
				}
				if _, err := c.Plan(words[1:], dir); err != nil {
					t.Errorf("%s: example %q: %v", v.Title(), call, err)
				}
				checked++
			}
		}
		if checked == 0 {
			t.Errorf("%s: no example checked", name)
		}
	}
}
