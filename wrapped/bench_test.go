package wrapped_test

import (
	"os"
	"testing"

	"github.com/shelter-sh/shelter/wrapped"
)

// BenchmarkPlan is parse, check and render of one git log call against the
// git declaration of examples/tools.yaml.
func BenchmarkPlan(b *testing.B) {
	cmds, err := wrapped.LoadFile(examplesFile, wrapped.LoadOptions{Path: os.Getenv("PATH")})
	if err != nil {
		b.Skip(err)
	}
	var git *wrapped.Command
	for _, c := range cmds {
		if c.Name() == "git" {
			git = c
		}
	}
	args := []string{"log", "-n", "5", "--oneline", "--since=2.days.ago", "main", "--", "docs"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := git.Plan(args, "/"); err != nil {
			b.Fatal(err)
		}
	}
}
