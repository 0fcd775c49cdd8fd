package spawn_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/creack/pty"

	"github.com/shelter-sh/shelter/internal/testpar"
	"github.com/shelter-sh/shelter/spawn"
)

// payload is what call i prints: its number, then a body of a length
// that varies with i, well under a pipe's capacity.
func payload(i int) string {
	return fmt.Sprintf("call %d:%s.\n", i, strings.Repeat(string(rune('a'+i%26)), 500+i%5000))
}

// A reader late past the wait delay still gets everything a finished
// child wrote: the pipe is drained before it is closed.
func TestRunLateReaderLosesNothing(t *testing.T) {
	defer spawn.StallOutput()()
	const workers = 20
	calls := testpar.Rounds(1000)
	var wg sync.WaitGroup
	errs := make(chan string, calls)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < calls; i += workers {
				want := payload(i)
				out, errOut := spawn.NewSink(0, 0, "", "out"), spawn.NewSink(0, 0, "", "err")
				c := &spawn.Cmd{Path: "/usr/bin/printf", Args: []string{"printf", "%s", want}, Dir: "/", Stdout: out, Stderr: errOut, Grace: -1}
				status, err := spawn.Run(context.Background(), c)
				if got := string(out.Bytes()); status != 0 || err != nil || got != want {
					errs <- fmt.Sprintf("call %d: Run = %d, %v; printed %d bytes %.40q..., want %d bytes %.40q...", i, status, err, len(got), got, len(want), want)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	n := 0
	for e := range errs {
		if n++; n <= 5 {
			t.Error(e)
		}
	}
	if n > 5 {
		t.Errorf("... and %d more of %d calls lost output", n-5, calls)
	}
}

// The same on a terminal: what the child printed before it exited is
// read from the master after the delay.
func TestRunTTYLateReaderLosesNothing(t *testing.T) {
	defer spawn.StallOutput()()
	const calls, workers = 200, 10
	var wg sync.WaitGroup
	errs := make(chan string, calls)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < calls; i += workers {
				want := payload(i)[:200+i%1000] + "\n"
				var out lockedBuffer
				c := &spawn.Cmd{Path: "/usr/bin/printf", Args: []string{"printf", "%s", want}, Dir: "/", Stdout: &out, Grace: -1, TTY: &pty.Winsize{Rows: 24, Cols: 80}}
				status, err := spawn.Run(context.Background(), c)
				got := strings.ReplaceAll(out.String(), "\r\n", "\n")
				if status != 0 || err != nil || got != want {
					errs <- fmt.Sprintf("call %d: Run = %d, %v; printed %d bytes %.40q..., want %d bytes %.40q...", i, status, err, len(got), got, len(want), want)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	n := 0
	for e := range errs {
		if n++; n <= 5 {
			t.Error(e)
		}
	}
	if n > 5 {
		t.Errorf("... and %d more of %d calls lost output", n-5, calls)
	}
}
