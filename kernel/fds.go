package kernel

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/fsroot"
	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// The descriptor rewrite's commands and words (package rewrite,
// redirect.go), answered over the session's tables (fdtable.go).

var errTooManyFiles = syscall.EMFILE

// fdCall answers the fd commands in the call handler; ok is false for
// any other command.
func (s *Session) fdCall(hc interp.HandlerContext, j *job, args []string) (argv []string, ok bool) {
	switch args[0] {
	case shast.CmdFdScope:
		return s.fdScope(hc, j, len(args) > 1), true
	case shast.CmdFd:
		if len(args) < 3 {
			return bashcompat.StatusArgv(2), true
		}
		return s.fdOp(hc, args[1], args[2], args[3:]), true
	case shast.CmdFdEnd:
		st := 0
		if len(args) > 1 {
			st, _ = strconv.Atoi(args[1])
		}
		return s.fdEnd(hc, st), true
	}
	return nil, false
}

// fdTableID names the table of the shell running hc's command.
func fdTableID(hc interp.HandlerContext) string {
	return hc.Env.Get(shast.FdVar).String()
}

// fdAssign is the argv that names table id as the shell's (none for ""),
// makes the other assignments, and exits with status.
func fdAssign(hc interp.HandlerContext, id string, status int, assigns ...string) []string {
	src := shast.FdVar + "=" + id
	if id == "" {
		src = "unset " + shast.FdVar
	}
	for _, a := range assigns {
		src += "; " + a
	}
	if status != 0 {
		src += "; " + shast.Quote(shast.StatusWord) + " " + strconv.Itoa(status)
	}
	return quietEval(hc, src)
}

// fdScope starts the table a statement's redirections are made in: the
// shell's descriptors above 2, and its streams as 0 to 2.
func (s *Session) fdScope(hc interp.HandlerContext, j *job, exec bool) []string {
	g := &s.fds
	g.mu.Lock()
	defer g.mu.Unlock()
	kind := scopeCommand
	if exec {
		kind = scopeExec
	}
	cur := g.table(fdTableID(hc))
	t := g.newTable(mvdanpriv.HandlerRunner(hc), kind)
	t.job = j
	if cur != nil {
		t.parent = cur.id
	}
	g.copyAbove(t, cur)
	if hc.Stdin != nil {
		t.entries[0] = fdEntry{r: hc.Stdin}
	}
	if hc.Stdout != nil {
		t.entries[1] = fdEntry{w: hc.Stdout}
	}
	if hc.Stderr != nil {
		t.entries[2] = fdEntry{w: hc.Stderr}
	}
	return fdAssign(hc, t.id, 0)
}

// fdEnd ends a scope with status. A statement's redirections are undone
// (named descriptors stay open, as in bash); what exec did, there or in
// the statement's command (`{ exec 3>f; } 4>g`), stays the shell's.
func (s *Session) fdEnd(hc interp.HandlerContext, status int) []string {
	g := &s.fds
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.table(fdTableID(hc))
	if t == nil || t.scope == scopeNone {
		return bashcompat.StatusArgv(status)
	}
	parent := g.table(t.parent)
	if t.scope == scopeCommand {
		for n := range t.touched {
			if e, ok := parent.entry(n); ok {
				g.set(t, n, e)
			} else {
				g.drop(t, n)
			}
		}
	}
	for n := range 3 {
		g.drop(t, n)
	}
	owner := mvdanpriv.HandlerRunner(hc)
	if parent != nil && parent.owner == owner && parent.scope != scopeExec {
		// The table beneath changes in place: a loop of exec keeps one
		// table.
		for n := range parent.entries {
			if _, kept := t.entries[n]; !kept && n > 2 {
				g.drop(parent, n)
			}
		}
		for n, e := range t.entries {
			g.set(parent, n, e)
		}
		g.release(t)
		return fdAssign(hc, parent.id, status)
	}
	if parent == nil && len(t.entries) == 0 {
		g.release(t)
		return fdAssign(hc, "", status)
	}
	t.scope, t.parent, t.owner, t.touched = scopeNone, "", owner, nil
	return fdAssign(hc, t.id, status)
}

// fdOp makes one redirection in the scope's table: target is the
// descriptor (N or {name}), kind open (the file the command's own
// redirection opened), all (that file as 1 and 2: &>), in (its input:
// a here-document or here-string) or dup and dupin (>& and <&, of the
// descriptor arg names; - closes).
func (s *Session) fdOp(hc interp.HandlerContext, target, kind string, arg []string) []string {
	g := &s.fds
	g.mu.Lock()
	defer g.mu.Unlock()
	fail := func(what, why string) []string {
		fmt.Fprintf(hc.Stderr, "shelter: %s: %s\n", what, why)
		return bashcompat.StatusArgv(1)
	}
	t := g.table(fdTableID(hc))
	if t == nil || t.scope == scopeNone {
		return fail(target, "no redirection in progress")
	}
	name, named := strings.CutPrefix(target, "{")
	name, _ = strings.CutSuffix(name, "}")
	n := -1
	if !named {
		var err error
		if n, err = strconv.Atoi(target); err != nil || n < 0 || n > maxFD {
			return fail(target, "Bad file descriptor")
		}
	}
	// assign names the descriptor a named target gets.
	var assign []string
	pick := func() int {
		if named {
			n = t.lowestFree()
			assign = append(assign, name+"="+strconv.Itoa(n))
		}
		return n
	}
	switch kind {
	case "open", "all", "in":
		var rw io.ReadWriteCloser
		if kind != "in" {
			h, ok := hc.Stdout.(*heldOpen)
			if !ok {
				return fail(target, "no file opened")
			}
			rw = h.take()
		} else {
			in, ok := hc.Stdin.(*os.File)
			if !ok {
				return fail(target, "no input")
			}
			f, err := dupFile(in)
			if err != nil {
				return fail(target, err.Error())
			}
			rw = f
		}
		e := fdEntry{r: rw, w: rw}
		if f, ok := rw.(*os.File); ok {
			file, err := g.addFile(f)
			if err != nil {
				return fail(target, err.Error())
			}
			e.file = file
		}
		g.set(t, pick(), e)
		t.touch(n, named)
		if kind == "all" {
			g.set(t, 2, e)
			t.touch(2, false)
		}
	case "dup", "dupin":
		if len(arg) != 1 {
			return fail(target, "ambiguous redirect")
		}
		src := arg[0]
		if src == "-" {
			if named {
				v, err := strconv.Atoi(hc.Env.Get(name).String())
				if err != nil {
					return fail(name, "ambiguous redirect")
				}
				n = v
			}
			g.drop(t, n)
			t.touch(n, named)
			break
		}
		from, move := strings.CutSuffix(src, "-")
		m, err := strconv.Atoi(from)
		if err != nil || m < 0 {
			return fail(src, "ambiguous redirect")
		}
		e, ok := t.entries[m]
		if !ok {
			return fail(from, "Bad file descriptor")
		}
		if to := pick(); to != m {
			if to > 2 && e.file == nil {
				// A stream of the shell's that is a file becomes a file
				// of the table, as dup(2) makes it: it stays open when
				// the shell's stream changes.
				var err error
				if e, err = g.ownStream(e); err != nil {
					return fail(from, err.Error())
				}
			}
			g.set(t, to, e)
			t.touch(to, named)
			if move {
				g.drop(t, m)
				t.touch(m, false)
			}
		}
	default:
		return fail(target, "unknown redirection "+kind)
	}
	if len(assign) == 0 {
		return bashcompat.StatusArgv(0)
	}
	return fdAssign(hc, t.id, 0, assign...)
}

// heldOpen is the file an fd command's redirection opened, until the fd
// command takes it into the table; closed with the command otherwise.
type heldOpen struct {
	rw    io.ReadWriteCloser
	taken bool
}

func (h *heldOpen) Read(p []byte) (int, error)  { return h.rw.Read(p) }
func (h *heldOpen) Write(p []byte) (int, error) { return h.rw.Write(p) }

func (h *heldOpen) Close() error {
	if h.taken {
		return nil
	}
	return h.rw.Close()
}

func (h *heldOpen) take() io.ReadWriteCloser {
	h.taken = true
	return h.rw
}

// fdInput is descriptor n of the shell running hc's command, for read -u
// and mapfile -u: a copy the caller closes.
func (s *Session) fdInput(hc interp.HandlerContext, n int) (io.ReadCloser, error) {
	if n == 0 {
		if f, ok := hc.Stdin.(*os.File); ok {
			return dupFile(f)
		}
		return nil, syscall.EBADF
	}
	if !s.fds.used.Load() {
		return nil, syscall.EBADF
	}
	g := &s.fds
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.table(fdTableID(hc))
	if t == nil || n < 3 {
		return nil, syscall.EBADF
	}
	f, ok := t.entries[n].r.(*os.File)
	if !ok {
		return nil, syscall.EBADF
	}
	return dupFile(f)
}

// childFiles are the descriptors above 2 of the shell running hc's
// command, for a program it starts (spawn.Cmd.ExtraFiles, entry i being
// descriptor 3+i), and for /dev/fd/N; release closes them once the
// program has run. A descriptor that is a stream of the shell's, not a
// file, reaches the program through a pipe copied into the stream.
func (s *Session) childFiles(ctx context.Context, hc interp.HandlerContext) (files []*os.File, release func()) {
	release = func() {}
	if !s.fds.used.Load() {
		return nil, release
	}
	g := &s.fds
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.table(fdTableID(hc))
	if t == nil {
		return nil, release
	}
	var made []*os.File
	var copies []chan struct{}
	for n, e := range t.entries {
		if n < 3 {
			continue
		}
		var f *os.File
		switch {
		case e.file != nil:
			f = e.file.f
		default:
			f, _ = e.w.(*os.File)
			if f == nil {
				f, _ = e.r.(*os.File)
			}
		}
		var child *os.File
		if f != nil {
			if c, err := dupFile(f); err == nil {
				child = c
				if b := fsroot.BlockingCopy(c, accessMode(c)); b != nil {
					c.Close()
					child = b
				}
			}
		} else if e.w != nil {
			pr, pw, err := os.Pipe()
			if err == nil {
				done := make(chan struct{})
				go func(w io.Writer) {
					defer close(done)
					io.Copy(w, pr)
					pr.Close()
				}(e.w)
				copies = append(copies, done)
				child = pw
			}
		}
		if child == nil {
			continue
		}
		for len(files) <= n-3 {
			files = append(files, nil)
		}
		files[n-3] = child
		made = append(made, child)
	}
	return files, func() {
		for _, f := range made {
			f.Close()
		}
		for _, done := range copies {
			select {
			case <-done:
			case <-ctx.Done():
			}
		}
	}
}
