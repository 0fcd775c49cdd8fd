package kernel

import (
	"strconv"
	"sync"
	"sync/atomic"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
)

// pipeNotes are the failures the commands of the running pipelines
// noted (pipe-rec, package rewrite's PIPESTATUS), by pipeline key and
// command index, until the pipeline's pipe-set takes them.
type pipeNotes struct {
	mu sync.Mutex
	by map[string]map[int]int
	// used is set once a pipeline noted a status: until then a call has
	// nothing to forget.
	used atomic.Bool
}

// reset forgets what pipelines a call left unfinished noted.
func (p *pipeNotes) reset() {
	if !p.used.Load() {
		return
	}
	p.mu.Lock()
	clear(p.by)
	p.mu.Unlock()
}

// rec answers pipe-rec KEY I: it notes the status of the command before
// it, and keeps it.
func (p *pipeNotes) rec(hc interp.HandlerContext, args []string) []string {
	if len(args) == 3 {
		i, _ := strconv.Atoi(args[2])
		p.mu.Lock()
		if p.by == nil {
			p.by = make(map[string]map[int]int)
			p.used.Store(true)
		}
		if p.by[args[1]] == nil {
			p.by[args[1]] = make(map[int]int)
		}
		p.by[args[1]][i] = hc.LastExitStatus
		p.mu.Unlock()
	}
	return bashcompat.StatusArgv(hc.LastExitStatus)
}

// set answers pipe-set KEY N, after a pipeline of N commands: PIPESTATUS
// is their statuses; and pipe-set alone: PIPESTATUS is $?. Either keeps
// the status.
func (p *pipeNotes) set(hc interp.HandlerContext, args []string) []string {
	var list []string
	if len(args) == 3 {
		n, _ := strconv.Atoi(args[2])
		p.mu.Lock()
		noted := p.by[args[1]]
		delete(p.by, args[1])
		p.mu.Unlock()
		list = make([]string, n)
		for i := range list {
			list[i] = strconv.Itoa(noted[i])
		}
	} else {
		list = []string{strconv.Itoa(hc.LastExitStatus)}
	}
	if scope := mvdanpriv.Scope(mvdanpriv.HandlerRunner(hc)); scope != nil {
		scope.Set("PIPESTATUS", expand.Variable{Set: true, Kind: expand.Indexed, List: list})
	}
	return bashcompat.StatusArgv(hc.LastExitStatus)
}
