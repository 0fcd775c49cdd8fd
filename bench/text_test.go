package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/builtins"
	"github.com/shelter-sh/shelter/kernel"
)

// textCase is a script of the text benchmarks: it runs on a
// sandbox-profile session, where its commands are shelter's builtins; on
// an agent-profile session, where they are the host's programs; and as
// its floor, one Go function.
type textCase struct {
	script string
	input  textInput
	dir    string // where the script runs, under the inputs' directory
	floor  func(inputs string, w io.Writer) error
	host   []string // the host's programs the script runs there
	// unordered: the host's programs walk directories in the order the
	// file system lists them, the builtins and the floor in sorted
	// order, so the host's lines are compared sorted.
	unordered bool
}

// textInput is an input file (or tree) of the text cases and its sizes.
type textInput struct {
	name         string
	write        func(path string, size int) error
	bench, agree int // for the benchmarks and for TestCasesAgree
}

var (
	tree  = textInput{"tree", writeTree, 2000, 60}
	lines = textInput{"lines.txt", writeLines, 50 << 20, 256 << 10}
	items = textInput{"items.json", writeItems, 10 << 20, 128 << 10}
)

var (
	grepCase = textCase{
		script: "grep -rn " + needle + " .", input: tree, dir: "tree",
		floor: func(in string, w io.Writer) error { return grepFloor(filepath.Join(in, "tree"), needle, w) },
		host:  []string{"grep"}, unordered: true,
	}
	sedCase = textCase{
		script: "sed -n '/" + linesPattern + "/p' lines.txt", input: lines, dir: ".",
		floor: func(in string, w io.Writer) error {
			return sedFloor(filepath.Join(in, "lines.txt"), regexp.MustCompile(linesPattern), w)
		},
		host: []string{"sed"},
	}
	findCase = textCase{
		script: "find . -name '*.txt' | xargs wc -l", input: tree, dir: "tree",
		floor: func(in string, w io.Writer) error { return findWcFloor(filepath.Join(in, "tree"), w) },
		host:  []string{"find", "wc"}, unordered: true,
	}
	jqCase = textCase{
		script: "jq '" + itemsFilter + "' items.json", input: items, dir: ".",
		floor: func(in string, w io.Writer) error { return jqFloor(filepath.Join(in, "items.json"), itemsFilter, w) },
		host:  []string{"jq"},
	}
)

// BenchmarkGrepRecursive is `grep -rn needle .` over a tree of 2,000
// files of a few KB, a few lines of which match.
func BenchmarkGrepRecursive(b *testing.B) { benchText(b, grepCase) }

// BenchmarkSedLarge is `sed -n '/ 99[0-4]$/p'` on a 50 MB file, one line
// in two hundred of which matches.
func BenchmarkSedLarge(b *testing.B) { benchText(b, sedCase) }

// BenchmarkFindXargs is `find . -name '*.txt' | xargs wc -l` over the
// tree of BenchmarkGrepRecursive: 1,500 names, one wc.
func BenchmarkFindXargs(b *testing.B) { benchText(b, findCase) }

// BenchmarkJqLarge is `jq '.items[] | select(.n % 7 == 0) | .name'` on a
// 10 MB JSON object of items.
func BenchmarkJqLarge(b *testing.B) { benchText(b, jqCase) }

// benchText runs c on its benchmark input, made once a process: the
// builtins, the floor and, where the host has its programs, the host's,
// in turn. It reports each one's time, builtin/floor, host/floor and
// host/builtin, how many times faster the builtins are.
func benchText(b *testing.B, c textCase) {
	in := filepath.Dir(made(b, filepath.Join("inputs", c.input.name), func(path string) {
		if err := c.input.write(path, c.input.bench); err != nil {
			b.Fatal(err)
		}
	}))
	ours, host, want := checkText(b, c, in)
	size := int64(len(want))
	onSession := func(name string, s *kernel.Session) side {
		return side{name, func() {
			if res := runText(b, s, c.script); res.StdoutBytes != size {
				b.Fatalf("%s printed %d bytes, want %d", name, res.StdoutBytes, size)
			}
		}}
	}
	var buf bytes.Buffer
	sides := []side{onSession("builtin", ours), {"floor", func() {
		buf.Reset()
		if err := c.floor(in, &buf); err != nil || buf.Len() != len(want) {
			b.Fatalf("the floor: %v: %d bytes, want %d", err, buf.Len(), len(want))
		}
	}}}
	if host != nil {
		sides = append(sides, onSession("host", host))
	}
	spent := compare(b, 1, sides...)
	if host != nil {
		b.ReportMetric(float64(spent[2])/float64(spent[0]), "host/builtin")
	}
}

// checkText runs c once each way over the inputs in dir and checks that
// the builtins and the host's programs print what the floor prints; it
// returns the two sessions (host nil when the host lacks a program of
// c's) and what the floor printed.
func checkText(tb testing.TB, c textCase, inputs string) (ours, host *kernel.Session, want string) {
	tb.Helper()
	var floor strings.Builder
	if err := c.floor(inputs, &floor); err != nil {
		tb.Fatalf("the floor: %v", err)
	}
	want = floor.String()
	if want == "" {
		tb.Fatalf("the floor of %q prints nothing", c.script)
	}
	dir := filepath.Join(inputs, c.dir)
	ours = textSession(tb, kernel.ProfileSandbox, inputs, dir)
	if got := wholeStdout(tb, runText(tb, ours, c.script)); got != want {
		tb.Errorf("the builtins' %q printed what the floor does not:\n%s", c.script, firstDifference(got, want))
	}
	for _, name := range c.host {
		if _, err := exec.LookPath(name); err != nil {
			tb.Logf("no %s on this machine: no host side for %q", name, c.script)
			return ours, nil, want
		}
	}
	host = textSession(tb, kernel.ProfileAgent, inputs, dir)
	got, ordered := wholeStdout(tb, runText(tb, host, c.script)), want
	if c.unordered {
		got, ordered = sortedLines(got), sortedLines(want)
	}
	if got != ordered {
		tb.Errorf("the host's %q printed what the floor does not:\n%s", c.script, firstDifference(got, ordered))
	}
	return ours, host, want
}

// textSession is a session of profile p in dir, with root as the
// sandbox's root: on a sandbox session the builtins run, on an agent
// session the host's programs; xargs is shelter's launcher on both,
// as on the CLI's.
func textSession(tb testing.TB, p kernel.Profile, root, dir string) *kernel.Session {
	tb.Helper()
	cfg, _ := kernel.Preset(p)
	cfg.Root = root
	cfg.Tools = builtins.Launchers()
	if p == kernel.ProfileSandbox {
		cfg.Tools = append(cfg.Tools, builtins.Coreutils()...)
	}
	k, err := kernel.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: dir, DiscardSpills: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// runText runs script on s and fails the test unless it exits 0.
func runText(tb testing.TB, s *kernel.Session, script string) kernel.Result {
	tb.Helper()
	res, err := s.Run(context.Background(), script, kernel.RunOptions{})
	if err != nil || res.ExitCode != 0 {
		tb.Fatalf("%q: %v: exit %d, stderr %q", script, err, res.ExitCode, res.Stderr)
	}
	return res
}

// wholeStdout is all a call printed on stdout: past the session's output
// limit, its spill file.
func wholeStdout(tb testing.TB, res kernel.Result) string {
	tb.Helper()
	if !res.Truncated {
		return res.Stdout
	}
	b, err := os.ReadFile(res.SpillPath)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func sortedLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "")
}

// firstDifference says where got and want first differ, by line.
func firstDifference(got, want string) string {
	g, w := strings.SplitAfter(got, "\n"), strings.SplitAfter(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: %q, want %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}
