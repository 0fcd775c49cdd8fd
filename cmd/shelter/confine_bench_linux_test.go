package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/spawn"
)

// BenchmarkConfinedStart is what --confine adds to a program's start: a
// confined start (the helper, this binary, run again before the program,
// in a network namespace of its own) beside an unconfined one and beside
// the floor, unshare -n of the same program (a network namespace alone).
// Report the ratio of confined to unshare; docs/performance.md has the
// figures.
//
//	go test ./cmd/shelter -run '^$' -bench ConfinedStart -benchtime 200x
func BenchmarkConfinedStart(b *testing.B) {
	if missing := spawn.Probe().Missing(false); len(missing) > 0 {
		b.Skipf("this host cannot confine: %v", missing)
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		b.Skip("no unshare")
	}
	root := b.TempDir()
	conf := &spawn.Confinement{Read: spawn.SystemRead(), Write: append([]string{root}, spawn.SystemDevices()...)}
	unshareArgs := []string{"unshare", "-n"}
	if os.Geteuid() != 0 {
		unshareArgs = []string{"unshare", "-r", "-n"}
	}
	for _, prog := range [][]string{{"/bin/true"}, {"/usr/bin/git", "--version"}} {
		if _, err := os.Stat(prog[0]); err != nil {
			continue
		}
		run := func(b *testing.B, c *spawn.Cmd) {
			for b.Loop() {
				c := *c
				if status, err := spawn.Run(context.Background(), &c); status != 0 || err != nil {
					b.Fatalf("%d %v", status, err)
				}
			}
		}
		base := spawn.Cmd{Path: prog[0], Args: prog, Dir: root}
		b.Run(prog[0]+"/unconfined", func(b *testing.B) { run(b, &base) })
		b.Run(prog[0]+"/unshare-n", func(b *testing.B) {
			c := base
			c.Path, c.Args = unshare, append(append([]string{}, unshareArgs...), prog...)
			run(b, &c)
		})
		b.Run(prog[0]+"/confined", func(b *testing.B) {
			c := base
			c.Confine = conf
			run(b, &c)
		})
	}
}

// BenchmarkConfinedStartCLI is the same through the shelter a user runs:
// the CLI built static (CGO_ENABLED=0, as the Dockerfile and README build
// it), whose own binary is the helper, running b.N starts in one call
// with --confine on, beside b.N starts of unshare -n with --confine off.
//
//	go test ./cmd/shelter -run '^$' -bench ConfinedStartCLI -benchtime 300x
func BenchmarkConfinedStartCLI(b *testing.B) {
	if missing := spawn.Probe().Missing(false); len(missing) > 0 {
		b.Skipf("this host cannot confine: %v", missing)
	}
	if os.Geteuid() != 0 {
		b.Skip("the floor, unshare -n, needs root")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go to build the CLI")
	}
	bin := filepath.Join(b.TempDir(), "shelter")
	build := exec.Command(goBin, "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building the CLI: %v\n%s", err, out)
	}
	dir := b.TempDir()
	for _, prog := range []string{"/bin/true", "/usr/bin/git --version"} {
		for _, arm := range []struct{ name, confine, prefix string }{
			{"unconfined", "off", ""}, {"unshare-n", "off", "unshare -n "}, {"confined", "on", ""},
		} {
			b.Run(strings.Fields(prog)[0]+"/"+arm.name, func(b *testing.B) {
				script := fmt.Sprintf("for i in $(seq %d); do %s%s >/dev/null || exit 1; done", b.N, arm.prefix, prog)
				cmd := exec.Command(bin, "--profile", "host", "--confine", arm.confine, "-c", script)
				cmd.Dir = dir
				b.ResetTimer()
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v\n%s", err, out)
				}
			})
		}
	}
}
