package fsroot

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/shelter-sh/shelter/internal/beneath"
)

// A SessionDir is a directory of the session's (its $TMPDIR, its spill
// directory) that is named when the session starts ([NameDirs]) and
// created when first needed, so that a session that never needs it
// touches no disk.
//
// The name is random and the directory is made with a single mkdir, which
// fails when the name exists: a directory someone else made under that
// name in a shared parent (/tmp) is never used, and the session reports
// that instead. Everything shelter makes or removes in it is reached from
// the parent (base) by descriptor, following no symbolic link
// (internal/beneath): a link the session planted at ROOT/.shelter, at the
// directory's name or at a file's is refused, never followed.
type SessionDir struct {
	path   string
	name   string // the last element of path, its random name
	base   string // the directory the session does not write: the root, or the system's temporary directory
	rel    string // path relative to base: name, or stateDir/name
	parent bool   // rel has a parent to make first (a sandbox's ROOT/.shelter)
	inner  string // a directory made in it when it is made (a sandbox's HOME, "home"), or ""
	made   atomic.Bool

	mu     sync.Mutex
	closed bool // removed by Close: never made again
}

// stateDir is the directory, in a sandbox's root, of its sessions'
// temporary and spill directories, and so of their HOME. It holds a
// .gitignore of "*" (stateIgnore), so that git leaves it out of the
// project's status and of `git add -A`: the sandbox's state lives in the
// root because the opener and the programs' confinement reach the root
// (docs/sandbox.md), and the project's own .git is not shelter's to edit.
const stateDir = ".shelter"

// stateIgnore is the .gitignore shelter writes in ROOT/.shelter.
const stateIgnore = "*\n"

// HomeDir is the directory, in a sandbox session's $TMPDIR, that is its
// HOME: the caches and settings programs keep under HOME (Go's build
// cache, git's and pip's) are the session's, and go with it.
const HomeDir = "home"

// NameDirs names a session's two directories: its temporary directory
// and its spill directory, which share one random part. A sandbox's
// (root not "") are in ROOT/.shelter, and its temporary directory holds
// its HOME ([HomeDir]), made with it; others' are in the system's
// temporary directory. It creates nothing.
func NameDirs(tmp, spills *SessionDir, root string) {
	base, sub := root, stateDir
	if root == "" {
		base, sub = filepath.Clean(os.TempDir()), ""
	}
	// math/rand/v2's global source is seeded from the system's randomness:
	// the names cannot be predicted by another user.
	var digits [16]byte
	random := strconv.AppendUint(digits[:0], rand.Uint64(), 36)
	for _, d := range [2]struct {
		dir    *SessionDir
		prefix string
	}{{tmp, "shelter-"}, {spills, "shelter-spill-"}} {
		d.dir.base, d.dir.parent = base, sub != ""
		d.dir.name = d.prefix + string(random)
		d.dir.rel = d.dir.name
		parent := base
		if sub != "" {
			d.dir.rel = sub + "/" + d.dir.name
			parent = filepath.Join(base, sub)
		}
		d.dir.path = dirPath(parent, d.prefix, random)
	}
	if root != "" {
		tmp.inner = HomeDir
	}
}

// dirPath is filepath.Join(parent, prefix+random), in one allocation
// when parent is clean.
func dirPath(parent, prefix string, random []byte) string {
	if filepath.Clean(parent) != parent {
		return filepath.Join(parent, prefix+string(random))
	}
	if strings.HasSuffix(parent, string(filepath.Separator)) {
		return parent + prefix + string(random)
	}
	return parent + string(filepath.Separator) + prefix + string(random)
}

// squattedError is Ensure's error when the directory's name exists: made
// by someone else, in a shared parent, and never used.
type squattedError struct{ path string }

func (e *squattedError) Error() string {
	return e.path + " exists already and is not this session's; refusing to use it"
}

// errSessionClosedDir is the error of a directory needed after Close.
var errSessionClosedDir = errors.New("the session is closed")

// openBase opens the directory the session's directories are named from.
func (d *SessionDir) openBase() (*os.File, error) {
	return os.OpenFile(d.base, os.O_RDONLY|syscall.O_DIRECTORY, 0)
}

// Path is the directory's name, absolute.
func (d *SessionDir) Path() string { return d.path }

// Ensure makes the directory unless it exists already. The error of a
// name someone else made first says so, and the directory is never used.
func (d *SessionDir) Ensure() error {
	if d.made.Load() {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.made.Load() {
		return nil
	}
	if d.closed {
		return fmt.Errorf("%s: %w", d.path, errSessionClosedDir)
	}
	base, err := d.openBase()
	if err != nil {
		return err
	}
	defer base.Close()
	if d.parent {
		err := beneath.Mkdir(base, stateDir, 0o700)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		ignoreState(base)
	}
	if err := beneath.Mkdir(base, d.rel, 0o700); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &squattedError{d.path}
		}
		return err
	}
	if d.inner != "" {
		// Made here, before the directory counts as made, so that HOME
		// exists before the first program needs it. An error is not the
		// command's: a program that finds no HOME makes it (go, pip) or
		// says so itself.
		beneath.Mkdir(base, d.rel+"/"+d.inner, 0o700)
	}
	d.made.Store(true)
	return nil
}

// ignoreState writes ROOT/.shelter/.gitignore unless it exists, as a new
// file reached by descriptor (a link planted at its name is not
// followed). Its error is dropped: without it the session works all the
// same, and git shows .shelter/ as it did before.
func ignoreState(base *os.File) {
	f, err := beneath.Create(base, stateDir+"/.gitignore", 0o600)
	if err != nil {
		return
	}
	f.WriteString(stateIgnore)
	f.Close()
}

// open opens the directory, made already, beneath its base.
func (d *SessionDir) open() (*os.File, error) {
	base, err := d.openBase()
	if err != nil {
		return nil, err
	}
	defer base.Close()
	return beneath.OpenDir(base, d.rel)
}

// CreateTemp makes a new file in the directory, and the directory first
// when it does not exist, named after pattern (prefix*suffix) as
// os.CreateTemp does: a spawn.Sink's spill file.
func (d *SessionDir) CreateTemp(pattern string) (*os.File, error) {
	if err := d.Ensure(); err != nil {
		return nil, err
	}
	dir, err := d.open()
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	prefix, suffix, _ := strings.Cut(pattern, "*")
	return beneath.CreateTemp(dir, prefix, suffix)
}

// Create makes the file name in the directory afresh, and the directory
// first when it does not exist: what held the name before (an earlier
// job's log of the same number) is removed first, and the file is made
// new, so that nothing planted there is opened.
func (d *SessionDir) Create(name string) (*os.File, error) {
	if err := d.Ensure(); err != nil {
		return nil, err
	}
	dir, err := d.open()
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	if err := beneath.Remove(dir, name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return beneath.Create(dir, name, 0o600)
}

// Remove removes the directory: with everything in it when all, else only
// when it is empty.
func (d *SessionDir) Remove(all bool) error {
	base, err := d.openBase()
	if err != nil {
		return err
	}
	defer base.Close()
	if all {
		return beneath.RemoveAll(base, d.rel)
	}
	return beneath.Remove(base, d.rel)
}

// touches makes the directory when abs, a clean absolute path, may lie in
// it, and returns the error of making it. It matches on the directory's
// own random name, so that a path that reaches it through a symbolic
// link to its parent counts too.
func (d *SessionDir) touches(abs string) error {
	if d.path == "" || d.made.Load() || !strings.Contains(abs, d.name) {
		return nil
	}
	return d.Ensure()
}

// Close stops the directory from being made, and reports whether it was.
func (d *SessionDir) Close() (made bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	return d.made.Load()
}

// NoRoom reports whether err says that the file system has no room for
// the session's directories (read-only, not writable by shelter's user,
// full), as opposed to a name someone else took or a link planted there,
// which stop the command.
func NoRoom(err error) bool {
	for _, e := range []error{syscall.EROFS, syscall.EACCES, syscall.EPERM, syscall.ENOSPC, syscall.EDQUOT} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
