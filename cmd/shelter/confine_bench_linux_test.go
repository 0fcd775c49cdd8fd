package main

import (
	"context"
	"os"
	"os/exec"
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
