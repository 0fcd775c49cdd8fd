package fsroot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrOutsideRoot is the error of a name that leads outside the sandbox's
// root; the error itself is an [*OutsideRootError].
var ErrOutsideRoot = errors.New("outside the sandbox root")

// OutsideRootError is the refusal of a name outside the sandbox's root.
type OutsideRootError struct{ Root string }

func (e *OutsideRootError) Error() string {
	return fmt.Sprintf("outside the sandbox root; allowed: paths under %s", e.Root)
}

func (e *OutsideRootError) Is(target error) bool { return target == ErrOutsideRoot }

// A Root is the sandbox's root: one os.Root every name of a confined
// session resolves beneath (docs/sandbox.md).
type Root struct {
	dir string // absolute, clean, links resolved
	r   *os.Root
	// fast resolves names beneath the root in one system call where
	// the system can (Linux: openat2), os.Root's way otherwise.
	fast beneathFast
}

// OpenRoot opens dir as a sandbox's root. Its name is made absolute and
// its symbolic links resolved first: [Root.Dir] is what every name is
// compared with.
func OpenRoot(dir string) (*Root, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return nil, fmt.Errorf("sandbox root: %w", err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox root: %w", err)
	}
	return &Root{dir: dir, r: r}, nil
}

// Dir is the root's directory: absolute, clean, its links resolved.
func (c *Root) Dir() string { return c.dir }

// Close closes the root's directory.
func (c *Root) Close() error {
	c.fast.close()
	return c.r.Close()
}

// Under reports whether a clean absolute path lies in the root.
func (c *Root) Under(abs string) bool {
	if c.dir == "/" {
		return true
	}
	return abs == c.dir || strings.HasPrefix(abs, c.dir) && abs[len(c.dir)] == '/'
}

// Outside is the refusal of a name outside the root: an
// [*OutsideRootError].
func (c *Root) Outside() error { return &OutsideRootError{Root: c.dir} }

// rel is the name the root's methods take for a clean absolute path.
func (c *Root) rel(name, abs string) (string, error) {
	if !c.Under(abs) {
		return "", c.Outside()
	}
	if abs == c.dir {
		return ".", nil
	}
	if c.dir == "/" {
		return abs[1:], nil
	}
	return abs[len(c.dir)+1:], nil
}

// fix reports an error of the root's methods with the name the script
// gave, and an escape as [ErrOutsideRoot].
func (c *Root) fix(err error, op, name string) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	inner := err
	if errors.As(err, &pe) {
		inner = pe.Err
	}
	if strings.Contains(inner.Error(), "path escapes from parent") {
		inner = c.Outside()
	}
	return &fs.PathError{Op: op, Path: name, Err: inner}
}

// evalSymlinks resolves every link of abs beneath the root, as realpath(3)
// does; a link that leads outside is an error.
func (c *Root) evalSymlinks(name, abs string) (string, error) {
	rel, err := c.rel(name, abs)
	if err != nil {
		return "", pathErr("realpath", name, err)
	}
	var done []string
	todo := strings.Split(rel, "/")
	for hops := 0; len(todo) > 0; {
		part := todo[0]
		todo = todo[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", pathErr("realpath", name, c.Outside())
			}
			done = done[:len(done)-1]
			continue
		}
		p := strings.Join(append(done, part), "/")
		fi, err := c.r.Lstat(p)
		if err != nil {
			return "", c.fix(err, "realpath", name)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = append(done, part)
			continue
		}
		if hops++; hops > 40 {
			return "", pathErr("realpath", name, syscall.ELOOP)
		}
		target, err := c.r.Readlink(p)
		if err != nil {
			return "", c.fix(err, "realpath", name)
		}
		if filepath.IsAbs(target) {
			t, err := c.rel(name, filepath.Clean(target))
			if err != nil {
				return "", pathErr("realpath", name, err)
			}
			done, target = nil, t
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	return filepath.Join(c.dir, strings.Join(done, "/")), nil
}
