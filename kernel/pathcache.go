package kernel

import (
	"path/filepath"
	"strings"

	"github.com/shelter-sh/shelter/spawn"
)

// pathCache is what a call's static pass found on PATH, for its run to
// reuse, so that a command is searched for once per call, not twice. It is
// valid while the command is looked up with the same $PATH and, when that
// PATH has an entry relative to the working directory, the same directory.
// Only names found are kept: a command the script creates before it runs
// it is searched for again, and one found that is gone or no longer
// executable is too. Within a call the cache acts as bash's hash table
// filled at the call's start: a program the call itself adds to an
// earlier PATH directory, under a name found later in PATH, is not seen
// until `hash` (which drops the cache) or a change of PATH. A new call's
// static pass replaces it, so a program added between calls is seen.
type pathCache struct {
	pathVar  string
	dir      string
	relative bool // pathVar has an entry that depends on dir
	found    map[string]string
}

func newPathCache(pathVar, dir string) *pathCache {
	c := &pathCache{pathVar: pathVar, dir: dir, found: make(map[string]string)}
	for _, elem := range filepath.SplitList(pathVar) {
		if !filepath.IsAbs(elem) {
			c.relative = true
			break
		}
	}
	return c
}

// lookup returns the path found for name under pathVar in dir.
func (c *pathCache) lookup(pathVar, dir, name string) (string, bool) {
	if c == nil || pathVar != c.pathVar || c.relative && dir != c.dir {
		return "", false
	}
	p, ok := c.found[name]
	return p, ok
}

// staticLookPath searches name on the session's PATH for the static
// pass and notes what it found for the run; s.mu is held.
func (s *Session) staticLookPath(name string) error {
	pathVar, dir := s.pathVar(), s.runner.Dir
	if _, ok := s.pending.lookup(pathVar, dir, name); ok {
		return nil
	}
	p, err := spawn.LookPath(pathVar, dir, name)
	if err != nil || strings.Contains(name, "/") {
		return err
	}
	if s.pending == nil || s.pending.pathVar != pathVar || s.pending.dir != dir {
		s.pending = newPathCache(pathVar, dir)
	}
	s.pending.found[name] = p
	return nil
}

// lookPath finds a command at run time: what this call's static pass
// found, when PATH and the directory it depends on are as they were
// then and the file is still an executable (one stat, not a search);
// else a search.
func (s *Session) lookPath(pathVar, dir, name string) (string, error) {
	if p, ok := s.paths.Load().lookup(pathVar, dir, name); ok {
		if _, err := spawn.LookPath("", dir, p); err == nil {
			return p, nil
		}
	}
	return spawn.LookPath(pathVar, dir, name)
}
