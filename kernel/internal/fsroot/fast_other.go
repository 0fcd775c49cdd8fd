//go:build !linux

package fsroot

import (
	"io/fs"
	"os"
)

// beneathFast is Linux's (openat2); elsewhere os.Root walks every name.
type beneathFast struct{}

func (beneathFast) close() {}

// stat is os.Root's Stat (follow) or Lstat.
func (c *Root) stat(rel string, follow bool) (fs.FileInfo, error) {
	if follow {
		return c.r.Stat(rel)
	}
	return c.r.Lstat(rel)
}

// openPlain is os.Root's OpenFile of a regular file, a directory or a
// name that does not exist yet.
func (c *Root) openPlain(rel string, flag int, perm fs.FileMode) (*os.File, error) {
	return c.r.OpenFile(rel, flag, perm)
}

// openHost is os.OpenFile of a name outside any root.
func openHost(name, abs string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(abs, flag, perm)
	return f, named(err, name)
}
