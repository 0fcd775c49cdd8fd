package kernel_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// A call's statements run as one interpreter run. These tests hold what
// each statement of a long script must still see of the ones before it,
// so that a change in how the statements are run (one run, or batches)
// that loses any of it fails here.

// longScript is n numbered statements, with stmt(i) in place of the i-th
// when it returns one.
func longScript(n int, stmt func(i int) string) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		line := ""
		if stmt != nil {
			line = stmt(i)
		}
		if line == "" {
			line = fmt.Sprintf("v%d=%d; echo %d", i, i, i)
		}
		sb.WriteString(line)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// numbers is what longScript's plain statements from..to print.
func numbers(from, to int) string {
	var sb strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&sb, "%d\n", i)
	}
	return sb.String()
}

func TestLongScriptOrderAndState(t *testing.T) {
	t.Parallel()
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	script := longScript(1000, func(i int) string {
		switch i {
		case 300:
			// An external program's output lands between its neighbours'.
			return "/bin/echo 300"
		case 301:
			return "echo 301 >&2; echo 301"
		case 302:
			return `[ "$v299" = 299 ] && echo 302`
		}
		return ""
	})
	res := run(t, s, script)
	if res.ExitCode != 0 || res.Stdout != numbers(1, 1000) || res.Stderr != "301\n" {
		t.Fatalf("exit %d, stdout in order %v, stderr %q", res.ExitCode, res.Stdout == numbers(1, 1000), res.Stderr)
	}
	if res := run(t, s, `echo "$v1 $v999"`); res.Stdout != "1 999\n" {
		t.Errorf("state after the call: %q", res.Stdout)
	}
}

func TestLongScriptAliasOnTheNextLine(t *testing.T) {
	t.Parallel()
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	script := longScript(600, func(i int) string {
		switch i {
		case 1:
			return "shopt -s expand_aliases"
		case 499:
			return "alias five='echo 500'"
		case 500:
			return "five"
		}
		return ""
	})
	res := run(t, s, script)
	want := numbers(2, 498) + numbers(500, 600)
	if res.ExitCode != 0 || res.Stdout != want {
		t.Errorf("exit %d, stderr %q, stdout as bash's: %v", res.ExitCode, res.Stderr, res.Stdout == want)
	}
}

func TestLongScriptSetEMidway(t *testing.T) {
	t.Parallel()
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	script := longScript(1000, func(i int) string {
		switch i {
		case 400:
			return "set -e"
		case 500:
			return "false"
		}
		return ""
	})
	res := run(t, s, script)
	if res.ExitCode != 1 || res.Stdout != numbers(1, 399)+numbers(401, 499) {
		t.Errorf("exit %d, stdout ends %q", res.ExitCode, tail(res.Stdout))
	}
	if res := run(t, s, `echo "${v499-unset} ${v501-unset}"`); res.Stdout != "499 unset\n" {
		t.Errorf("state after set -e ended the call: %q", res.Stdout)
	}
}

func TestLongScriptExitMidway(t *testing.T) {
	t.Parallel()
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	script := longScript(1000, func(i int) string {
		switch i {
		case 10:
			return "trap 'echo trap $?' EXIT"
		case 500:
			return "exit 7"
		}
		return ""
	})
	res := run(t, s, script)
	if res.ExitCode != 7 || res.Stdout != numbers(1, 9)+numbers(11, 499)+"trap 7\n" {
		t.Errorf("exit %d, stdout ends %q", res.ExitCode, tail(res.Stdout))
	}
	if res := run(t, s, "echo next"); res.Stdout != "next\n" {
		t.Errorf("the EXIT trap ran again: %q", res.Stdout)
	}
}

// TestLongScriptRefusals: a refusal the static pass makes at statement
// 500 runs nothing, not even statements 1-499; one made at execution
// (the words were not literal) fails statement 500 alone.
func TestLongScriptRefusals(t *testing.T) {
	t.Parallel()
	k, err := kernel.New(kernel.Config{}) // no launcher registered
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: t.TempDir(), DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	static := longScript(1000, func(i int) string {
		if i == 500 {
			return "env true"
		}
		return ""
	})
	res := run(t, s, static)
	if !res.Rejected || res.Stdout != "" {
		t.Fatalf("static refusal: %+v", res)
	}
	if res := run(t, s, `echo "${v1-unset}"`); res.Stdout != "unset\n" {
		t.Errorf("a refused script ran: %q", res.Stdout)
	}

	atRun := longScript(1000, func(i int) string {
		if i == 500 {
			return `l=env; $l true; echo "status $?"`
		}
		return ""
	})
	res = run(t, s, atRun)
	if res.Rejected || res.Stdout != numbers(1, 499)+"status 127\n"+numbers(501, 1000) || !strings.Contains(res.Stderr, "'env' is a launcher") {
		t.Errorf("refusal at execution: exit %d, stderr %q, stdout ends %q", res.ExitCode, res.Stderr, tail(res.Stdout))
	}
}

// TestLongScriptTimeoutMidway times out a long script at its statement
// 500, a sleep. The timeout is far longer than the 499 statements before
// it take even under the race detector on a loaded machine, so that it
// is the sleep the timeout ends.
func TestLongScriptTimeoutMidway(t *testing.T) {
	t.Parallel()
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	script := longScript(1000, func(i int) string {
		if i == 500 {
			return "sleep 30"
		}
		return ""
	})
	res, err := s.Run(context.Background(), script, kernel.RunOptions{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.ExitCode != 124 || res.Stdout != numbers(1, 499) {
		t.Errorf("timed out %v, exit %d, stdout ends %q", res.TimedOut, res.ExitCode, tail(res.Stdout))
	}
}

func tail(s string) string {
	if len(s) > 40 {
		return "…" + s[len(s)-40:]
	}
	return s
}
