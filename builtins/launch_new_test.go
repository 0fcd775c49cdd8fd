package builtins

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func TestSetsidStdbufIoniceTasksetChrt(t *testing.T) {
	s := launchSession(t, kernel.Config{})
	runLaunchCases(t, s, []launchCase{
		{"setsid echo hi", 0, "hi\n", ""},
		{"setsid -f -w sh -c 'exit 3'", 3, "", ""},
		{"setsid -f sh -c 'exit 3'", 2, "", "setsid: flag '-f' without -w is not supported: it would leave the command running past its call; allowed: COMMAND & (a job, which ends with the session), -f -w\n"},
		{"setsid", 2, "", "setsid: missing COMMAND; allowed: setsid " + launchSetsid.usage + "\n"},
		{"setsid -c true", 2, "", "setsid: unknown flag '-c'; allowed: -f/--fork, -w/--wait\n"},
		{"stdbuf -oL -e0 -i 4K echo hi", 0, "hi\n", ""},
		{"stdbuf --output=1M sh -c 'echo hi'", 0, "hi\n", ""},
		{"stdbuf echo hi", 2, "", "stdbuf: missing a buffering mode; allowed: -e MODE, -i MODE, -o MODE\n"},
		{"stdbuf -iL cat", 2, "", "stdbuf: invalid mode 'L' for standard input (line buffering input means nothing); allowed: 0, a size\n"},
		{"stdbuf -o 4X echo", 2, "", "stdbuf: invalid mode '4X'; allowed: 0, L, a size such as 4096, 4K, 1M\n"},
		{"ionice -c 3 echo hi", 0, "hi\n", ""},
		{"ionice -c best-effort -n 7 -t echo hi", 0, "hi\n", ""},
		{"ionice -c 9 echo", 2, "", "ionice: unknown class '9'; allowed: 0, 1, 2, 3, best-effort, idle, none, realtime\n"},
		{"ionice -n 8 echo", 2, "", "ionice: invalid level '8'; allowed: an integer from 0 to 7\n"},
		{"taskset -c 0 echo hi", 2, "", "taskset: cannot pin 'echo' to CPUs: shelter cannot set affinity before a program starts; allowed: the command without taskset\n"},
		{"taskset 0x3 echo hi", 2, "", "taskset: cannot pin 'echo' to CPUs: shelter cannot set affinity before a program starts; allowed: the command without taskset\n"},
		{"taskset zz echo", 2, "", "taskset: invalid CPU mask 'zz'; allowed: a hexadecimal mask such as 0x3, -c with a list\n"},
		{"taskset -c 0-x echo", 2, "", "taskset: invalid CPU list '0-x'; allowed: numbers and ranges such as 0,2-4\n"},
		{"taskset -p 1", 2, "", "taskset: unknown flag '-p'; allowed: -a/--all-tasks, -c/--cpu-list\n"},
		{"chrt -o 0 echo hi", 0, "hi\n", ""},
		{"chrt --other -R 0 echo hi", 0, "hi\n", ""},
		{"chrt 5 echo", 2, "", "chrt: policy 'SCHED_RR' (chrt's default) is real-time and not available; allowed: -o 0\n"},
		{"chrt -f 10 echo", 2, "", "chrt: policy '--fifo' is real-time and not available; allowed: -o 0\n"},
		{"chrt -b 0 echo", 2, "", "chrt: policy '--batch' is not available: shelter cannot set a scheduling policy before a program starts; allowed: -o 0\n"},
		{"chrt -o 3 echo", 2, "", "chrt: invalid priority '3' for SCHED_OTHER; allowed: 0\n"},
	})
}

// setsid's command leads a process group of its own and, off a
// terminal, a session of its own, as every program shelter starts: it
// stays under the call's kill discipline, which is by group.
func TestSetsidOwnGroupAndSession(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	s := launchSession(t, kernel.Config{})
	res, err := s.Run(context.Background(), `setsid sh -c 'set -- $(cut -d" " -f5,6 /proc/$$/stat); echo "$1 $2 $$"'`, kernel.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var pgrp, sid, pid int
	if _, err := fmtSscan(res.Stdout, &pgrp, &sid, &pid); err != nil {
		t.Fatalf("%q: %v (stderr %q)", res.Stdout, err, res.Stderr)
	}
	if pgrp != pid || sid != pid {
		t.Errorf("setsid's command: pgrp %d sid %d pid %d; want its own group and session", pgrp, sid, pid)
	}
}

func TestFlock(t *testing.T) {
	s := launchSession(t, kernel.Config{KillGrace: 100e6})
	runLaunchCases(t, s, []launchCase{
		{"flock l echo hi; test -f l && echo made", 0, "hi\nmade\n", ""},
		{"mkdir d; flock -s d echo dir", 0, "dir\n", ""},
		{"flock -w x l true", 2, "", "flock: invalid timeout 'x'; allowed: a number of seconds (a fraction allowed)\n"},
		{"flock -E 300 l true", 2, "", "flock: invalid exit code '300'; allowed: an integer from 0 to 255\n"},
		{"flock l", 2, "", "flock: missing COMMAND; allowed: flock " + launchFlock.usage + "\n"},
		{"flock -c 'echo x' l", 2, "", "flock: unknown flag '-c'; allowed: " + kernel.Pool(launchFlock.pool()) + "\n"},
		// A lock a job holds: -n and -w give up, with 1 or -E's code.
		{"flock held sh -c 'echo > ready; sleep 30' & until [ -e ready ]; do sleep 0.01; done; " +
			"flock -n held echo no; echo $?; flock -w 0.05 held echo no; echo $?; flock -E 7 --nb -s held true; echo $?; " +
			"kill %1; wait; flock -n held echo free", 0, "1\n1\n7\nfree\n", ""},
	})
}

// In the sandbox, the lock file is opened beneath the root like every
// other file.
func TestFlockConfined(t *testing.T) {
	root := t.TempDir()
	cfg, _ := kernel.Preset(kernel.ProfileSandbox)
	cfg.Root = root
	s := launchSession(t, cfg)
	res, err := s.Run(context.Background(), "flock /etc/passwd echo ran; echo $?; flock inside echo ran", kernel.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "2\nran\n" || !strings.HasPrefix(res.Stderr, "flock: cannot open lock file /etc/passwd: ") {
		t.Errorf("stdout %q stderr %q", res.Stdout, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), "inside")); err != nil {
		t.Error(err)
	}
}

// replacer is a harness-like tool that replaces commands.
type replacer struct {
	name     string
	replaces []string
}

func (r *replacer) Name() string                            { return r.name }
func (r *replacer) Kind() kernel.Kind                       { return kernel.Harness }
func (r *replacer) Description() string                     { return "The " + r.name + " tool." }
func (r *replacer) InputSchema() json.RawMessage            { return json.RawMessage(`{"type":"object"}`) }
func (r *replacer) Run(context.Context, *kernel.Call) error { return nil }
func (r *replacer) Replaces() []string                      { return r.replaces }

// The guard looks through every launcher, with the grammar its run
// reads: a replaced command behind one is refused before anything runs,
// and a launcher that refuses its words is refused by its own line.
func TestGuardThroughLaunchers(t *testing.T) {
	s := launchSession(t, kernel.Config{Tools: []kernel.Tool{
		&replacer{name: "logs", replaces: []string{"journalctl"}},
		&replacer{name: "svc", replaces: []string{"systemctl restart"}},
		&replacer{name: "fetch", replaces: []string{"HOSTALIASES"}},
	}})
	tests := []struct {
		line string
		want string // the start of the error issue's line, "" for none
	}{
		{"env journalctl", "shelter: 'env journalctl' is done with the tool 'logs'"},
		{"env -i A=1 B=2 journalctl", "shelter: 'env -i A=1 B=2 journalctl' is done with the tool 'logs'"},
		{"env -iu X journalctl", "shelter: 'env -iu X journalctl' is done with the tool 'logs'"},
		{"env - journalctl", "shelter: 'env - journalctl' is done with the tool 'logs'"},
		{"env --unset=X -- journalctl", "shelter: 'env --unset=X -- journalctl' is done"},
		{"env HOSTALIASES=x cmd", "shelter: 'env HOSTALIASES=x cmd' is done with the tool 'fetch'"},
		{"env A=1 systemctl --user restart x", "shelter: 'env A=1 systemctl --user restart x' is done with the tool 'svc'"},
		{"env -C /tmp journalctl", "env: unknown flag '-C'"},
		{"env -S journalctl", "env: unknown flag '-S'"},
		{"env $X journalctl", ""}, // judged at execution
		{"xargs journalctl", "shelter: 'xargs journalctl' is done"},
		{"xargs -0n 1 journalctl", "shelter: 'xargs -0n 1 journalctl' is done"},
		{"xargs -0n1 journalctl -u", "shelter: 'xargs -0n1 journalctl -u' is done"},
		{"xargs --replace echo {}", ""},
		{"xargs -P 2 journalctl", "xargs: unknown flag '-P'"},
		{"timeout 5 journalctl", "shelter: 'timeout 5 journalctl' is done"},
		{"timeout -sKILL 5 journalctl", "shelter: 'timeout -sKILL 5 journalctl' is done"},
		{"timeout -s KILL -k 1 5s journalctl", "shelter: 'timeout -s KILL -k 1 5s journalctl' is done"},
		{"timeout --preserve-status 5 journalctl", "shelter: 'timeout --preserve-status 5 journalctl' is done"},
		{"timeout $T journalctl", "shelter: 'timeout … journalctl' is done"},
		{"timeout 5x journalctl", "shelter: 'timeout 5x journalctl' is done"}, // the guard first
		{"timeout 5x true", "timeout: invalid duration '5x'"},
		{"nohup journalctl", "shelter: 'nohup journalctl' is done"},
		{"nice journalctl", "shelter: 'nice journalctl' is done"},
		{"nice -5 journalctl", "shelter: 'nice -5 journalctl' is done"},
		{"nice -n 5 journalctl", "shelter: 'nice -n 5 journalctl' is done"},
		{"nice --adjustment=5 journalctl", "shelter: 'nice --adjustment=5 journalctl' is done"},
		{"setsid -f journalctl", "shelter: 'setsid -f journalctl' is done"},
		{"stdbuf -oL journalctl -f", "shelter: 'stdbuf -oL journalctl -f' is done"},
		{"stdbuf -o L journalctl -f", "shelter: 'stdbuf -o L journalctl -f' is done"},
		{"ionice -c3 journalctl", "shelter: 'ionice -c3 journalctl' is done"},
		{"taskset -c 0 journalctl", "shelter: 'taskset -c 0 journalctl' is done"},
		{"taskset 0x1 journalctl", "shelter: 'taskset 0x1 journalctl' is done"},
		{"chrt -o 0 journalctl", "shelter: 'chrt -o 0 journalctl' is done"},
		{"chrt -f 99 journalctl", "shelter: 'chrt -f 99 journalctl' is done"},
		{"flock -n /tmp/l journalctl", "shelter: 'flock -n /tmp/l journalctl' is done"},
		{"flock -w 1 /tmp/l systemctl restart x", "shelter: 'flock -w 1 /tmp/l systemctl restart x' is done with the tool 'svc'"},
		{"nohup nice -n 1 timeout 5 env A=1 xargs journalctl", "shelter: 'nohup nice -n 1 timeout 5 env A=1 xargs journalctl' is done"},
		{"/usr/bin/env journalctl", "shelter: '/usr/bin/env journalctl' is done"},
		{"/usr/bin/env true", "shelter: '/usr/bin/env' is a launcher, run only as shelter's own; allowed: env"},
		{"command env journalctl", "shelter: 'command env journalctl' is done"},
		{"sudo -u root timeout 5 journalctl", "shelter: 'sudo -u root timeout 5 journalctl' is done"},
		{"env A=1 true", ""},
		{"timeout 5 true", ""},
		{"env --help", ""},
	}
	for _, tt := range tests {
		issues, err := s.Check(tt.line)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, is := range issues {
			if is.Severity == kernel.SeverityError {
				got = is.Message
			}
		}
		if tt.want == "" && got != "" || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: error %q, want one starting %q", tt.line, got, tt.want)
		}
	}
}

func TestUnwrap(t *testing.T) {
	words := func(line string) []kernel.Word {
		var out []kernel.Word
		for _, f := range strings.Fields(line) {
			out = append(out, kernel.Word{Text: f, Opaque: f == "$"})
		}
		return out
	}
	text := func(ws []kernel.Word) string {
		var parts []string
		for _, w := range ws {
			if w.Opaque {
				parts = append(parts, "…")
			} else {
				parts = append(parts, w.Text)
			}
		}
		return strings.Join(parts, " ")
	}
	tests := []struct {
		l       *launcher
		line    string
		ok      bool
		inner   string
		assigns string
	}{
		{launchEnv, "env A=1 B=2 cmd a", true, "cmd a", "A,B"},
		{launchEnv, "env -- A=1 cmd", true, "cmd", "A"},
		{launchEnv, "env -u X -i -", false, "", ""},
		{launchEnv, "env", false, "", ""},
		{launchEnv, "env $ cmd", true, "… cmd", ""},
		{launchEnv, "env -u $ cmd", true, "cmd", ""},
		{launchTimeout, "timeout 5", false, "", ""},
		{launchTimeout, "timeout -k1 -s $ $ cmd -x", true, "cmd -x", ""},
		{launchXargs, "xargs", true, "echo …", ""},
		{launchXargs, "xargs -0 -n 1 cmd --flag", true, "cmd --flag …", ""},
		{launchXargs, "xargs -I{} cp {} /x", true, "cp {} /x …", ""},
		{launchXargs, "xargs --replace cp {} /x", true, "cp {} /x …", ""},
		{launchXargs, "xargs --max-a 2 cmd", true, "cmd …", ""},
		{launchXargs, "xargs --max cmd", false, "", ""}, // ambiguous
		{launchNice, "nice --5 cmd", true, "cmd", ""},
		{launchNice, "nice", false, "", ""},
		{launchNohup, "nohup -- cmd", true, "cmd", ""},
		{launchFlock, "flock -xn f cmd a", true, "cmd a", ""},
		{launchFlock, "flock -w 5 f", false, "", ""},
		{launchChrt, "chrt -o 0 cmd", true, "cmd", ""},
		{launchTaskset, "taskset -ac 0,1 cmd", true, "cmd", ""},
		{launchStdbuf, "stdbuf -o0 -eL cmd", true, "cmd", ""},
		{launchIonice, "ionice -c2 -n7 cmd", true, "cmd", ""},
		{launchSetsid, "setsid -fw cmd", true, "cmd", ""},
	}
	for _, tt := range tests {
		got, ok := tt.l.Unwrap(words(tt.line))
		if ok != tt.ok || text(got.Words) != tt.inner || strings.Join(got.Assigns, ",") != tt.assigns {
			t.Errorf("Unwrap(%q) = %q %v %v; want %q %q %v", tt.line, text(got.Words), got.Assigns, ok, tt.inner, tt.assigns, tt.ok)
		}
	}
}

func FuzzLauncherRead(f *testing.F) {
	for _, s := range []string{"env -iu X A=1 cmd", "xargs -0n1", "timeout -k", "nice --5", "flock -w", "--", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var words []kernel.Word
		for _, w := range strings.Fields(line) {
			words = append(words, kernel.Word{Text: w})
		}
		for _, l := range Launchers() {
			if l, ok := l.(*launcher); ok {
				l.Unwrap(append([]kernel.Word{{Text: l.name}}, words...))
				l.CheckStatic(append([]kernel.Word{{Text: l.name}}, words...))
			}
		}
	})
}

func fmtSscan(s string, a ...any) (int, error) { return fmt.Sscan(s, a...) }
