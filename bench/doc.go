// Package bench measures shelter against its floor in one run: the same
// work through a kernel.Session and through bare mvdan.cc/sh (one
// syntax.Parser and one interp.Runner, kept from call to call as a
// session keeps its own, with nothing of shelter around them), and,
// where a fork is the point, through `bash -c`. Each benchmark
// alternates the sides inside one b.Loop and reports each side's time
// per op and their ratio with b.ReportMetric, so that a noisy machine
// slows both sides alike and the ratio is what to read.
//
// The cases, each a Benchmark of bench_test.go (docs/performance.md has
// the table and the command that produced it):
//
//   - echo hi, a small script, /bin/true, a 1,000-statement script and
//     200,000 lines of output under the agent profile's output limit:
//     Session.Run against the bare runner (and `bash -c` in the
//     Bash benchmarks, which fork, so they run fewer times);
//   - NewSession+Close against interp.New;
//   - the cold start of the built CLI (`shelter -c true`) and of a
//     program that links the kernel only, against `bash -c true`, wall
//     time and CPU time from each child's rusage;
//   - the heap and file descriptors an idle session holds;
//   - `echo hi` through Session.Run with serve's yield point and without
//     (BenchmarkRunEchoYield), and a call that may wait, a function
//     (BenchmarkRunFuncYield);
//   - one bash call of `echo hi` from the go-sdk's client over stdio to a
//     `shelter serve` child and to the SDK floor's, a server of the SDK
//     alone whose one tool answers at once (bench/testdata/sdkfloor)
//     (BenchmarkServeStdioEcho);
//   - 1, 100 and 1,000 agents at once, each a client session over
//     streamable HTTP making 20 such calls, to `shelter serve --http`
//     and to the SDK floor, each started afresh as a child for every op:
//     calls a second, the median and 99th percentile latency, and the
//     server's RSS growth per agent from /proc (BenchmarkServeHTTPLoad).
//     The 1,000-agent arm takes about 40 s an op on two cores and runs
//     only with SHELTER_BENCH_LOAD=1 in the environment;
//   - `grep -rn` over 2,000 files, `sed -n '/re$/p'` on 50 MB,
//     `find | xargs wc -l` over the same files and jq on 10 MB of JSON
//     (BenchmarkGrepRecursive, BenchmarkSedLarge, BenchmarkFindXargs,
//     BenchmarkJqLarge): on a sandbox-profile session, where they are
//     shelter's builtins, against the same script on an agent-profile
//     session, where they are the host's programs (skipped for a program
//     the host lacks), and against a floor, the same work done by one Go
//     function (textfloor.go; gojq's library for jq).
//
// The inputs are generated from fixed seeds (inputs.go) once a process,
// and the CLI and the SDK floor built once, into a directory the tests
// remove when they end.
//
// TestCasesAgree runs each case once each way, the text cases on small
// inputs, and checks that they print the same thing (the lines of the
// host's find and grep -r sorted: they list a directory in the file
// system's order), so each comparison is of the same work. The package
// has no API: it exists for `go test -bench`.
package bench
