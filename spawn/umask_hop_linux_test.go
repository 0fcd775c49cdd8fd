package spawn

import "testing"

// BenchmarkUmaskHop is what Cmd.Umask adds to a start: the hop to the
// mask's starter thread and back.
func BenchmarkUmaskHop(b *testing.B) {
	for b.Loop() {
		if err := startWithUmask(0o077, func() error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
