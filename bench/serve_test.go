package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// loadCalls is how many calls each simulated agent of
// BenchmarkServeHTTPLoad makes.
const loadCalls = 20

// loadEnv turns on BenchmarkServeHTTPLoad's 1,000-session arm, which
// takes longer than a benchmark run should by default.
const loadEnv = "SHELTER_BENCH_LOAD"

// BenchmarkServeHTTPLoad is 1, 100 and 1,000 agents at once, each its
// own session of the SDK's client over streamable HTTP making loadCalls
// bash calls of `echo hi`, against `shelter serve --http` (a shell
// session each: the first call starts it, the others name it) and
// against the SDK floor (bench/testdata/sdkfloor: the SDK's stateless
// HTTP server, as serve's, whose tool answers at once). Each op starts
// each server as a child process, connects every agent, then times the
// calls; it stops the server after. It reports, for each server, calls a
// second, the median and 99th percentile of a call's latency, and the
// growth of the server's VmRSS and VmHWM (Linux) from before the agents
// connect to after their last call, per agent; and shelter/floor, the
// ratio of the wall times of the calls. At one agent the memory growth
// is mostly what any first call pages in; the client's CPU is the test
// process's, on the same cores as the server's. The 1,000-agent arm runs
// only with SHELTER_BENCH_LOAD=1.
func BenchmarkServeHTTPLoad(b *testing.B) {
	shelterBin, floorBin := builtProgram(b, "./cmd/shelter"), builtProgram(b, "./bench/testdata/sdkfloor")
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			if n >= 1000 && os.Getenv(loadEnv) == "" {
				b.Skipf("%d sessions: set %s=1 to run this arm", n, loadEnv)
			}
			needFiles(b, n+100)
			arms := []*loadArm{
				{name: "shelter", argv: []string{shelterBin, "serve", "--http", "127.0.0.1:0", "--cwd", b.TempDir(), "--max-sessions", "0"}},
				{name: "floor", argv: []string{floorBin, "-http", "127.0.0.1:0"}},
			}
			for b.Loop() {
				for _, a := range arms {
					a.add(runLoad(b, a.argv, n, loadCalls))
				}
			}
			agents := float64(b.N * n)
			for _, a := range arms {
				slices.Sort(a.latencies)
				b.ReportMetric(float64(len(a.latencies))/a.wall.Seconds(), a.name+"-calls/s")
				b.ReportMetric(micros(percentile(a.latencies, 50)), a.name+"-p50-µs")
				b.ReportMetric(micros(percentile(a.latencies, 99)), a.name+"-p99-µs")
				if runtime.GOOS == "linux" {
					b.ReportMetric(float64(a.rss)/1024/agents, a.name+"-RSS-KB/session")
					b.ReportMetric(float64(a.hwm)/1024/agents, a.name+"-HWM-KB/session")
				}
			}
			ours, floor := arms[0], arms[1]
			b.ReportMetric(float64(ours.wall)/float64(floor.wall), "shelter/floor")
			b.ReportMetric(float64(percentile(ours.latencies, 99))/float64(percentile(floor.latencies, 99)), "shelter/floor-p99")
		})
	}
}

// BenchmarkServeStdioEcho is one bash call of `echo hi` from the SDK's
// client over stdio to a `shelter serve` child (the sandbox profile,
// in its default session) and to the SDK floor's child on the SDK's
// stdio transport, in turn.
func BenchmarkServeStdioEcho(b *testing.B) {
	ours := connectStdio(b, builtProgram(b, "./cmd/shelter"), "serve", "--cwd", b.TempDir())
	floor := connectStdio(b, builtProgram(b, "./bench/testdata/sdkfloor"))
	ctx := context.Background()
	params := &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo hi"}}
	call := func(name string, cs *sdk.ClientSession) func() {
		return func() {
			res, err := cs.CallTool(ctx, params)
			if err := echoAnswer(name, res, err); err != nil {
				b.Fatal(err)
			}
		}
	}
	pair(b, "shelter", "floor", call("shelter", ours), call("floor", floor))
}

// loadArm is one server of BenchmarkServeHTTPLoad and what its runs
// measured, summed.
type loadArm struct {
	name string
	argv []string
	load
}

func (a *loadArm) add(l load) {
	a.latencies = append(a.latencies, l.latencies...)
	a.wall += l.wall
	a.rss += l.rss
	a.hwm += l.hwm
}

// load is what runLoad measured.
type load struct {
	latencies []time.Duration // of each call
	wall      time.Duration   // from the first call to the last answer
	rss, hwm  int64           // the server's VmRSS and VmHWM growth, bytes
}

// runLoad starts the HTTP server argv, connects sessions SDK clients to
// it at once, and has each make calls bash calls of `echo hi` at once,
// the first without a session and the others with the one the first
// names, if any. It checks every answer and stops the server.
func runLoad(tb testing.TB, argv []string, sessions, calls int) load {
	tb.Helper()
	srv := startHTTP(tb, argv...)
	defer srv.stop(tb)
	rss, hwm := srv.memory(tb)
	tr := &http.Transport{MaxIdleConnsPerHost: sessions}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	clients := make([]*sdk.ClientSession, sessions)
	defer func() {
		for _, cs := range clients {
			if cs != nil {
				cs.Close()
			}
		}
	}()
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	err := each(sessions, func(i int) error {
		cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{
			Endpoint: srv.url, HTTPClient: &http.Client{Transport: tr}, DisableStandaloneSSE: true,
		}, nil)
		clients[i] = cs
		return err
	})
	if err != nil {
		tb.Fatalf("%s: connect: %v", argv[0], err)
	}

	latencies := make([]time.Duration, sessions*calls)
	begin := time.Now()
	err = each(sessions, func(i int) error {
		args := map[string]any{"command": "echo hi"}
		for j := range calls {
			start := time.Now()
			res, err := clients[i].CallTool(ctx, &sdk.CallToolParams{Name: "bash", Arguments: args})
			latencies[i*calls+j] = time.Since(start)
			if err := echoAnswer(argv[0], res, err); err != nil {
				return err
			}
			if m, ok := res.StructuredContent.(map[string]any); ok && j == 0 {
				if s, ok := m["session"].(string); ok {
					args["session"] = s
				}
			}
		}
		return nil
	})
	wall := time.Since(begin)
	if err != nil {
		tb.Fatal(err)
	}
	rssAfter, hwmAfter := srv.memory(tb)
	return load{latencies: latencies, wall: wall, rss: rssAfter - rss, hwm: hwmAfter - hwm}
}

// needFiles skips b unless the process may hold n open files: a
// connection for each agent, and the server as many. Package os raises
// a Go program's soft limit of open files to the hard limit when it
// starts: this process's, and the servers' too.
func needFiles(b *testing.B, n int) {
	var lim syscall.Rlimit
	// Cur is a uint64 on Linux and an int64 on the BSDs.
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil && uint64(lim.Cur) < uint64(n) {
		b.Skipf("%d open files at most (ulimit -n), want %d", lim.Cur, n)
	}
}

// echoAnswer checks the answer to a bash call of `echo hi`: its text
// begins with what shelter's does.
func echoAnswer(server string, res *sdk.CallToolResult, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %v", server, err)
	}
	const want = "hi\nexit code: 0"
	var text *sdk.TextContent
	if len(res.Content) > 0 {
		text, _ = res.Content[0].(*sdk.TextContent)
	}
	if res.IsError || text == nil || !strings.HasPrefix(text.Text, want) {
		return fmt.Errorf("%s answered %+v, want a text beginning %q", server, res.Content, want)
	}
	return nil
}

// each runs fn(0) to fn(n-1) at once and returns the first error.
func each(n int, fn func(i int) error) error {
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { errs[i] = fn(i) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// server is a child process serving MCP over HTTP.
type server struct {
	cmd *exec.Cmd
	url string
}

// startHTTP starts argv and returns once it listens, which its first
// line on stderr says: `shelter serve: listening on http://ADDR`. Its
// temporary files are in a directory of the test's.
func startHTTP(tb testing.TB, argv ...string) *server {
	tb.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tb.TempDir())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	s := &server{cmd: cmd}
	sc := bufio.NewScanner(stderr)
	if !sc.Scan() {
		s.stop(tb)
		tb.Fatalf("%s: no line on stderr", argv[0])
	}
	url, ok := strings.CutPrefix(sc.Text(), "shelter serve: listening on ")
	if !ok {
		s.stop(tb)
		tb.Fatalf("%s: first line %q", argv[0], sc.Text())
	}
	s.url = url
	go io.Copy(io.Discard, stderr)
	return s
}

// stop ends the server with SIGTERM, on which serve closes its
// sessions, and waits for it.
func (s *server) stop(tb testing.TB) {
	tb.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	if err := s.cmd.Wait(); err != nil {
		tb.Errorf("%s after SIGTERM: %v", s.cmd.Path, err)
	}
}

// memory reads the server's VmRSS and VmHWM, in bytes, from
// /proc/PID/status; zeros where there is none.
func (s *server) memory(tb testing.TB) (rss, hwm int64) {
	tb.Helper()
	if runtime.GOOS != "linux" {
		return 0, 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		tb.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		name, value, _ := strings.Cut(line, ":")
		var p *int64
		switch name {
		case "VmRSS":
			p = &rss
		case "VmHWM":
			p = &hwm
		default:
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			tb.Fatalf("/proc/%d/status: %q", s.cmd.Process.Pid, line)
		}
		*p = kb << 10
	}
	return rss, hwm
}

// connectStdio starts argv with the SDK's client on its stdin and
// stdout; the client is closed, and the child ended, when the test
// ends.
func connectStdio(tb testing.TB, argv ...string) *sdk.ClientSession {
	tb.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: exec.Command(argv[0], argv[1:]...)}, nil)
	if err != nil {
		tb.Fatalf("%s: %v", argv[0], err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

// percentile is the p-th percentile of sorted.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)*p/100, len(sorted)-1)]
}

func micros(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
