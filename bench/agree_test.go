package bench

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shelter-sh/shelter/internal/scripts"
	"github.com/shelter-sh/shelter/kernel"
)

// TestCasesAgree runs each benchmark's work once on each side and checks
// that the sides print the same, so that every ratio compares the same
// work.
func TestCasesAgree(t *testing.T) {
	for _, c := range []struct {
		name, script, want string
		bash               bool // compare with bash -c too
	}{
		{"echo", "echo hi", "hi\n", true},
		{"small script", smallScript, smallScriptOutput, true},
		{"true", "/bin/true", "", true},
		{"1000 statements", scripts.ThousandStatements(), scripts.ThousandStatementsOutput, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, status := shelter(t, newSession(t, kernel.ProfileHost), c.script)
			if out != c.want || status != 0 {
				t.Errorf("shelter: status %d, printed %q; want 0 and %q", status, out, c.want)
			}
			out, status = newFloorBuffers(t).run(t, c.script)
			if out != c.want || status != 0 {
				t.Errorf("bare mvdan/sh: status %d, printed %q; want 0 and %q", status, out, c.want)
			}
			before := visited
			out, status = newFloorWith(t, newGuardFloor).run(t, c.script)
			if out != c.want || status != 0 {
				t.Errorf("the guard floor: status %d, printed %q; want 0 and %q", status, out, c.want)
			}
			if visited == before {
				t.Errorf("the guard floor walked no node of the script")
			}
			if c.bash {
				out, status = bash(t, lookBash(t), c.script)
				if out != c.want || status != 0 {
					t.Errorf("bash: status %d, printed %q; want 0 and %q", status, out, c.want)
				}
			}
		})
	}

	t.Run("1000 statements count", func(t *testing.T) {
		if n := strings.Count(scripts.ThousandStatements(), "\n"); n != 1000 {
			t.Errorf("ThousandStatements has %d statements", n)
		}
	})

	t.Run("heavy output", func(t *testing.T) {
		// A tenth of the benchmark's lines still spills 230 KB past
		// the 32 KiB kept, at a tenth of the test's time (and ten
		// times slower under the race detector).
		lines := heavyLines / 10
		script := manyLines(lines)
		f := newFloorBuffers(t)
		want, status := f.run(t, script)
		if status != 0 || int64(len(want)) != linesBytes(lines) {
			t.Fatalf("bare mvdan/sh: status %d, %d bytes; want 0 and %d", status, len(want), linesBytes(lines))
		}
		if got, status := newFloorWith(t, newGuardFloor).run(t, script); status != 0 || got != want {
			t.Errorf("the guard floor: status %d, %d bytes that differ from the bare runner's", status, len(got))
		}
		s := newSession(t, kernel.ProfileAgent)
		res, err := s.Run(context.Background(), script, kernel.RunOptions{})
		if err != nil || res.ExitCode != 0 || !res.Truncated || res.StdoutBytes != int64(len(want)) {
			t.Fatalf("shelter: %v: exit %d, truncated %v, %d bytes; want 0, true, %d", err, res.ExitCode, res.Truncated, res.StdoutBytes, len(want))
		}
		spilled, err := os.ReadFile(res.SpillPath)
		if err != nil {
			t.Fatal(err)
		}
		if string(spilled) != want {
			t.Errorf("the spill file holds %d bytes that differ from the bare runner's %d", len(spilled), len(want))
		}
	})

	t.Run("cold start", func(t *testing.T) {
		if testing.Short() {
			t.Skip("builds the CLI")
		}
		if raceEnabled {
			// The build would compile the CLI's dependencies a second
			// time, without the race detector: minutes on a cold cache.
			t.Skip("builds the CLI without the race detector")
		}
		bins := buildBinaries(t)
		path := lookBash(t)
		for _, argv := range [][]string{
			{bins.shelter, "-c", "echo hi"},
			{bins.kernelOnly, "-c", "echo hi"},
			{bins.kernelOnly, "-subreaper", "-c", "echo hi"},
			{path, "-c", "echo hi"},
		} {
			if out, _, _ := start(t, argv...); out != "hi\n" {
				t.Errorf("%v printed %q, want %q", argv, out, "hi\n")
			}
		}
		// The floor does nothing: it starts, prints nothing and exits 0
		// (start fails the test on any other status).
		if out, _, _ := start(t, bins.deps); out != "" {
			t.Errorf("the deps program printed %q", out)
		}
	})

	t.Run("yield", func(t *testing.T) {
		s := newSession(t, kernel.ProfileAgent)
		for _, opts := range []kernel.RunOptions{{Yield: serveYield}, {}} {
			res, err := s.Run(context.Background(), "echo hi", opts)
			if err != nil || res.Stdout != "hi\n" || res.Yielded {
				t.Errorf("yield %v: %v: printed %q, yielded %v", opts.Yield, err, res.Stdout, res.Yielded)
			}
		}
	})

	// The text cases on inputs a few hundred KB in all: the builtins,
	// the host's programs and the floor print the same.
	inputs := t.TempDir()
	for _, in := range []textInput{tree, lines, items} {
		if err := in.write(filepath.Join(inputs, in.name), in.agree); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		textCase
	}{{"grep -rn", grepCase}, {"sed -n", sedCase}, {"find | xargs wc", findCase}, {"jq", jqCase}} {
		t.Run(c.name, func(t *testing.T) { checkText(t, c.textCase, inputs) })
	}

	t.Run("serve", func(t *testing.T) {
		if testing.Short() {
			t.Skip("builds the CLI")
		}
		if raceEnabled {
			t.Skip("builds the CLI without the race detector")
		}
		ours, floor := builtProgram(t, "./cmd/shelter"), builtProgram(t, "./bench/testdata/sdkfloor")
		params := &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo hi"}}
		for _, argv := range [][]string{{ours, "serve", "--cwd", t.TempDir()}, {floor}} {
			res, err := connectStdio(t, argv...).CallTool(context.Background(), params)
			if err := echoAnswer(argv[0], res, err); err != nil {
				t.Error(err)
			}
		}
		// Two agents of two calls each: the second call of each names
		// the session the first started.
		for _, argv := range [][]string{{ours, "serve", "--http", "127.0.0.1:0", "--cwd", t.TempDir()}, {floor, "-http", "127.0.0.1:0"}} {
			if l := runLoad(t, argv, 2, 2); len(l.latencies) != 4 {
				t.Errorf("%s: %d calls, want 4", argv[0], len(l.latencies))
			}
		}
	})

	t.Run("idle sessions", func(t *testing.T) {
		k := newKernel(t, kernel.ProfileHost)
		dir := t.TempDir()
		fds := openFDs()
		var sessions []*kernel.Session
		for range 10 {
			s, err := k.NewSession(kernel.SessionOptions{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			if out, _ := shelter(t, s, "echo hi"); out != "hi\n" {
				t.Fatalf("printed %q", out)
			}
			sessions = append(sessions, s)
		}
		t.Logf("10 idle sessions hold %d file descriptors", openFDs()-fds)
		for _, s := range sessions {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if left := openFDs() - fds; left != 0 {
			t.Errorf("%d file descriptors are still open after Close", left)
		}
	})
}

// TestEchoLoopAllocatesAsTheGuardFloor: an echo in a loop allocates on
// shelter what it allocates on the guard floor, whose call handler costs
// mvdan/sh's handler context as shelter's does; shelter's own work per
// command (the call handler, the budget's checks, its echo, the bounded
// stream) allocates nothing. Allocations, not time, are what the
// collector's share of a heavy-output call grows with.
func TestEchoLoopAllocatesAsTheGuardFloor(t *testing.T) {
	if raceEnabled {
		t.Skip("under the race detector sync.Pool drops a share of what it is given: echo's buffers")
	}
	const lines = 2000
	script := manyLines(lines)
	s := newSession(t, kernel.ProfileHost)
	guard, err := newGuardFloor(io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ours := testing.AllocsPerRun(3, func() {
		if res, err := s.Run(ctx, script, kernel.RunOptions{}); err != nil || res.ExitCode != 0 {
			t.Fatalf("shelter: %v, exit %d", err, res.ExitCode)
		}
	})
	floor := testing.AllocsPerRun(3, func() {
		if status, err := guard.run(ctx, script); err != nil || status != 0 {
			t.Fatalf("the guard floor: %v, status %d", err, status)
		}
	})
	// What a call costs once (its frame, the sinks' growth), spread over
	// its lines, is about 0.1 a line; one more allocation a line is 1.
	if per := (ours - floor) / lines; per > 0.5 {
		t.Errorf("shelter allocates %.2f more times a line than the guard floor (%.0f against %.0f a call)", per, ours, floor)
	}
}
