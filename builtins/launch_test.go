package builtins

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/internal/proctest"
	"github.com/shelter-sh/shelter/kernel"
)

// launchSession is a session of a kernel with the launchers registered,
// beside cfg's own tools.
func launchSession(t *testing.T, cfg kernel.Config) *kernel.Session {
	t.Helper()
	cfg.Tools = append(Launchers(), cfg.Tools...)
	k, err := kernel.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if cfg.Root != "" {
		dir = cfg.Root
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: dir, DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

type launchCase struct {
	script         string
	code           int
	stdout, stderr string
}

func runLaunchCases(t *testing.T, s *kernel.Session, cases []launchCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.script, func(t *testing.T) {
			res, err := s.Run(context.Background(), tt.script, kernel.RunOptions{Timeout: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != tt.code || res.Stdout != tt.stdout || res.Stderr != tt.stderr {
				t.Errorf("got exit %d stdout %q stderr %q\nwant exit %d stdout %q stderr %q",
					res.ExitCode, res.Stdout, res.Stderr, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

func TestEnvBuiltin(t *testing.T) {
	s := launchSession(t, kernel.Config{CoreEnv: []string{"PATH"}})
	runLaunchCases(t, s, []launchCase{
		{"env -i A=1 B='two words' /usr/bin/printenv", 0, "A=1\nB=two words\n", ""},
		{"env -i", 0, "", ""},
		{"env - A=1", 0, "A=1\n", ""},
		{"env -i A=1 A=2", 0, "A=2\n", ""},
		{"export X=1; env -u X printenv | grep -c ^X=", 1, "0\n", ""},
		{"export X=1; env --unset=X | grep -c ^X=", 1, "0\n", ""},
		{"export X=1; env | grep ^X=", 0, "X=1\n", ""},
		{"env -- Y=3 sh -c 'echo $Y'", 0, "3\n", ""},
		{"env -i echo hi", 0, "hi\n", ""},
		{"env -x true", 2, "", "env: unknown flag '-x'; allowed: -i/--ignore-environment, -u/--unset\n"},
		{"env -u", 2, "", "env: flag '-u' needs a value; allowed: -u NAME\n"},
		{"env no-such-cmd-q", 127, "", "shelter: no-such-cmd-q: command not found\n"},
	})
}

func TestTimeoutBuiltin(t *testing.T) {
	s := launchSession(t, kernel.Config{KillGrace: 100 * time.Millisecond})
	runLaunchCases(t, s, []launchCase{
		{"timeout 5 true", 0, "", ""},
		{"timeout 5 sh -c 'exit 3'", 3, "", ""},
		{"timeout 0 echo no limit", 0, "no limit\n", ""},
		{"timeout 0.2 sleep 31.701; echo $?", 0, "124\n", ""},
		{"timeout -s INT 0.2 sleep 31.702", 124, "", ""},
		{"timeout --preserve-status 0.2 sleep 31.703", 143, "", ""},
		{"timeout --preserve-status -s INT 0.2 sleep 31.704", 130, "", ""},
		{"timeout -s KILL 0.1 sleep 31.706", 124, "", ""},
		{"timeout 0.5m true", 0, "", ""},
		{"timeout 5", 2, "", "timeout: missing COMMAND; allowed: timeout " + launchTimeout.usage + "\n"},
		{"timeout 5x true", 2, "", "timeout: invalid duration '5x'; allowed: a number with an optional suffix s, m, h or d (5, 0.5, 1.5m, 2h, 1d)\n"},
		{"timeout -q 5 true", 2, "", "timeout: unknown flag '-q'; allowed: -k/--kill-after, --preserve-status, -s/--signal\n"},
		{"timeout -s NOPE 5 true", 2, "", "timeout: unknown signal 'NOPE'; allowed: a name such as TERM or KILL, a number\n"},
	})
	// -k: a child that ignores TERM gets KILL. That needs the timeout to
	// fire after the child set its trap, which on a loaded machine can take
	// longer than the first duration tried.
	for d := 0.2; ; d *= 2 {
		script := fmt.Sprintf(`timeout -k 0.1 %g sh -c 'trap "" TERM; echo ready; sleep 31.705'`, d)
		res, err := s.Run(context.Background(), script, kernel.RunOptions{Timeout: 60 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stdout == "ready\n" || d > 10 {
			if res.ExitCode != 137 || res.Stdout != "ready\n" || res.Stderr != "" {
				t.Errorf("%s: exit %d stdout %q stderr %q, want 137 and ready", script, res.ExitCode, res.Stdout, res.Stderr)
			}
			break
		}
		t.Logf("%s: not ready in time, trying a longer duration", script)
	}
	for _, m := range []string{"31.70"} {
		if left := proctest.With(m); len(left) > 0 {
			// Leftovers are ended in the background; give them the grace.
			waitUntil(t, func() bool { return len(proctest.With(m)) == 0 })
		}
	}
}

func TestNohupAndNice(t *testing.T) {
	s := launchSession(t, kernel.Config{})
	own := ownNiceness()
	runLaunchCases(t, s, []launchCase{
		{"nohup sh -c 'echo hi'", 0, "hi\n", ""},
		{"nohup", 2, "", "nohup: missing COMMAND; allowed: nohup " + launchNohup.usage + "\n"},
		{"nohup -x true", 2, "", "nohup: unknown flag '-x'; allowed: (none)\n"},
		{"nice", 0, strconv.Itoa(own) + "\n", ""},
		{"nice -n 3 nice", 0, strconv.Itoa(min(own+3, 19)) + "\n", ""},
		{"nice -5 nice -n 2 nice", 0, strconv.Itoa(min(own+7, 19)) + "\n", ""},
		{"nice --adjustment=1 nice", 0, strconv.Itoa(min(own+1, 19)) + "\n", ""},
		{"nice -n x true", 2, "", "nice: invalid adjustment 'x'; allowed: an integer from -39 to 39\n"},
		{"nice -q true", 2, "", "nice: unknown flag '-q'; allowed: -n/--adjustment\n"},
	})
	if own+4 > 19 {
		return
	}
	// The niceness reaches the process.
	const marker = "sleep 31.711"
	if res, _ := s.Run(context.Background(), "nice -n 4 "+marker+" &", kernel.RunOptions{}); res.ExitCode != 0 {
		t.Fatalf("%+v", res)
	}
	waitUntil(t, func() bool {
		for _, p := range proctest.With(marker) {
			if p.Nice == own+4 {
				return true
			}
		}
		return false
	})
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

const xargsPool = "-0/--null, -I, -L/--max-lines, -d/--delimiter, -n/--max-args, -r/--no-run-if-empty, --replace, -t/--verbose"

func TestXargsBuiltin(t *testing.T) {
	s := launchSession(t, kernel.Config{})
	runLaunchCases(t, s, []launchCase{
		{"printf 'a b\\nc\\n' | xargs", 0, "a b c\n", ""},
		{"printf 'a b\\nc\\n' | xargs -n 1", 0, "a\nb\nc\n", ""},
		{"printf 'a b\\nc\\n' | xargs -n1 echo x", 0, "x a\nx b\nx c\n", ""},
		{"printf 'a b\\nc d\\ne\\n' | xargs -L 2", 0, "a b c d\ne\n", ""},
		{"printf 'a \\nb\\nc\\n' | xargs -L 1", 0, "a b\nc\n", ""},
		{"printf 'a\\0b c\\0' | xargs -0 -n1", 0, "a\nb c\n", ""},
		{"printf 'a,b,c' | xargs -d , -n 2", 0, "a b\nc\n", ""},
		{"printf 'a\\tb\\n' | xargs -d '\\t' -n1", 0, "a\nb\n\n", ""},
		{"printf 'x\\n  y z\\n' | xargs -I{} echo pre-{}-post", 0, "pre-x-post\npre-y z-post\n", ""},
		{"printf 'x\\n' | xargs --replace echo [{}]", 0, "[x]\n", ""},
		{"printf \"'a b' \\\"c d\\\" e\\\\\\\\ f\\n\" | xargs -n1", 0, "a b\nc d\ne f\n", ""},
		{"true | xargs echo nothing", 0, "nothing\n", ""},
		{"true | xargs -r echo nothing", 0, "", ""},
		{"true | xargs -I{} echo {}", 0, "", ""},
		{"echo a b | xargs -t echo", 0, "a b\n", "echo a b\n"},
		{"echo a b | xargs -rtn1", 0, "a\nb\n", "echo a\necho b\n"},
		{"echo a b | xargs sh -c 'exit 3'", 123, "", ""},
		{"echo a | xargs sh -c 'exit 255'", 124, "", "xargs: sh: exited with status 255; aborting\n"},
		{"echo a | xargs sh -c 'kill -9 $$'", 125, "", "xargs: sh: terminated by signal 9\n"},
		{"echo a | xargs no-such-cmd-q", 127, "", "shelter: no-such-cmd-q: command not found\n"},
		{"echo \"'a\" | xargs", 1, "", "xargs: unmatched quote; by default quotes are special to xargs unless you use the -0 option\n"},
		{"xargs -P 2 echo", 2, "", "xargs: unknown flag '-P'; allowed: " + xargsPool + "\n"},
		{"xargs --max-procs=2 echo", 2, "", "xargs: unknown flag '--max-procs'; allowed: " + xargsPool + "\n"},
		{"xargs -n 0 echo", 2, "", "xargs: invalid number '0' for -n; allowed: an integer of at least 1\n"},
		{"xargs -n", 2, "", "xargs: flag '-n' needs a value; allowed: -n N\n"},
		{"xargs -d ab", 2, "", "xargs: invalid delimiter 'ab'; allowed: an escape (\\n, \\t, \\0, \\\\, \\xHH, \\NNN), one character\n"},
		{"seq 1 5 | xargs -n 2 | wc -l", 0, "3\n", ""},
		{"printf '%s\\n' \"$(seq 1 30000)\" | xargs | wc -w", 0, "30000\n", ""},
	})
}

// In a session with no external programs, xargs and env still have the
// shell's echo and printf.
func TestLaunchersUseShellUtilities(t *testing.T) {
	s := launchSession(t, kernel.Config{Externals: kernel.ExternalsDenied})
	runLaunchCases(t, s, []launchCase{
		{"echo a b | xargs", 0, "a b\n", ""},
		{"echo a b | xargs printf '<%s>'", 0, "<a><b>", ""},
		{"env A=1 test -n x", 0, "", ""},
		{"timeout 5 false", 1, "", ""},
	})
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"5", 5 * time.Second, true},
		{"5s", 5 * time.Second, true},
		{"0.5", 500 * time.Millisecond, true},
		{".25s", 250 * time.Millisecond, true},
		{"1.5m", 90 * time.Second, true},
		{"2h", 2 * time.Hour, true},
		{"1d", 24 * time.Hour, true},
		{"0", 0, true},
		{"1e-12", 1, true},
		{"1e300d", 1<<63 - 1, true},
		{"", 0, false},
		{"s", 0, false},
		{"-1", 0, false},
		{"5x", 0, false},
		{"0x10", 0, false},
		{"inf", 0, false},
		{"NaN", 0, false},
		{"1ms", 0, false},
	}
	for _, tt := range tests {
		got, err := parseDuration("timeout", tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"5", "0.5m", "1d", "-1", "1e9h", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := parseDuration("timeout", s); err == nil && d < 0 {
			t.Fatalf("negative duration %v for %q", d, s)
		}
	})
}

func TestItemReader(t *testing.T) {
	tests := []struct {
		in    string
		delim int
		lines bool
		want  []string // items; "$" marks the end of a line
	}{
		{"a b\nc\n", -1, false, []string{"a", "b$", "c$"}},
		{"  a  \n b", -1, false, []string{"a", "b$"}},
		{"'a b' \"c\"d e\\ f", -1, false, []string{"a b", "cd", "e f$"}},
		{"\n\n", -1, false, nil},
		{" x y \nz\n", -1, true, []string{"x y $", "z$"}},
		{"a\x00\x00b", 0, false, []string{"a$", "$", "b$"}},
		{"a,b,", ',', false, []string{"a$", "b$"}},
	}
	for _, tt := range tests {
		ir := &itemReader{r: bufio.NewReader(strings.NewReader(tt.in)), delim: tt.delim, lines: tt.lines}
		var got []string
		for {
			item, eol, err := ir.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%q: %v", tt.in, err)
			}
			if eol {
				item += "$"
			}
			got = append(got, item)
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("items of %q = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzItemReader(f *testing.F) {
	for _, s := range []string{"a b\nc", "'a b' \"c", "x\\", "\x00\x00", "  \n "} {
		f.Add(s, -1, false)
		f.Add(s, 0, true)
	}
	f.Fuzz(func(t *testing.T, in string, delim int, lines bool) {
		if delim < -1 || delim > 255 {
			delim = -1
		}
		ir := &itemReader{r: bufio.NewReader(strings.NewReader(in)), delim: delim, lines: lines}
		for range len(in) + 2 {
			if _, _, err := ir.next(); err != nil {
				return
			}
		}
		t.Fatalf("more items than bytes in %q", in)
	})
}
