package spawn

import (
	"io/fs"
	"testing"
)

// BenchmarkUmaskHop is what Cmd.Umask adds to a start: the hop to the
// mask's starter thread and back.
func BenchmarkUmaskHop(b *testing.B) {
	mask := fs.FileMode(0o077)
	for b.Loop() {
		if err := startOnThread(thread{umask: &mask}, func() error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
