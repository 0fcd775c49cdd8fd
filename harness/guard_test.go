package harness_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/builtins"
	"github.com/shelter-sh/shelter/harness"
	"github.com/shelter-sh/shelter/kernel"
)

// guardTools are the tools whose replaces entries the guard tests use.
func guardTools(t testing.TB) []kernel.Tool {
	t.Helper()
	ok := func(context.Context, harness.Input) (any, error) { return nil, nil }
	var tools []kernel.Tool
	for _, def := range []harness.Def{
		logsDef(),
		{Name: "restart", Description: "Restart a unit.", Input: json.RawMessage(`{"type":"object","properties":{"unit":{"type":"string"}}}`), Replaces: []string{"systemctl restart"}},
		{Name: "fetch", Description: "Fetch a URL.", Replaces: []string{"HOSTALIASES"}},
	} {
		tool, err := harness.Func(def, ok)
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	return tools
}

// guardSession is a session with the guard tools and fake journalctl,
// systemctl and curl programs that record when they run.
func guardSession(t testing.TB, tools []kernel.Tool) (s *kernel.Session, ran string) {
	t.Helper()
	bin, ran := fakeBin(t, "journalctl", "systemctl", "curl")
	s = session(t, tools, kernel.SessionOptions{Env: map[string]string{
		"PATH": bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"RAN":  ran,
	}})
	return s, ran
}

func guardLine(command, tool, desc string) string {
	return "shelter: '" + command + "' is done with the tool '" + tool + "' here (" + desc + "); call " + tool + " instead — nothing ran"
}

const logsDesc = "Read a unit's journal."

// TestGuardRefusesBeforeAnythingRuns checks each guarded command behind
// a `touch marker`: the script is refused whole, exit 2, with the line
// naming the tool, and leaves no marker.
func TestGuardRefusesBeforeAnythingRuns(t *testing.T) {
	s, ran := guardSession(t, guardTools(t))
	tests := []struct {
		script string
		line   string
	}{
		{"journalctl -u x", guardLine("journalctl -u x", "logs", logsDesc)},
		{"journalctl -u nginx", "shelter: 'journalctl -u nginx' is done with the tool 'logs' here (Read a unit's journal.); call logs instead — nothing ran"},
		{"/usr/bin/journalctl", guardLine("/usr/bin/journalctl", "logs", logsDesc)},
		{"sudo journalctl", guardLine("sudo journalctl", "logs", logsDesc)},
		{"sudo -u root journalctl -f", guardLine("sudo -u root journalctl -f", "logs", logsDesc)},
		{"env A=1 journalctl", guardLine("env A=1 journalctl", "logs", logsDesc)},
		{"env -i journalctl", guardLine("env -i journalctl", "logs", logsDesc)},
		{"timeout 5 journalctl", guardLine("timeout 5 journalctl", "logs", logsDesc)},
		{"nohup journalctl", guardLine("nohup journalctl", "logs", logsDesc)},
		{"nice -n 5 journalctl", guardLine("nice -n 5 journalctl", "logs", logsDesc)},
		{"command journalctl", guardLine("command journalctl", "logs", logsDesc)},
		{"exec journalctl", guardLine("exec journalctl", "logs", logsDesc)},
		{"echo x | xargs journalctl -u", guardLine("xargs journalctl -u", "logs", logsDesc)},
		{"echo x | journalctl", guardLine("journalctl", "logs", logsDesc)},
		{"true && journalctl", guardLine("journalctl", "logs", logsDesc)},
		{"(journalctl)", guardLine("journalctl", "logs", logsDesc)},
		{"f() { journalctl; }", guardLine("journalctl", "logs", logsDesc)},
		{"echo $(journalctl)", guardLine("journalctl", "logs", logsDesc)},
		{"echo `journalctl`", guardLine("journalctl", "logs", logsDesc)},
		{"if true; then journalctl; fi", guardLine("journalctl", "logs", logsDesc)},
		{"journalctl &", guardLine("journalctl", "logs", logsDesc)},
		{"'journalctl' -u \"x\"", guardLine("journalctl -u x", "logs", logsDesc)},
		{"systemctl status nginx", guardLine("systemctl status nginx", "logs", logsDesc)},
		{"systemctl --user restart x", guardLine("systemctl --user restart x", "restart", "Restart a unit.")},
		{"systemctl restart x", guardLine("systemctl restart x", "restart", "Restart a unit.")},
		{"HOSTALIASES=x curl y", guardLine("HOSTALIASES=x curl y", "fetch", "Fetch a URL.")},
		{"export HOSTALIASES=x", guardLine("export HOSTALIASES=x", "fetch", "Fetch a URL.")},
		{"export HOSTALIASES", guardLine("export HOSTALIASES", "fetch", "Fetch a URL.")},
		{"HOSTALIASES=x", guardLine("HOSTALIASES=x", "fetch", "Fetch a URL.")},
		{"declare -x HOSTALIASES=x", guardLine("declare -x HOSTALIASES=x", "fetch", "Fetch a URL.")},
		{"read HOSTALIASES", guardLine("read HOSTALIASES", "fetch", "Fetch a URL.")},
		{"read -r -p prompt x HOSTALIASES", guardLine("read -r -p prompt x HOSTALIASES", "fetch", "Fetch a URL.")},
		{"printf -v HOSTALIASES %s x", guardLine("printf -v HOSTALIASES %s x", "fetch", "Fetch a URL.")},
		{"for HOSTALIASES in a b; do echo; done", guardLine("for HOSTALIASES in a b", "fetch", "Fetch a URL.")},
		{"mapfile HOSTALIASES </dev/null", guardLine("mapfile HOSTALIASES", "fetch", "Fetch a URL.")},
		{"env HOSTALIASES=x curl y", guardLine("env HOSTALIASES=x curl y", "fetch", "Fetch a URL.")},
	}
	for _, tt := range tests {
		script := "touch marker; " + tt.script
		res := run(t, s, script)
		if res.ExitCode != 2 || !res.Rejected {
			t.Errorf("%s: got code %d rejected %v stderr %q", script, res.ExitCode, res.Rejected, res.Stderr)
			continue
		}
		found := false
		for _, is := range res.Issues {
			if is.Code == kernel.CodeGuard && is.Message == tt.line {
				found = true
			}
		}
		if !found || res.Stderr != tt.line+"\n" {
			t.Errorf("%s:\n got issues %+v\nstderr %q\nwant   %s", script, res.Issues, res.Stderr, tt.line)
		}
		if _, err := os.Stat(filepath.Join(s.Dir(), "marker")); !os.IsNotExist(err) {
			t.Fatalf("%s: the marker exists: something ran (%v)", script, err)
		}
	}
	if lines := ranLines(t, ran); lines != nil {
		t.Errorf("guarded programs ran: %q", lines)
	}
}

func TestGuardLetsOtherCommandsRun(t *testing.T) {
	s, ran := guardSession(t, guardTools(t))
	for _, script := range []string{
		"systemctl stop x",                 // no entry
		"command -v journalctl >/dev/null", // a query runs nothing
		"echo journalctl HOSTALIASES",      // words, not commands
		"logs --unit x; restart --unit x; fetch",
		"curl y",
		"X=HOSTALIASES; echo $X",
	} {
		res := run(t, s, script)
		if res.ExitCode != 0 || res.Rejected {
			t.Errorf("%s: got code %d stderr %q", script, res.ExitCode, res.Stderr)
		}
	}
	// A systemctl restart entry does not refuse systemctl status.
	only := guardTools(t)[1:2]
	s2, ran2 := guardSession(t, only)
	if res := run(t, s2, "systemctl status x"); res.ExitCode != 0 || res.Rejected {
		t.Errorf("systemctl status x: got code %d stderr %q", res.ExitCode, res.Stderr)
	}
	if got := ranLines(t, ran2); len(got) != 1 || got[0] != "systemctl status x" {
		t.Errorf("systemctl status did not run: %q", got)
	}
	if got := ranLines(t, ran); strings.Join(got, "|") != "systemctl stop x|curl y" {
		t.Errorf("ran %q", got)
	}
}

// TestGuardAtExecution refuses a command whose name is known only once
// the script runs.
func TestGuardAtExecution(t *testing.T) {
	s, ran := guardSession(t, guardTools(t))
	const tail = "is done with the tool 'logs' here (Read a unit's journal.); call logs instead — it did not run\n"
	tests := []struct{ script, command string }{
		{"c=journalctl; $c", "journalctl"},
		{"c=journalctl; $c -u x", "journalctl -u x"},
		{"c=journalctl; sudo=env; $sudo A=1 $c -f", "env A=1 journalctl -f"},
		{"eval journalctl", "journalctl"},
		{"a=restart; systemctl --user $a x", "systemctl --user restart x"},
	}
	for _, tt := range tests {
		res := run(t, s, "touch marker; "+tt.script)
		want := "shelter: '" + tt.command + "' " + tail
		if tt.command == "systemctl --user restart x" {
			want = "shelter: 'systemctl --user restart x' is done with the tool 'restart' here (Restart a unit.); call restart instead — it did not run\n"
		}
		if res.ExitCode != 2 || res.Rejected || res.Stderr != want {
			t.Errorf("%s: got code %d rejected %v stderr %q, want %q", tt.script, res.ExitCode, res.Rejected, res.Stderr, want)
		}
		os.Remove(filepath.Join(s.Dir(), "marker"))
	}
	if lines := ranLines(t, ran); lines != nil {
		t.Errorf("guarded programs ran: %q", lines)
	}
}

// TestGuardOnlyNamesToolsTheSessionCanCall: the same kernel, one session
// with the logs tool and one without; only the first refuses journalctl.
func TestGuardOnlyNamesToolsTheSessionCanCall(t *testing.T) {
	bin, ran := fakeBin(t, "journalctl")
	k, err := kernel.New(kernel.Config{Tools: builtins.Launchers()})
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PATH": bin + string(os.PathListSeparator) + os.Getenv("PATH"), "RAN": ran}
	open := func(tools []kernel.Tool) *kernel.Session {
		s, err := k.NewSession(kernel.SessionOptions{Dir: t.TempDir(), Env: env, Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	with, without := open(guardTools(t)[:1]), open(nil)
	if res := run(t, with, "journalctl -u nginx"); res.ExitCode != 2 || !res.Rejected {
		t.Errorf("with logs: got code %d stderr %q", res.ExitCode, res.Stderr)
	}
	if res := run(t, without, "journalctl -u nginx"); res.ExitCode != 0 || res.Stderr != "" {
		t.Errorf("without logs: got code %d stderr %q", res.ExitCode, res.Stderr)
	}
	if got := ranLines(t, ran); len(got) != 1 || got[0] != "journalctl -u nginx" {
		t.Errorf("ran %q", got)
	}
}
