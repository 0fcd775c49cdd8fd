package builtins

import (
	"io/fs"
	"strings"
	"syscall"

	"github.com/shelter-sh/shelter/kernel"
)

// This file holds the target rules cp, mv and ln share: where each
// source goes.

// fsPlan is the (source, destination) pairs of a cp, mv or ln call.
type fsPlan struct {
	sources []string
	dests   []string
}

// fsTargets applies the target rules of cp, mv and ln: -t DIR, -T, a last
// operand that is a directory, or exactly SOURCE DEST. follow says
// whether a destination that is a symbolic link to a directory counts as
// the directory (ln -n says not).
func fsTargets(c *kernel.Call, a *args, follow bool) (*fsPlan, error) {
	o := c.Opener()
	ops := a.operands
	isDir := func(name string) (bool, error) {
		var fi fs.FileInfo
		var err error
		if follow {
			fi, err = o.Stat(name)
		} else {
			fi, err = o.Lstat(name)
		}
		if err != nil {
			return false, err
		}
		return fi.IsDir(), nil
	}
	into := func(dir string, srcs []string) *fsPlan {
		p := &fsPlan{}
		for _, s := range srcs {
			p.sources = append(p.sources, s)
			p.dests = append(p.dests, fsJoin(dir, fsBase(s)))
		}
		return p
	}
	if a.has("target-directory") {
		dir := a.value("target-directory", "")
		if a.has("no-target-directory") {
			return nil, fsMissing(c, "cannot combine --target-directory (-t) and --no-target-directory (-T)")
		}
		if len(ops) == 0 {
			return nil, fsMissing(c, "missing file operand")
		}
		ok, err := isDir(dir)
		if err == nil && !ok {
			err = syscall.ENOTDIR
		}
		if err != nil {
			failf(c, "target directory %s: %s", fsQuote(dir), fsReason(err))
			return nil, status(1)
		}
		return into(dir, ops), nil
	}
	switch {
	case len(ops) == 0:
		return nil, fsMissing(c, "missing file operand")
	case len(ops) == 1 && c.Args[0] == "ln":
		return into(".", ops), nil
	case len(ops) == 1:
		return nil, fsMissing(c, "missing destination file operand after "+fsQuote(ops[0]))
	}
	if a.has("no-target-directory") {
		if len(ops) > 2 {
			return nil, fsMissing(c, "extra operand "+fsQuote(ops[2]))
		}
		return &fsPlan{sources: ops[:1], dests: ops[1:]}, nil
	}
	dest := ops[len(ops)-1]
	ok, err := isDir(dest)
	if len(ops) > 2 {
		if err == nil && !ok {
			err = syscall.ENOTDIR
		}
		if err != nil {
			failf(c, "target %s: %s", fsQuote(dest), fsReason(err))
			return nil, status(1)
		}
	}
	if ok {
		return into(dest, ops[:len(ops)-1]), nil
	}
	return &fsPlan{sources: ops[:1], dests: ops[1:]}, nil
}

// fsInside reports whether dest lies in (or is) the directory src, both
// resolved as far as they exist.
func fsInside(o *kernel.Opener, src, dest string) bool {
	s, err := realpathResolve(o, src, realpathExisting, true)
	if err != nil {
		return false
	}
	d, err := realpathResolve(o, dest, realpathMissing, true)
	if err != nil {
		return false
	}
	return d == s || strings.HasPrefix(d, strings.TrimSuffix(s, "/")+"/")
}
