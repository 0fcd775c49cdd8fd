package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/shelter-sh/shelter/internal/proctest"
	"github.com/shelter-sh/shelter/internal/testpar"
	"github.com/shelter-sh/shelter/spawn"
)

func TestMain(m *testing.M) {
	spawn.Init() // confined children start through this binary
	if strings.HasSuffix(filepath.Base(os.Args[0]), ".test") {
		// The test binary itself, not one of the commands below that
		// testscript runs it as. Its in-process runs must not reap the
		// terminals' children the tests wait for.
		flag.Parse()
		testpar.Raise()
		subreaper = false
	}
	testscript.Main(m, map[string]func(){
		"shelter":            main,
		"shelter-config":     func() { os.Exit(printConfig(os.Args[1:], os.Stdout, os.Stderr)) },
		"shelter-fullscreen": fullscreenMain,
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", os.Getenv("PATH"))
			env.Setenv("CLI_DOC", cliDoc)
			env.Setenv("SHELTER_TEST_SECRET", "hunter2")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"jsonfields": jsonFields,
			"cmpdoc":     cmpDoc,
			"nolive":     noLive,
			"treehash":   treeHash,
		},
		Condition: func(cond string) (bool, error) {
			if cond == "race" {
				return raceEnabled, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// noLive checks that no process whose command line holds the marker is
// left, waiting up to a minute for ones being ended: nolive MARKER.
func noLive(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: nolive MARKER")
	}
	deadline := time.Now().Add(time.Minute)
	for {
		left := proctest.With(args[0])
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("processes left: %+v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// printConfig is `shelter-config [flags]`: the configuration the running
// flags build, for what a run cannot show (a timeout of 0 against one of
// 120 s), one field a line.
func printConfig(args []string, stdout, stderr io.Writer) int {
	var o options
	if _, err := o.parseFlags("run", args); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	cfg, err := o.config(nil)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	fmt.Fprintf(stdout, "profile %s\ntimeout %s\noutput_limit %d\nallow_external %q\nroot %q\n",
		cfg.Profile, cfg.Timeout, cfg.OutputLimit, cfg.AllowExternal, cfg.Root)
	return 0
}

// cmpDoc checks that stdout is docs/cli.md's block for a verb's help:
// cmpdoc VERB.
func cmpDoc(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: cmpdoc VERB")
	}
	blocks, err := helpBlocks(ts.Getenv("CLI_DOC"))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	want, ok := blocks[args[0]]
	if !ok {
		ts.Fatalf("docs/cli.md has no block for %s --help", args[0])
	}
	if got := ts.ReadFile("stdout"); (got == want) == neg {
		ts.Fatalf("stdout is not docs/cli.md's block for %s:\n%s", args[0], diffLines(got, want))
	}
}

// treeHash prints a line for every entry under DIR but the SKIP ones
// (names relative to DIR): its path, type, link target and the SHA-256 of
// a regular file's content, sorted: treehash DIR [SKIP...]. Compare two of
// them to show that nothing in a tree changed.
func treeHash(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || neg {
		ts.Fatalf("usage: treehash DIR [SKIP...]")
	}
	dir := ts.MkAbs(args[0])
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if slices.Contains(args[1:], rel) {
			return filepath.SkipDir
		}
		line := rel + " " + d.Type().String()
		switch {
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			line += " -> " + target
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		ts.Fatalf("%v", err)
	}
	slices.Sort(lines)
	fmt.Fprintln(ts.Stdout(), strings.Join(lines, "\n"))
}

// jsonFields checks that stdout is one JSON object with exactly the named
// fields, in that order: jsonfields name...
func jsonFields(ts *testscript.TestScript, neg bool, args []string) {
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile("stdout")))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		ts.Fatalf("stdout is not a JSON object: %v", err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			ts.Fatalf("%v", err)
		}
		keys = append(keys, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			ts.Fatalf("%v", err)
		}
	}
	if slices.Equal(keys, args) == neg {
		ts.Fatalf("fields %v, want %v", keys, args)
	}
}

func TestVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"version"}, nil, &stdout, &stderr); code != 0 || !strings.HasPrefix(stdout.String(), "shelter ") {
		t.Errorf("exit %d stdout %q stderr %q", code, stdout.String(), stderr.String())
	}
	fmt.Fprint(&stdout)
}
