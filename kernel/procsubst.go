package kernel

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
)

// procSubstFIFOPrefix begins the name of the FIFO mvdan/sh makes in
// $TMPDIR for a process substitution, which it removes once the
// substitution's commands have ended.
const procSubstFIFOPrefix = "sh-interp-"

// unblockProcSubsts frees the process substitutions whose FIFO nothing
// opened (`x=<(cmd)`, `echo <(cmd)`): mvdan/sh opens the FIFO for them
// and waits, without end, for the other side, where bash's /dev/fd pipe
// lets the commands run at once. wait would wait for them for ever, and
// the end of a call too. Each FIFO still in dir gets the side it may
// lack, opened without blocking and closed at once: a waiting open
// returns, and the commands see an empty input or a closed output, as
// bash's do once the command that held the pipe ended. A FIFO whose
// sides are open already is left as it was: nothing is read from it or
// written to it.
func unblockProcSubsts(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), procSubstFIFOPrefix) || e.Type()&os.ModeNamedPipe == 0 {
			continue
		}
		path := filepath.Join(dir, e.Name())
		for _, mode := range []int{syscall.O_RDONLY, syscall.O_WRONLY} {
			fd, err := syscall.Open(path, mode|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
			if err == nil {
				syscall.Close(fd)
			}
		}
	}
}

// awaitBackgrounds waits until each of done is closed, freeing what waits
// on its FIFO in dir meanwhile (unblockProcSubsts, again while one is
// left: a substitution's commands may not have begun their open yet), or
// until ctx ends; it reports whether all were. mvdan/sh's own wait waits
// without end and past any context: the kernel waits first, so that it
// returns at once.
func awaitBackgrounds(ctx context.Context, dir string, done []<-chan struct{}) bool {
	pause := time.Millisecond
	for _, d := range done {
		for {
			select {
			case <-d:
			default:
				unblockProcSubsts(dir)
				timer := time.NewTimer(pause)
				select {
				case <-d:
				case <-ctx.Done():
					timer.Stop()
					return false
				case <-timer.C:
					pause = min(2*pause, 50*time.Millisecond)
					continue
				}
				timer.Stop()
			}
			break
		}
	}
	return true
}

// ownWait readies mvdan's own wait of args in the shell of hc: the
// backgrounds it waits for (every one, or those named gN) have ended once
// it returns true, so that wait returns at once; false when ctx ended
// first.
func (s *Session) ownWait(ctx context.Context, hc interp.HandlerContext, args []string) bool {
	all := mvdanpriv.Backgrounds(mvdanpriv.HandlerRunner(hc))
	var done []<-chan struct{}
	named := false
	for _, a := range args[1:] {
		n, err := strconv.Atoi(strings.TrimPrefix(a, "g"))
		if !strings.HasPrefix(a, "g") || err != nil {
			continue
		}
		named = true
		if n >= 1 && n <= len(all) {
			done = append(done, all[n-1])
		}
	}
	if !named {
		done = all
	}
	return awaitBackgrounds(ctx, s.tmp.Path(), done)
}

// awaitProcSubsts waits, at the end of a call whose script has a process
// substitution, until those its shell r started have ended, as bash's
// caller reads their output to its end: `seq 3 > >(tac)` prints what tac
// prints. The call's nested backgrounds (`cmd &` in a function) are not
// waited for: they end with the call.
func (s *Session) awaitProcSubsts(ctx context.Context, st *callState, r *interp.Runner) {
	all := mvdanpriv.Backgrounds(r)
	var done []<-chan struct{}
	st.bg.mu.Lock()
	for i, d := range all {
		if _, isJob := st.bg.names[bgName{r, "g" + strconv.Itoa(i+1)}]; !isJob {
			done = append(done, d)
		}
	}
	st.bg.mu.Unlock()
	awaitBackgrounds(ctx, s.tmp.Path(), done)
}
