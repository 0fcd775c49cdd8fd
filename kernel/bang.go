package kernel

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
	"github.com/shelter-sh/shelter/kernel/internal/rewrite"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// A `&` nested in a function, subshell or group is mvdan/sh's own
// background: its $! is "gN", the N-th of the shell running it, which
// wait knows and kill did not. shelter makes kill know it:
//
//	bg-next; CMD & bg-launched "$!"
//
// bg-next sets bgNextVar in the shell to a new id, which the background
// shell copies as it starts; every process that shell (or one it starts)
// runs is noted under that id (note, from applyLaunch).
// bg-launched ties the shell's "gN" to the id and unsets the variable, so
// later commands of the shell are not taken for the background's. kill
// "gN" then signals the processes of the id (killArgs).
const bgNextVar = "SHELTER_BG_NEXT"

// bgWait bounds how long kill waits for a background that has not
// started its first process yet, nor begun to: one starting a process
// (launch) is waited for until it has its pid or has failed to start.
const bgWait = 200 * time.Millisecond

// backgrounds is a call's nested backgrounds.
type backgrounds struct {
	mu        sync.Mutex
	next      int
	names     map[bgName]int // a shell's "gN", to its id
	pids      map[int][]int  // an id, to the processes its background started
	launching map[int]int    // an id, to how many of its processes are starting
	grew      chan struct{}  // closed and renewed when pids or launching change
}

type bgName struct {
	shell *interp.Runner
	g     string
}

// contain answers bg-next and bg-launched; ok is false for any other
// command. The call handler turns the "gN" words of kill into the pids
// they stand for (killArgs).
func (bg *backgrounds) contain(hc interp.HandlerContext, args []string) (next []string, ok bool) {
	switch args[0] {
	case shast.CmdBgNext:
		bg.mu.Lock()
		bg.next++
		id := bg.next
		bg.mu.Unlock()
		return quietEval(hc, bgNextVar+"="+strconv.Itoa(id)), true
	case shast.CmdBgLaunched:
		id, _ := strconv.Atoi(hc.Env.Get(bgNextVar).String())
		if r := mvdanpriv.HandlerRunner(hc); r != nil && id > 0 && len(args) > 1 {
			bg.mu.Lock()
			if bg.names == nil {
				bg.names = map[bgName]int{}
			}
			bg.names[bgName{r, args[1]}] = id
			bg.mu.Unlock()
		}
		bang := ""
		if len(args) > 1 {
			bang = "; " + rewrite.BangVar + "=" + shast.Quote(args[1])
		}
		return quietEval(hc, "unset "+bgNextVar+bang), true
	}
	return nil, false
}

// killArgs replaces each "gN" of kill's words by the pids of that
// background, waiting for its first as wait does.
func (bg *backgrounds) killArgs(ctx context.Context, hc interp.HandlerContext, args []string) ([]string, bool) {
	r := mvdanpriv.HandlerRunner(hc)
	if r == nil {
		return nil, false
	}
	var out []string
	for i, a := range args {
		if len(a) < 2 || a[0] != 'g' || strings.Trim(a[1:], "0123456789") != "" {
			if out != nil {
				out = append(out, a)
			}
			continue
		}
		pids := bg.wait(ctx, bgName{r, a})
		if pids == nil {
			if out != nil {
				out = append(out, a)
			}
			continue
		}
		if out == nil {
			out = append([]string(nil), args[:i]...)
		}
		for _, p := range pids {
			out = append(out, strconv.Itoa(p))
		}
	}
	return out, out != nil
}

// wait gives the pids of name's background, once it has one or bgWait
// has passed; nil when name is no background of this call, or when ctx
// (kill's) ends first.
func (bg *backgrounds) wait(ctx context.Context, name bgName) []int {
	deadline := time.Now().Add(bgWait)
	for {
		bg.mu.Lock()
		id, known := bg.names[name]
		pids, launching := bg.pids[id], bg.launching[id] > 0
		if bg.grew == nil {
			bg.grew = make(chan struct{})
		}
		grew := bg.grew
		bg.mu.Unlock()
		left := time.Until(deadline)
		if !known || len(pids) > 0 || left <= 0 && !launching {
			return append([]int(nil), pids...)
		}
		var timeout <-chan time.Time
		if !launching {
			// One starting a process has its pid once fork returns,
			// however loaded the machine; a failed start ends the
			// launch too.
			timeout = time.After(left)
		}
		select {
		case <-grew:
		case <-timeout:
		case <-ctx.Done():
			return nil
		}
	}
}

// note notes pid under the background the command of ctx runs in, if
// any.
func (bg *backgrounds) note(ctx context.Context, pid int) {
	id := bgOf(ctx)
	if id <= 0 {
		return
	}
	bg.mu.Lock()
	if bg.pids == nil {
		bg.pids = map[int][]int{}
	}
	bg.pids[id] = append(bg.pids[id], pid)
	bg.changed()
	bg.mu.Unlock()
}

// launch notes that the command of ctx, if it runs in a background, is
// starting a process, until done (once it started or failed to; later
// calls do nothing): kill then waits for its pid past bgWait.
func (bg *backgrounds) launch(ctx context.Context) (done func()) {
	id := bgOf(ctx)
	if id <= 0 {
		return func() {}
	}
	bg.mu.Lock()
	if bg.launching == nil {
		bg.launching = map[int]int{}
	}
	bg.launching[id]++
	bg.mu.Unlock()
	return sync.OnceFunc(func() {
		bg.mu.Lock()
		if bg.launching[id]--; bg.launching[id] == 0 {
			delete(bg.launching, id)
		}
		bg.changed()
		bg.mu.Unlock()
	})
}

// changed wakes the waits; bg.mu is held.
func (bg *backgrounds) changed() {
	if bg.grew != nil {
		close(bg.grew)
		bg.grew = nil
	}
}

// bgOf is the id of the background the command of ctx runs in; 0 for
// none.
func bgOf(ctx context.Context) int {
	env, ok := handlerEnv(ctx)
	if !ok {
		return 0
	}
	id, _ := strconv.Atoi(env.Get(bgNextVar).String())
	return id
}
