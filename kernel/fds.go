package kernel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/fsroot"
	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// The descriptor rewrite's commands and words (package rewrite,
// redirect.go), answered over the session's tables (fdtable.go).

var (
	errTooManyFiles = syscall.EMFILE
	errNoClobber    = errors.New("cannot overwrite existing file")
)

// fdCall answers the fd commands in the call handler; ok is false for
// any other command.
func (s *Session) fdCall(hc interp.HandlerContext, args []string) (argv []string, ok bool) {
	switch args[0] {
	case shast.CmdFdScope:
		return s.fdScope(hc, len(args) > 1), true
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
func (s *Session) fdScope(hc interp.HandlerContext, exec bool) []string {
	g := &s.fds
	g.mu.Lock()
	defer g.mu.Unlock()
	kind := scopeCommand
	if exec {
		kind = scopeExec
	}
	cur := g.table(fdTableID(hc))
	t := g.newTable(mvdanpriv.HandlerRunner(hc), kind)
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

// fdOpen answers the opens of the descriptor rewrite's words: a pull of
// a table's descriptor, a file opened in a marked mode, and > under
// noclobber. ok is false for any other open.
func (s *Session) fdOpen(ctx context.Context, o *Opener, path string, flag int, perm fs.FileMode) (rw io.ReadWriteCloser, err error, ok bool) {
	i := strings.IndexByte(path, 0)
	if i < 0 {
		if n, ok := strings.CutPrefix(path, "/dev/fd/"); ok && s.fds.used.Load() {
			if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
				rw, err := s.fdPull(ctx, n, flag&(os.O_WRONLY|os.O_RDWR) == 0, false)
				return rw, err, true
			}
		}
		if flag&os.O_TRUNC != 0 && s.fds.noclobber.Load() {
			if err := s.clobbers(ctx, o, path); err != nil {
				return nil, err, true
			}
		}
		return nil, nil, false
	}
	rest := path[i:]
	if n, ok := strings.CutPrefix(rest, shast.FdPath); ok {
		rw, err := s.fdPull(ctx, n, n == "0", false)
		return rw, err, true
	}
	if n, ok := strings.CutPrefix(rest, shast.FdKeepPath); ok {
		rw, err := s.fdPull(ctx, n, n == "0", true)
		return rw, err, true
	}
	held := false
	mode, marked := strings.CutPrefix(rest, shast.OpenMarker)
	if !marked {
		if mode, held = strings.CutPrefix(rest, shast.FdOpenMarker); !held {
			return nil, &fs.PathError{Op: "open", Path: path, Err: syscall.ENOENT}, true
		}
	}
	name := path[:i]
	switch mode {
	case "r":
		flag = os.O_RDONLY
	case "w", "c":
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	case "a":
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	case "rw":
		flag = os.O_RDWR | os.O_CREATE
	}
	if mode == "w" && s.fds.noclobber.Load() {
		if err := s.clobbers(ctx, o, name); err != nil {
			return nil, err, true
		}
	}
	rw, err = o.OpenFile(ctx, name, flag, perm)
	if err != nil {
		return nil, err, true
	}
	if held {
		return &heldOpen{rw: rw}, nil, true
	}
	return rw, nil, true
}

// clobbers is the error of > on an existing regular file while set -C is
// on in the shell running ctx's command.
func (s *Session) clobbers(ctx context.Context, o *Opener, name string) error {
	if !interp.HandlerCtx(ctx).Env.Get(shast.NoclobberVar).IsSet() {
		return nil
	}
	if fi, err := o.Stat(name); err == nil && fi.Mode().IsRegular() {
		return &fs.PathError{Op: "open", Path: name, Err: errNoClobber}
	}
	return nil
}

// fdPull gives a command descriptor n (0 to 2) as its scope's table holds
// it: a copy of a file, the stream itself, or for a closed descriptor a
// file that refuses the stream's direction. keep marks exec's, which
// the shell keeps until the call ends.
func (s *Session) fdPull(ctx context.Context, num string, read, keep bool) (io.ReadWriteCloser, error) {
	n, _ := strconv.Atoi(num)
	hc := interp.HandlerCtx(ctx)
	g := &s.fds
	g.mu.Lock()
	defer g.mu.Unlock()
	var e fdEntry
	if t := g.table(fdTableID(hc)); t != nil {
		e = t.entries[n]
	}
	var stream any = e.w
	if read {
		stream = e.r
	}
	var out io.ReadWriteCloser
	switch st := stream.(type) {
	case nil:
		// Closed: reads and writes fail with EBADF, in the shell and in
		// the programs it starts.
		mode := os.O_RDONLY
		if read {
			mode = os.O_WRONLY
		}
		f, err := os.OpenFile(os.DevNull, mode, 0)
		if err != nil {
			return nil, err
		}
		out = closedFile{f}
	case *os.File:
		f, err := dupFile(st)
		if err != nil {
			return nil, &fs.PathError{Op: "dup", Path: num, Err: err}
		}
		out = f
	case io.Writer:
		out = streamRW{w: st}
	default:
		return nil, &fs.PathError{Op: "dup", Path: num, Err: syscall.EBADF}
	}
	if f, ok := out.(*os.File); ok && keep {
		g.held = append(g.held, f)
	}
	if c, ok := out.(closedFile); ok {
		if keep {
			g.held = append(g.held, c.File)
		}
		return c.File, nil
	}
	return out, nil
}

// closedFile is a closed descriptor's stand-in.
type closedFile struct{ *os.File }

// streamRW is a shell's stream as a redirection's file, which the
// redirection's end does not close.
type streamRW struct{ w io.Writer }

func (s streamRW) Read([]byte) (int, error)    { return 0, syscall.EBADF }
func (s streamRW) Write(p []byte) (int, error) { return s.w.Write(p) }
func (streamRW) Close() error                  { return nil }

// dupFile is a new file on f's descriptor, close-on-exec, in f's mode:
// os.File.Fd would put a polled f in blocking mode for good.
func dupFile(f *os.File) (*os.File, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	nfd := -1
	var derr error
	if err := rc.Control(func(fd uintptr) {
		nfd, derr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, derr
	}
	return os.NewFile(uintptr(nfd), f.Name()), nil
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

// accessMode is f's O_RDONLY, O_WRONLY or O_RDWR: a copy of a pipe
// opened for both would hold its writing end open.
func accessMode(f *os.File) int {
	mode := syscall.O_RDONLY
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) {
			if fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0); err == nil {
				mode = fl & syscall.O_ACCMODE
			}
		})
	}
	return mode
}
