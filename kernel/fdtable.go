package kernel

import (
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/jobtable"
)

// mvdan/sh gives a shell three descriptors; bash, as many as it likes.
// A session keeps the others in descriptor tables (docs/embedding.md,
// "Redirections"): a shell variable, shast.FdVar, names the table of the
// shell that runs a command, so that a subshell starts from its parent's
// table, as a forked bash does, and what it changes stays its own (it
// writes a table of its own, copy on write). A table's files are shared
// between the tables that hold them and closed with the last; every
// table but the session's own closes when the call that made it ends.

// maxFD bounds the descriptors a script may name, as bash's ulimit -n
// does, and maxFDFiles the files a session's tables may hold at once.
const (
	maxFD      = 1023
	maxFDFiles = 4096
)

// fdFile is a file of the tables, shared by those that hold it.
type fdFile struct {
	f    *os.File
	refs int
}

// fdEntry is one descriptor: a file of the tables, or one of the shell's
// own streams (file nil), which the table does not close.
type fdEntry struct {
	file *fdFile
	r    io.Reader // nil when not readable
	w    io.Writer // nil when not writable
}

// scopeKind says what a table was made for.
type scopeKind int8

const (
	scopeNone    scopeKind = iota // a shell's table
	scopeCommand                  // one statement's redirections; dropped after it
	scopeExec                     // exec's redirections; the shell's table after it
)

// fdTable is the descriptors of one shell (or of one statement's
// redirections, scoped): above 2 only, but while a scope's redirections
// are made, which see 0 to 2 too.
type fdTable struct {
	id      string
	owner   *interp.Runner // the shell that may change it in place
	parent  string         // the table a scope goes back to; "" for none
	scope   scopeKind
	entries map[int]fdEntry
	// touched are the descriptors a statement's redirections changed,
	// which its end restores.
	touched map[int]bool
	// job is the background job whose shell made the table, which the
	// end of the call that started it leaves open; nil for a call's.
	job *jobtable.Entry
}

// jobRunning reports whether t is a job's that still runs.
func (t *fdTable) jobRunning() bool {
	if t.job == nil {
		return false
	}
	select {
	case <-t.job.Done():
		return false
	default:
		return true
	}
}

// entry is descriptor n of t; ok is false when t is nil or n closed.
func (t *fdTable) entry(n int) (e fdEntry, ok bool) {
	if t == nil {
		return fdEntry{}, false
	}
	e, ok = t.entries[n]
	return e, ok
}

// touch notes that a statement's redirection changed descriptor n of
// t; a named one's stays changed.
func (t *fdTable) touch(n int, named bool) {
	if t.scope != scopeCommand || named {
		return
	}
	if t.touched == nil {
		t.touched = map[int]bool{}
	}
	t.touched[n] = true
}

// fdRegistry is a session's descriptor tables.
type fdRegistry struct {
	// used is set once a table is made: a session that never made one
	// pays nothing for them.
	used atomic.Bool
	// noclobber is set once set -C ran in the session: only then does
	// an open for > look at the shell's noclobber option.
	noclobber atomic.Bool

	mu     sync.Mutex
	tables map[string]*fdTable
	next   int
	files  int                  // the fdFiles open
	held   map[heldKey]*os.File // the files exec handed to a shell as its 0 to 2
}

// table returns the table id names; nil for none.
func (g *fdRegistry) table(id string) *fdTable {
	if id == "" {
		return nil
	}
	return g.tables[id]
}

// newTable registers an empty table.
func (g *fdRegistry) newTable(owner *interp.Runner, scope scopeKind) *fdTable {
	if g.tables == nil {
		g.tables = map[string]*fdTable{}
	}
	g.next++
	t := &fdTable{id: strconv.Itoa(g.next), owner: owner, scope: scope, entries: map[int]fdEntry{}}
	g.tables[t.id] = t
	g.used.Store(true)
	return t
}

// heldKey is a shell's descriptor 0, 1 or 2.
type heldKey struct {
	shell *interp.Runner
	fd    int
}

// hold notes f as what exec made shell's descriptor fd, closing what an
// earlier exec made it: the shell no longer has that one, so that a loop
// of `exec >&3` holds one file.
func (g *fdRegistry) hold(shell *interp.Runner, fd int, f *os.File) {
	if g.held == nil {
		g.held = map[heldKey]*os.File{}
	}
	k := heldKey{shell, fd}
	if old := g.held[k]; old != nil {
		old.Close()
	}
	g.held[k] = f
}

// addFile makes f a file of the tables, not yet held by any.
func (g *fdRegistry) addFile(f *os.File) (*fdFile, error) {
	if g.files >= maxFDFiles {
		f.Close()
		return nil, errTooManyFiles
	}
	g.files++
	return &fdFile{f: f}, nil
}

// ownStream is e, a stream of the shell's, as a copy the tables hold
// when it is a file; e itself otherwise.
func (g *fdRegistry) ownStream(e fdEntry) (fdEntry, error) {
	f, ok := e.w.(*os.File)
	if !ok {
		if f, ok = e.r.(*os.File); !ok {
			return e, nil
		}
	}
	d, err := dupFile(f)
	if err != nil {
		return e, err
	}
	file, err := g.addFile(d)
	if err != nil {
		return e, err
	}
	owned := fdEntry{file: file}
	if e.r != nil {
		owned.r = d
	}
	if e.w != nil {
		owned.w = d
	}
	return owned, nil
}

// set makes e descriptor n of t, letting go of what n was.
func (g *fdRegistry) set(t *fdTable, n int, e fdEntry) {
	if e.file != nil {
		e.file.refs++
	}
	g.drop(t, n)
	t.entries[n] = e
}

// drop closes descriptor n of t.
func (g *fdRegistry) drop(t *fdTable, n int) {
	old, ok := t.entries[n]
	if !ok {
		return
	}
	delete(t.entries, n)
	if old.file != nil {
		old.file.refs--
		if old.file.refs <= 0 {
			old.file.f.Close()
			g.files--
		}
	}
}

// release closes every descriptor of t and forgets it.
func (g *fdRegistry) release(t *fdTable) {
	for n := range t.entries {
		g.drop(t, n)
	}
	delete(g.tables, t.id)
}

// copyAbove gives t the descriptors above 2 of from.
func (g *fdRegistry) copyAbove(t, from *fdTable) {
	if from == nil {
		return
	}
	for n, e := range from.entries {
		if n > 2 {
			g.set(t, n, e)
		}
	}
}

// lowestFree is the lowest descriptor from 10 up that t does not hold,
// which a named descriptor ({var}>file) gets.
func (t *fdTable) lowestFree() int {
	n := 10
	for {
		if _, ok := t.entries[n]; !ok {
			return n
		}
		n++
	}
}

// endCall closes what the call made: every table but the session
// shell's (keep names it) and a running job's, what the session's holds
// of the call's streams, and what exec handed to the shell's streams. A call that ended inside
// a statement's redirections (exit, a timeout) keeps the shell's table
// from before them, under keep's id too, which the shell still names.
func (g *fdRegistry) endCall(keep string) {
	g.end(keep, false)
}

// end is endCall, which closing makes close the tables of running jobs
// too.
func (g *fdRegistry) end(keep string, closing bool) {
	if !g.used.Load() {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	kept := g.table(keep)
	for kept != nil && kept.scope != scopeNone {
		kept = g.table(kept.parent)
	}
	for id, t := range g.tables {
		switch {
		case t != kept && t.jobRunning() && !closing:
			// The job's, which goes on after its call.
		case t != kept:
			g.release(t)
			delete(g.tables, id)
		case id != kept.id && id != keep:
			delete(g.tables, id) // an earlier call's alias
		}
	}
	for _, f := range g.held {
		f.Close()
	}
	clear(g.held)
	if kept == nil {
		return
	}
	if keep != kept.id {
		g.tables[keep] = kept
	}
	for n, e := range kept.entries {
		if e.file == nil || n <= 2 {
			g.drop(kept, n)
		}
	}
}

// closeAll closes every table, when the session closes.
func (g *fdRegistry) closeAll() {
	g.end("", true)
}
