package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shelter-sh/shelter/kernel"
)

// entry is one shell session of the server.
type entry struct {
	handle string
	owner  string // a digest of the credentials that made it; "" without
	sess   *kernel.Session

	// guarded by sessionTable.mu
	busy   int
	last   time.Time
	closed bool
	// calls cancel the calls running in the session: closing it ends
	// them. A context of its own would keep, idle, what its first call
	// left in it.
	calls []*context.CancelFunc
}

// callContext is ctx that also ends when e or the server is closed; stop
// releases it.
func (t *sessionTable) callContext(e *entry, ctx context.Context) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	c := &cancel
	t.mu.Lock()
	if e.closed || t.s.ctx.Err() != nil {
		cancel()
	} else {
		e.calls = append(e.calls, c)
	}
	t.mu.Unlock()
	return ctx, func() {
		t.mu.Lock()
		e.calls = slices.DeleteFunc(e.calls, func(x *context.CancelFunc) bool { return x == c })
		t.mu.Unlock()
		cancel()
	}
}

// sessionTable is the server's sessions, by handle.
type sessionTable struct {
	s *Server
	// server begins every handle the table makes: 64 random bits, in
	// hex, that tell a handle of another server process from one of
	// this server that is gone.
	server   string
	mu       sync.Mutex
	byHandle map[string]*entry
	def      *entry // the default session, once made
	draining bool
	reaper   *time.Ticker
	// running is the calls in sessions; idle is closed while it is 0.
	running int
	idle    chan struct{}
}

func (t *sessionTable) init(s *Server) {
	t.s = s
	t.server = randomHex(serverBytes)
	t.byHandle = map[string]*entry{}
	t.idle = make(chan struct{})
	close(t.idle)
	if ttl := s.opts.SessionTTL; ttl > 0 {
		every := min(max(ttl/4, 10*time.Millisecond), time.Minute)
		t.reaper = time.NewTicker(every)
		go t.reap(ttl)
	}
}

func (t *sessionTable) reap(ttl time.Duration) {
	for {
		select {
		case <-t.s.ctx.Done():
			t.reaper.Stop()
			return
		case now := <-t.reaper.C:
			var idle []*entry
			t.mu.Lock()
			for h, e := range t.byHandle {
				if e != t.def && e.busy == 0 && now.Sub(e.last) > ttl {
					delete(t.byHandle, h)
					idle = append(idle, e)
				}
			}
			t.mu.Unlock()
			for _, e := range idle {
				t.end(e)
			}
		}
	}
}

func (t *sessionTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byHandle)
}

func (t *sessionTable) drain() {
	t.mu.Lock()
	t.draining = true
	t.mu.Unlock()
}

// acquire finds the session a call names, or makes one: the default one
// for no handle on stdio, a new one for no handle otherwise. line refuses
// the call: an unknown handle, too many sessions, a draining server.
func (t *sessionTable) acquire(owner, handle string) (*entry, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var e *entry
	switch {
	case handle != "":
		e = t.byHandle[handle]
		if e == nil || e.owner != owner {
			return nil, t.unknown(handle)
		}
	case t.s.opts.Default && t.def != nil:
		e = t.def
	default:
		var line string
		if e, line = t.create(owner); line != "" {
			return nil, line
		}
		if t.s.opts.Default {
			t.def = e
		}
	}
	e.busy++
	e.last = time.Now()
	if t.running++; t.running == 1 {
		t.idle = make(chan struct{})
	}
	return e, ""
}

// named is handle when a refusal may name it as the call's session:
// one the table holds for owner, or one of another server, where it
// lives on; "" for a handle that is closed, expired or was never made.
func (t *sessionTable) named(owner, handle string) string {
	if server, ok := serverOf(handle); ok && server != t.server {
		return handle
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.byHandle[handle]; e != nil && e.owner == owner {
		return handle
	}
	return ""
}

// unknown is the line that refuses a handle the table does not hold.
func (t *sessionTable) unknown(handle string) string {
	how := "call without a session to start a new one"
	if t.s.opts.Default {
		how = "call without a session to use the default one"
	}
	if server, ok := serverOf(handle); ok && server != t.server {
		return fmt.Sprintf("shelter: session '%s' is not on this server: a session lives in the server process that made it; send its calls to that server (session affinity), or %s here", handle, how)
	}
	return fmt.Sprintf("shelter: unknown session '%s': it was closed, expired or never existed; %s", handle, how)
}

// wait waits until no call runs in a session, or ctx ends.
func (t *sessionTable) wait(ctx context.Context) error {
	t.mu.Lock()
	idle := t.idle
	t.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// create makes a session; t.mu is held.
func (t *sessionTable) create(owner string) (*entry, string) {
	if t.draining {
		return nil, "shelter: the server is shutting down and starts no new session; start the session on another server"
	}
	if max := t.s.opts.MaxSessions; max > 0 && len(t.byHandle) >= max {
		return nil, fmt.Sprintf("shelter: %d sessions are open, the limit of --max-sessions %d; close one with session_close, or wait for an idle one to expire", len(t.byHandle), max)
	}
	sess, err := t.s.opts.Kernel.NewSession(t.s.opts.Session)
	if err != nil {
		return nil, "shelter: cannot start a session: " + err.Error()
	}
	e := &entry{handle: t.server + randomHex(sessionBytes), owner: owner, sess: sess}
	t.byHandle[e.handle] = e
	return e, ""
}

func (t *sessionTable) release(e *entry) {
	t.mu.Lock()
	e.busy--
	e.last = time.Now()
	if t.running--; t.running == 0 {
		close(t.idle)
	}
	t.mu.Unlock()
}

// close ends the named session; handle "" is the default one on stdio.
func (t *sessionTable) close(owner, handle string) string {
	t.mu.Lock()
	e := t.byHandle[handle]
	if handle == "" {
		if !t.s.opts.Default {
			t.mu.Unlock()
			return "session_close: give the session to close, the handle a result gave"
		}
		e = t.def
	}
	if e == nil || e.owner != owner {
		t.mu.Unlock()
		return t.unknown(handle)
	}
	delete(t.byHandle, e.handle)
	if e == t.def {
		t.def = nil
	}
	t.mu.Unlock()
	t.end(e)
	return ""
}

func (t *sessionTable) closeAll() {
	t.mu.Lock()
	all := make([]*entry, 0, len(t.byHandle))
	for _, e := range t.byHandle {
		all = append(all, e)
	}
	clear(t.byHandle)
	t.def = nil
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range all {
		wg.Go(func() { t.end(e) })
	}
	wg.Wait()
}

// end cancels the calls running in e and closes its session: its jobs
// are killed and its temporary directory removed. The table no longer
// holds e.
func (t *sessionTable) end(e *entry) {
	t.mu.Lock()
	e.closed = true
	calls := e.calls
	e.calls = nil
	t.mu.Unlock()
	for _, cancel := range calls {
		(*cancel)()
	}
	e.sess.Close()
}

// A handle is the server's random bits, then the session's, in hex.
const serverBytes, sessionBytes = 8, 16

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// serverOf is the server part of a handle, if it is one.
func serverOf(handle string) (string, bool) {
	if len(handle) != 2*(serverBytes+sessionBytes) {
		return "", false
	}
	if _, err := hex.DecodeString(handle); err != nil {
		return "", false
	}
	return handle[:2*serverBytes], true
}

// ownerOf is a digest of the request's credentials: its Authorization
// header over HTTP, "" over stdio.
func ownerOf(extra *sdk.RequestExtra) string {
	if extra == nil || extra.Header == nil {
		return ""
	}
	auth := extra.Header.Get("Authorization")
	if auth == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(auth))
	return hex.EncodeToString(sum[:])
}

func (t *sessionTable) isDraining() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.draining
}
