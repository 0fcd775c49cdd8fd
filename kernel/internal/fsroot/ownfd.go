package fsroot

import (
	"errors"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
)

// ErrShelterDescriptor is the error of a name that leads to a pipe
// shelter itself holds open (another session's, a server's protocol)
// other than its standard streams, which stand for the call's own.
var ErrShelterDescriptor = errors.New("shelter's own descriptors are not open to a session")

// The opener names /dev/stdout, /dev/fd/N and /proc/self/fd/N the call's
// streams, but a name can reach shelter's descriptors by other routes:
// a symbolic link to /proc/self/fd/1, a link to /dev/fd, /proc/PID/fd/N
// of a child whose other end shelter holds. Over `shelter serve` on
// stdio, shelter's stdin and stdout are the MCP protocol. So the file an
// open gives is checked itself, by device and inode, against shelter's
// descriptors, whatever the name was (docs/sandbox.md).

// fileID is a file's identity: its device and inode.
type fileID struct{ dev, ino uint64 }

func idOf(st *syscall.Stat_t) fileID { return fileID{uint64(st.Dev), uint64(st.Ino)} }

// stdioFDs are shelter's standard descriptors, which the opener compares
// opened files with; a test puts descriptors of its own in their place.
var stdioFDs atomic.Pointer[[3]int]

func init() { stdioFDs.Store(&[3]int{0, 1, 2}) }

// ownStdio reports which of shelter's descriptors 0, 1 and 2 hold the
// file st describes. They are looked at on each call, not once: an
// embedder may redirect them. The devices that hold nothing
// (/dev/null, /dev/zero, …) are never shelter's own: a daemon's stdin
// is often /dev/null, and `< /dev/null` must stay empty.
func ownStdio(st *syscall.Stat_t) (held [3]bool, any bool) {
	if uint32(st.Mode)&syscall.S_IFMT == syscall.S_IFCHR && inertDevices()[uint64(st.Rdev)] {
		return held, false
	}
	id := idOf(st)
	for i, fd := range stdioFDs.Load() {
		var own syscall.Stat_t
		if syscall.Fstat(fd, &own) == nil && idOf(&own) == id {
			held[i], any = true, true
		}
	}
	return held, any
}

// inertDevices are the device numbers of the devices a confined session
// reaches too ([hostDevice]): they hold nothing of anyone's.
var inertDevices = sync.OnceValue(func() map[uint64]bool {
	return deviceNumbers(os.DevNull, "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
})

// openToAll are the devices a session opens even when shelter holds
// them too: the inert ones, and /dev/tty, which is each process's own
// controlling terminal (the prompt's, at the REPL).
var openToAll = sync.OnceValue(func() map[uint64]bool {
	return deviceNumbers(os.DevNull, "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
})

func deviceNumbers(paths ...string) map[uint64]bool {
	m := map[uint64]bool{}
	for _, p := range paths {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) == nil && uint32(st.Mode)&syscall.S_IFMT == syscall.S_IFCHR {
			m[uint64(st.Rdev)] = true
		}
	}
	return m
}

// heldByShelter reports whether st is an anonymous pipe, a terminal or
// a device that shelter holds open on a descriptor other than skip. A
// name reaches an anonymous pipe only through /proc/PID/fd; the pipes
// and terminals shelter holds are its sessions' and children's, or a
// protocol's. Regular files, directories and named FIFOs (a process
// substitution's) are not looked at; sockets and anonymous inodes
// (eventfd, epoll) cannot be opened by name at all (ENXIO). It is Linux
// only; elsewhere it reports false.
func heldByShelter(st *syscall.Stat_t, skip int) bool {
	switch uint32(st.Mode) & syscall.S_IFMT {
	case syscall.S_IFREG, syscall.S_IFDIR, syscall.S_IFLNK:
		return false
	case syscall.S_IFIFO:
		if dev := pipeDev(); dev == 0 || uint64(st.Dev) != dev {
			return false
		}
	}
	if procDev() == 0 {
		return false
	}
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return false
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	id := idOf(st)
	for _, name := range names {
		fd, err := strconv.Atoi(name)
		if err != nil || fd == skip {
			continue
		}
		var own syscall.Stat_t
		if syscall.Fstat(fd, &own) == nil && idOf(&own) == id {
			return true
		}
	}
	return false
}

// pipeDev is the device of the pipe file system, 0 where it has none.
var pipeDev = sync.OnceValue(func() uint64 {
	var p [2]int
	if syscall.Pipe(p[:]) != nil {
		return 0
	}
	defer syscall.Close(p[0])
	defer syscall.Close(p[1])
	var st syscall.Stat_t
	if syscall.Fstat(p[0], &st) != nil {
		return 0
	}
	return uint64(st.Dev)
})

// ownFile is a file the opener found to be one of shelter's standard
// streams before it opened it, so that the open (its O_TRUNC) never
// touches it.
type ownFile struct{ held [3]bool }

func (*ownFile) Error() string { return "one of shelter's own standard streams" }

// ownStream is what an open that reached shelter's standard descriptors
// gives: the call's stream of the same number, as /proc/self/fd/N is.
// Writing reaches the call's stdout or stderr, reading its stdin; any
// other direction is EBADF, as for /proc/self/fd/N.
func (o *Opener) ownStream(held [3]bool, flag int) (io.ReadWriteCloser, error) {
	order := [3]int{0, 1, 2}
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		order = [3]int{1, 2, 0}
	}
	for _, fd := range order {
		if held[fd] {
			return o.streamOf(fd, flag)
		}
	}
	return nil, syscall.EBADF
}

// vetOpened checks the file an open gave, however the name led to it:
// one of shelter's own /proc entries is refused, one of its standard
// descriptors becomes the call's stream of that number, and a pipe,
// terminal or device shelter holds otherwise is refused. A file that is
// one of the call's own streams already opens as it is, and so does a
// regular file opened for reading, even one of shelter's standard
// descriptors: that reads what shelter wrote, and takes nothing from
// anyone. f is closed when it is not what vetOpened returns.
func (o *Opener) vetOpened(f *os.File, flag int) (io.ReadWriteCloser, error) {
	fi, err := f.Stat()
	if err != nil {
		return f, nil
	}
	if onProc(fi) {
		if err := checkOpened(f); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	write := flag&(os.O_WRONLY|os.O_RDWR) != 0
	if !ok || fi.IsDir() || fi.Mode().IsRegular() && !write || o.callHolds(st) {
		// The commonest open of all, a regular file read, costs nothing
		// more: it takes nothing from anyone.
		return f, nil
	}
	if held, any := ownStdio(st); any {
		f.Close()
		return o.ownStream(held, flag)
	}
	if uint32(st.Mode)&syscall.S_IFMT == syscall.S_IFCHR && openToAll()[uint64(st.Rdev)] {
		return f, nil
	}
	if heldByShelter(st, rawFD(f)) {
		f.Close()
		return nil, ErrShelterDescriptor
	}
	return f, nil
}

// callHolds reports whether st is one of the call's own streams, when
// they are files (a pipeline's pipe, a terminal): a name that leads
// there opens what the call has already.
func (o *Opener) callHolds(st *syscall.Stat_t) bool {
	id := idOf(st)
	for _, s := range [3]any{o.streams.Stdin, o.streams.Stdout, o.streams.Stderr} {
		f, ok := s.(*os.File)
		if !ok || f == nil {
			continue
		}
		fi, err := f.Stat()
		if err != nil {
			continue
		}
		if own, ok := fi.Sys().(*syscall.Stat_t); ok && idOf(own) == id {
			return true
		}
	}
	return false
}

// rawFD is f's descriptor, -1 when it has none. Unlike f.Fd it leaves
// the descriptor in the mode it is in (Fd makes it blocking, which
// would keep a deadline from ending a read).
func rawFD(f *os.File) int {
	fd := -1
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(p uintptr) { fd = int(p) })
	}
	return fd
}
