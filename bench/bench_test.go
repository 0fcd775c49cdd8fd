package bench

import (
	"context"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/internal/scripts"
	"github.com/shelter-sh/shelter/kernel"
)

// side is one arm of a comparison: its name in the metrics and one op.
type side struct {
	name string
	run  func()
}

// compare runs every side once per op, in turn, in one b.Loop, and
// reports each side's time per op and, for every side after the first,
// how many times the time of base (an index of sides) it takes. All sides
// see the same machine at the same moment, so the ratios are the figures
// to compare between runs. It returns each side's total time.
func compare(b *testing.B, base int, sides ...side) []time.Duration {
	b.Helper()
	spent := make([]time.Duration, len(sides))
	for b.Loop() {
		for i, sd := range sides {
			begin := time.Now()
			sd.run()
			spent[i] += time.Since(begin)
		}
	}
	n := float64(b.N)
	for i, sd := range sides {
		b.ReportMetric(float64(spent[i].Nanoseconds())/1e3/n, sd.name+"-µs/op")
		if i != base {
			b.ReportMetric(float64(spent[i])/float64(spent[base]), sd.name+"/"+sides[base].name)
		}
	}
	return spent
}

// pair compares ours with theirs: ours/theirs is how many times the
// floor's time shelter takes.
func pair(b *testing.B, ours, theirs string, runOurs, runTheirs func()) {
	b.Helper()
	compare(b, 1, side{ours, runOurs}, side{theirs, runTheirs})
}

// benchScript compares script on a host-profile session with the bare
// runner and with the guard floor (newGuardFloor); all must print want.
// It reports shelter/mvdan, guard/mvdan (what the least checking costs)
// and shelter/guard (what shelter costs above that).
func benchScript(b *testing.B, script, want string) {
	s := newSession(b, kernel.ProfileHost)
	bare, guard := newFloorBuffers(b), newFloorWith(b, newGuardFloor)
	floorSide := func(name string, f *floor) side {
		return side{name, func() {
			if out, _ := f.run(b, script); out != want {
				b.Fatalf("%s printed %q, want %q", name, out, want)
			}
		}}
	}
	shelterSide := side{"shelter", func() {
		if out, _ := shelter(b, s, script); out != want {
			b.Fatalf("shelter printed %q, want %q", out, want)
		}
	}}
	spent := compare(b, 1, shelterSide, floorSide("mvdan", bare), floorSide("guard", guard))
	b.ReportMetric(float64(spent[0])/float64(spent[2]), "shelter/guard")
}

// benchBash compares script on a host-profile session with `bash -c`.
func benchBash(b *testing.B, script, want string) {
	path := lookBash(b)
	s := newSession(b, kernel.ProfileHost)
	pair(b, "shelter", "bash",
		func() {
			if out, _ := shelter(b, s, script); out != want {
				b.Fatalf("shelter printed %q, want %q", out, want)
			}
		},
		func() {
			if out, _ := bash(b, path, script); out != want {
				b.Fatalf("bash printed %q, want %q", out, want)
			}
		})
}

// BenchmarkEcho is one call of `echo hi`: Session.Run (parse, static
// pass, guard, capture, the interpreter) against parse and run on a bare
// runner.
func BenchmarkEcho(b *testing.B) { benchScript(b, "echo hi", "hi\n") }

// BenchmarkEchoBash is `echo hi` through Session.Run and through a new
// `bash -c`.
func BenchmarkEchoBash(b *testing.B) { benchBash(b, "echo hi", "hi\n") }

// serveYield is the yield point serve gives a bash call that names none
// (its --yield default).
const serveYield = 45 * time.Second

// BenchmarkRunEchoYield is `echo hi` through Session.Run with a yield
// point, as serve runs every call (RunOptions.Yield, serveYield: the
// call ends long before it), and without one, in turn on one
// agent-profile session: what being able to yield costs a call that
// does not. `echo hi` has nothing to wait for, so it runs as a call
// without a yield point; BenchmarkRunLoopYield measures a call that may
// wait.
func BenchmarkRunEchoYield(b *testing.B) { benchYield(b, "echo hi") }

// BenchmarkRunFuncYield is BenchmarkRunEchoYield for a call of a
// function whose body has nothing to wait for: the script's own on the
// first run, the session's from then on.
func BenchmarkRunFuncYield(b *testing.B) { benchYield(b, "f() { echo hi; }; f") }

// BenchmarkRunLoopYield is BenchmarkRunEchoYield for a call that may
// wait (a loop that runs once; another could loop for ever), which takes
// the snapshot of the session's state and runs on a goroutine of its
// own.
func BenchmarkRunLoopYield(b *testing.B) {
	benchYield(b, "for ((i = 0; i < 1; i++)); do echo hi; done")
}

func benchYield(b *testing.B, script string) {
	s := newSession(b, kernel.ProfileAgent)
	run := func(name string, opts kernel.RunOptions) func() {
		return func() {
			res, err := s.Run(context.Background(), script, opts)
			if err != nil || res.Stdout != "hi\n" || res.Yielded {
				b.Fatalf("%s: %v: printed %q, yielded %v", name, err, res.Stdout, res.Yielded)
			}
		}
	}
	pair(b, "yield", "plain", run("yield", kernel.RunOptions{Yield: serveYield}), run("plain", kernel.RunOptions{}))
}

// BenchmarkSmallScript is smallScript, an agent's typical call.
func BenchmarkSmallScript(b *testing.B) { benchScript(b, smallScript, smallScriptOutput) }

// BenchmarkTrue runs the program /bin/true: both sides fork and exec it.
func BenchmarkTrue(b *testing.B) { benchScript(b, "/bin/true", "") }

// BenchmarkTrueBash runs /bin/true through Session.Run and `bash -c`.
func BenchmarkTrueBash(b *testing.B) { benchBash(b, "/bin/true", "") }

// BenchmarkThousandStatements is a script of 1,000 top-level statements.
func BenchmarkThousandStatements(b *testing.B) {
	benchScript(b, scripts.ThousandStatements(), scripts.ThousandStatementsOutput)
}

// BenchmarkHeavyOutput prints 200,000 lines: on an agent-profile session
// (32 KiB kept, the rest spilled to a file), on a bare runner writing to
// io.Discard, and on the guard floor writing there too, whose call
// handler each echo passes, as shelter's.
func BenchmarkHeavyOutput(b *testing.B) {
	script := manyLines(heavyLines)
	s := newSession(b, kernel.ProfileAgent)
	r, err := newFloor(io.Discard, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	g, err := newGuardFloor(io.Discard, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	size := linesBytes(heavyLines)
	floorSide := func(name string, f *floorRunner) side {
		return side{name, func() {
			if status, err := f.run(ctx, script); err != nil || status != 0 {
				b.Fatalf("%s: %v, status %d", name, err, status)
			}
		}}
	}
	spent := compare(b, 1,
		side{"shelter", func() {
			res, err := s.Run(ctx, script, kernel.RunOptions{})
			if err != nil || res.ExitCode != 0 || !res.Truncated || res.StdoutBytes != size {
				b.Fatalf("shelter: %v: exit %d, truncated %v, %d bytes", err, res.ExitCode, res.Truncated, res.StdoutBytes)
			}
		}},
		floorSide("mvdan", r), floorSide("guard", g))
	b.ReportMetric(float64(spent[0])/float64(spent[2]), "shelter/guard")
}

// BenchmarkNewSession is NewSession and Close on a host-profile kernel
// against interp.New, the bare runner's set-up.
func BenchmarkNewSession(b *testing.B) {
	k := newKernel(b, kernel.ProfileHost)
	dir := b.TempDir()
	env := floorEnv()
	pair(b, "shelter", "mvdan",
		func() {
			s, err := k.NewSession(kernel.SessionOptions{Dir: dir})
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
		},
		func() {
			if _, err := interp.New(interp.StdIO(nil, io.Discard, io.Discard), interp.Env(env), interp.Dir(dir)); err != nil {
				b.Fatal(err)
			}
		})
}

// BenchmarkColdStart starts the built CLI, `shelter -c true`, a program
// linking the kernel only (bench/testdata/kernelonly, without and with
// the child subreaper the CLI turns on), the deps program (linking what
// the CLI links from other modules and doing nothing: the floor of the
// CLI's start) and `bash -c true`, in turn, once each per op; where
// there is a C compiler, the CLI built with cgo too ("shelter-cgo"). The
// others are built with CGO_ENABLED=0. It reports each one's
// wall and CPU time (user+system from the child's rusage), the CPU
// ratios to bash and the CLI's CPU ratio to the deps program.
func BenchmarkColdStart(b *testing.B) { coldStart(b, "true", true) }

// BenchmarkColdStartExternals is BenchmarkColdStart with a script that
// runs /bin/true twenty times, without the deps program and the cgo
// build: what each program a CLI script starts adds to the start.
func BenchmarkColdStartExternals(b *testing.B) {
	coldStart(b, strings.Repeat("/bin/true\n", 20), false)
}

// coldStart starts the sides of BenchmarkColdStart with script; floors
// adds the deps program and the CLI built with cgo.
func coldStart(b *testing.B, script string, floors bool) {
	bins := buildBinariesWith(b, "0")
	type side struct {
		name string
		argv []string
	}
	sides := []side{
		{"shelter", []string{bins.shelter, "-c", script}},
		{"kernel", []string{bins.kernelOnly, "-c", script}},
		{"kernel+subreaper", []string{bins.kernelOnly, "-subreaper", "-c", script}},
	}
	deps := -1
	if floors {
		deps = len(sides)
		sides = append(sides, side{"deps", []string{bins.deps}})
		if cgo := buildCgoCLI(b); cgo != "" {
			sides = append(sides, side{"shelter-cgo", []string{cgo, "-c", script}})
		}
	}
	sides = append(sides, side{"bash", []string{lookBash(b), "-c", script}})
	wall := make([]time.Duration, len(sides))
	cpu := make([]time.Duration, len(sides))
	for b.Loop() {
		for i, side := range sides {
			_, w, c := start(b, side.argv...)
			wall[i] += w
			cpu[i] += c
		}
	}
	n := float64(b.N)
	bash := len(sides) - 1
	for i, side := range sides {
		b.ReportMetric(float64(wall[i].Nanoseconds())/1e3/n, side.name+"-wall-µs/op")
		b.ReportMetric(float64(cpu[i].Nanoseconds())/1e3/n, side.name+"-cpu-µs/op")
		if i != bash {
			b.ReportMetric(float64(cpu[i])/float64(cpu[bash]), side.name+"/bash-cpu")
		}
	}
	b.ReportMetric(float64(wall[0])/float64(wall[bash]), "shelter/bash-wall")
	if deps >= 0 {
		b.ReportMetric(float64(cpu[0])/float64(cpu[deps]), "shelter/deps-cpu")
	}
}

// idleSessions is how many sessions BenchmarkIdleSession holds at once.
const idleSessions = 100

// BenchmarkIdleSession holds idleSessions sessions that each ran one
// call, and reports the live heap and the file descriptors each holds;
// beside them, the heap of a bare runner that ran the same call.
func BenchmarkIdleSession(b *testing.B) {
	k := newKernel(b, kernel.ProfileHost)
	dir := b.TempDir()
	ctx := context.Background()
	var heap, floorHeap int64
	var fds int
	sessions := make([]*kernel.Session, idleSessions)
	runners := make([]*floorRunner, idleSessions)
	for b.Loop() {
		before, fdsBefore := heapInUse(), openFDs()
		for i := range sessions {
			s, err := k.NewSession(kernel.SessionOptions{Dir: dir})
			if err != nil {
				b.Fatal(err)
			}
			if res, err := s.Run(ctx, "echo hi", kernel.RunOptions{}); err != nil || res.Stdout != "hi\n" {
				b.Fatalf("%v %+v", err, res)
			}
			sessions[i] = s
		}
		heap += heapInUse() - before
		fds += openFDs() - fdsBefore
		for i, s := range sessions {
			s.Close()
			sessions[i] = nil
		}

		before = heapInUse()
		for i := range runners {
			r, err := newFloor(io.Discard, io.Discard)
			if err != nil {
				b.Fatal(err)
			}
			if status, err := r.run(ctx, "echo hi"); err != nil || status != 0 {
				b.Fatalf("bare mvdan/sh: %v, status %d", err, status)
			}
			runners[i] = r
		}
		floorHeap += heapInUse() - before
		clear(runners)
	}
	per := float64(b.N * idleSessions)
	b.ReportMetric(float64(heap)/per, "shelter-B/session")
	b.ReportMetric(float64(floorHeap)/per, "mvdan-B/runner")
	b.ReportMetric(float64(heap)/float64(floorHeap), "shelter/mvdan-heap")
	if runtime.GOOS == "linux" {
		b.ReportMetric(float64(fds)/per, "fds/session")
	}
}
