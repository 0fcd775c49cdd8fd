package kernel

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// lazyDir is a directory of the session's (its $TMPDIR, its spill
// directory) that is named when the session starts and created when first
// needed, so that a session that never needs it touches no disk.
//
// The name is random and the directory is made with a single Mkdir, which
// fails when the name exists: a directory someone else made under that
// name in a shared parent (/tmp) is never used, and the session reports
// that instead.
type lazyDir struct {
	path   string
	name   string // the last element of path, its random name
	parent bool   // the parent may be missing (a sandbox's ROOT/.shelter): make it first
	made   atomic.Bool

	mu     sync.Mutex
	closed bool // removed by Close: never made again
}

// nameDirs names a session's two directories in parent (the system's
// temporary directory when empty): its temporary directory and its spill
// directory, which share one random part. It creates nothing.
func nameDirs(tmp, spills *lazyDir, parent string, makeParent bool) {
	if parent == "" {
		parent = os.TempDir()
	}
	// math/rand/v2's global source is seeded from the system's randomness:
	// the names cannot be predicted by another user.
	var digits [16]byte
	random := strconv.AppendUint(digits[:0], rand.Uint64(), 36)
	tmp.path, tmp.parent = dirPath(parent, "shelter-", random), makeParent
	spills.path, spills.parent = dirPath(parent, "shelter-spill-", random), makeParent
	tmp.name, spills.name = filepath.Base(tmp.path), filepath.Base(spills.path)
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

// errSessionClosedDir is the error of a directory needed after Close.
var errSessionClosedDir = errors.New("the session is closed")

// ensure makes the directory unless it exists already.
func (d *lazyDir) ensure() error {
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
	if d.parent {
		if err := os.MkdirAll(filepath.Dir(d.path), 0o700); err != nil {
			return err
		}
	}
	if err := os.Mkdir(d.path, 0o700); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s exists already and is not this session's; refusing to use it", d.path)
		}
		return err
	}
	d.made.Store(true)
	return nil
}

// touches makes the directory when abs, a clean absolute path, may lie in
// it. It matches on the directory's own random name, so that a path that
// reaches it through a symbolic link to its parent counts too.
func (d *lazyDir) touches(abs string) {
	if d.path == "" || d.made.Load() {
		return
	}
	if strings.Contains(abs, d.name) {
		d.ensure()
	}
}

// close stops the directory from being made, and reports whether it was.
func (d *lazyDir) close() (made bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	return d.made.Load()
}
