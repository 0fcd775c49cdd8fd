package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"syscall"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdGrep = &command{
	name:     "grep",
	usage:    "[OPTION]... PATTERNS [FILE]...",
	about:    "Print the lines of each FILE (or standard input) that match PATTERNS, Go's RE2 standing in for POSIX regular expressions (no backreferences).",
	numeric:  "context",
	operands: "PATTERNS (unless -e or -f gives them), then the files to search; - is standard input, none is standard input (or . with -r)",
	flags: []flag{
		{short: 'E', long: "extended-regexp", about: "PATTERNS are extended regular expressions"},
		{short: 'F', long: "fixed-strings", about: "PATTERNS are strings"},
		{short: 'G', long: "basic-regexp", about: "PATTERNS are basic regular expressions (the default)"},
		{short: 'e', long: "regexp", arg: "PATTERNS", about: "use PATTERNS for matching (repeatable)"},
		{short: 'f', long: "file", arg: "FILE", about: "take PATTERNS from FILE, one a line"},
		{short: 'i', long: "ignore-case", about: "ignore case distinctions"},
		{short: 'w', long: "word-regexp", about: "match only whole words"},
		{short: 'x', long: "line-regexp", about: "match only whole lines"},
		{short: 'v', long: "invert-match", about: "select non-matching lines"},
		{short: 'm', long: "max-count", arg: "NUM", about: "stop after NUM selected lines"},
		{short: 'n', long: "line-number", about: "print line numbers"},
		{short: 'H', long: "with-filename", about: "print the file name for each match"},
		{short: 'h', long: "no-filename", about: "never print file names"},
		{short: 'o', long: "only-matching", about: "print only the matched parts of lines"},
		{short: 'q', long: "quiet", about: "print nothing; exit 0 at the first match"},
		{long: "silent", about: "same as --quiet"},
		{short: 's', long: "no-messages", about: "suppress messages about missing or unreadable files"},
		{short: 'c', long: "count", about: "print only a count of selected lines per file"},
		{short: 'l', long: "files-with-matches", about: "print only the names of files with selected lines"},
		{short: 'L', long: "files-without-match", about: "print only the names of files with no selected line"},
		{short: 'r', long: "recursive", about: "search directories recursively, not following symbolic links met on the way"},
		{short: 'R', long: "dereference-recursive", about: "search directories recursively, following all symbolic links"},
		{long: "include", arg: "GLOB", about: "search only files whose base name matches GLOB"},
		{long: "exclude", arg: "GLOB", about: "skip files whose base name matches GLOB"},
		{short: 'A', long: "after-context", arg: "NUM", about: "print NUM lines of trailing context"},
		{short: 'B', long: "before-context", arg: "NUM", about: "print NUM lines of leading context"},
		{short: 'C', long: "context", arg: "NUM", about: "print NUM lines of context on both sides"},
		{long: "color", arg: "WHEN", about: "never or auto (no colour is ever printed)"},
		{long: "colour", arg: "WHEN", about: "same as --color"},
	},
	run: runGrep,
}

// grepOptions are the parsed flags of one grep call.
type grepOptions struct {
	invert, count, quiet, noMessages, lineNumber, only bool
	listMatching, listMissing                          bool
	withName, noName                                   bool
	recursive, deref                                   bool
	maxCount                                           int64 // -1: no limit
	before, after                                      int
	context                                            bool
	filters                                            []grepFilter
}

// A grepFilter is one --include or --exclude, in the order given.
type grepFilter struct {
	glob    string
	include bool
}

func runGrep(ctx context.Context, c *kernel.Call, a *args) error {
	opts, mode, err := grepParseOptions(c, a)
	if err != nil {
		return err
	}
	pats, operands, err := grepPatterns(ctx, c, a, opts)
	if err != nil {
		return err
	}
	m, warnings, err := newGrepMatcher(pats, mode, a.has("ignore-case"), a.has("word-regexp"), a.has("line-regexp"))
	if err != nil {
		var be *grepBackrefError
		if errors.As(err, &be) {
			return be.refusal("grep")
		}
		failf(c, "%s", err)
		return status(2)
	}
	for _, w := range warnings {
		failf(c, "warning: %s", w)
	}
	g := &grepRun{ctx: ctx, c: c, o: opts, m: m, out: newWriter(c.Stdout)}
	defer freeWriter(g.out)
	if opts.maxCount == 0 && !opts.listMissing {
		return status(1)
	}
	implicit := false
	if len(operands) == 0 {
		operands = []string{"-"}
		if opts.recursive {
			operands, implicit = []string{"."}, true
		}
	}
	g.multi = len(operands) > 1
	for _, name := range operands {
		if g.operand(name, implicit) {
			break
		}
	}
	if err := g.out.Flush(); err != nil && !g.writeFailed {
		g.writeFailed = true
	}
	switch {
	case g.writeFailed:
		return status(1)
	case opts.quiet && g.matched:
		return nil
	case g.errored:
		return status(2)
	case g.matched:
		return nil
	}
	return status(1)
}

// grepParseOptions reads the flags; a bad number is GNU's message and
// status 2.
func grepParseOptions(c *kernel.Call, a *args) (*grepOptions, grepMode, error) {
	o := &grepOptions{
		invert: a.has("invert-match"), count: a.has("count"),
		quiet: a.has("quiet") || a.has("silent"), noMessages: a.has("no-messages"),
		lineNumber: a.has("line-number"), only: a.has("only-matching"),
		recursive: a.has("recursive") || a.has("dereference-recursive"),
		deref:     a.has("dereference-recursive"),
		maxCount:  -1,
	}
	switch a.last("files-with-matches", "files-without-match") {
	case "files-with-matches":
		o.listMatching = true
	case "files-without-match":
		o.listMissing = true
	}
	switch a.last("with-filename", "no-filename") {
	case "with-filename":
		o.withName = true
	case "no-filename":
		o.noName = true
	}
	mode, chosen := grepBasic, grepMode(0)
	for _, g := range a.order {
		var m grepMode
		switch g.key {
		case "extended-regexp":
			m = grepExtended
		case "fixed-strings":
			m = grepFixed
		case "basic-regexp":
			m = grepBasic
		default:
			continue
		}
		if chosen != 0 && chosen != m {
			failf(c, "conflicting matchers specified")
			return nil, 0, status(2)
		}
		mode, chosen = m, m
	}
	for _, key := range []string{"color", "colour"} {
		for _, v := range a.values(key) {
			if v != "never" && v != "auto" && v != "none" && v != "no" && v != "tty" && v != "if-tty" {
				return nil, 0, &kernel.Refusal{Command: "grep", What: "--" + key + "=" + kernel.Quote(v) + " is not supported (no colour is printed)", Allowed: []string{"auto", "never"}}
			}
		}
	}
	contextLen := func(key string) (int, bool, error) {
		if !a.has(key) {
			return 0, false, nil
		}
		v := a.value(key, "")
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			if err != nil && errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(v, "-") {
				return 1 << 30, true, nil
			}
			failf(c, "%s: invalid context length argument", v)
			return 0, false, status(2)
		}
		return int(min(n, 1<<30)), true, nil
	}
	both, hasBoth, err := contextLen("context")
	if err != nil {
		return nil, 0, err
	}
	o.before, o.after = both, both
	if n, ok, err := contextLen("before-context"); err != nil {
		return nil, 0, err
	} else if ok {
		o.before = n
	}
	if n, ok, err := contextLen("after-context"); err != nil {
		return nil, 0, err
	} else if ok {
		o.after = n
	}
	o.context = hasBoth || a.has("before-context") || a.has("after-context")
	if a.has("max-count") {
		n, err := strconv.ParseInt(a.value("max-count", ""), 10, 64)
		if err != nil {
			if !errors.Is(err, strconv.ErrRange) {
				failf(c, "invalid max count")
				return nil, 0, status(2)
			}
			n = -1
		}
		if n >= 0 {
			o.maxCount = n
		}
	}
	for _, g := range a.order {
		switch g.key {
		case "include":
			o.filters = append(o.filters, grepFilter{g.value, true})
		case "exclude":
			o.filters = append(o.filters, grepFilter{g.value, false})
		}
	}
	return o, mode, nil
}

// grepPatterns gathers the patterns of -e and -f in order, or takes the
// first operand; it returns the operands left.
func grepPatterns(ctx context.Context, c *kernel.Call, a *args, o *grepOptions) ([]string, []string, error) {
	var pats []string
	given := false
	for _, g := range a.order {
		switch g.key {
		case "regexp":
			given = true
			pats = append(pats, strings.Split(g.value, "\n")...)
		case "file":
			given = true
			f, err := openInput(ctx, c, g.value)
			if err != nil {
				failf(c, "%s", errText(asNamed(err, g.value)))
				return nil, nil, status(2)
			}
			data, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				failf(c, "%s: %s", g.value, reason(grepUnwrap(err)))
				return nil, nil, status(2)
			}
			if len(data) > 0 {
				pats = append(pats, strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")...)
			}
		}
	}
	operands := a.operands
	if !given {
		if len(operands) == 0 {
			fmt.Fprintf(c.Stderr, "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n")
			return nil, nil, status(2)
		}
		pats = strings.Split(operands[0], "\n")
		operands = operands[1:]
	}
	return pats, operands, nil
}

func grepUnwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// grepRun is one grep call's state across its files.
type grepRun struct {
	ctx   context.Context
	c     *kernel.Call
	o     *grepOptions
	m     *grepMatcher
	out   *bufio.Writer
	multi bool

	matched, errored, writeFailed bool
	// printed says a line (or a context group) has been output, so the
	// next group is preceded by "--".
	printed bool
	// visited are the directories being walked under -R, by device and
	// inode, to stop at a loop.
	visited []grepInode
	// br reads each input in turn (search).
	br *bufio.Reader
}

type grepInode struct{ dev, ino uint64 }

// operand searches one command-line name; it reports true when grep
// should stop (-q matched, or output failed).
func (g *grepRun) operand(name string, implicit bool) bool {
	if name == "-" {
		var in io.Reader = strings.NewReader("")
		if g.c.Stdin != nil {
			in = g.c.Stdin
		}
		return g.search("(standard input)", in, g.o.withName || g.multi && !g.o.noName)
	}
	op := g.c.Opener()
	if g.o.recursive {
		fi, err := op.Stat(name)
		if err != nil {
			g.fail(asNamed(err, name))
			return false
		}
		if fi.IsDir() {
			return g.walk(name, implicit, !g.o.noName, fi)
		}
	}
	if g.skipped(name, true) {
		return false
	}
	return g.file(name, g.o.withName || g.multi && !g.o.noName)
}

// skipped applies --include and --exclude: the last filter that matches
// wins; with none matching a file is searched unless the first filter is
// an --include. A command-line name is matched by any of its suffixes
// after a slash, a name met in a walk by its base name.
func (g *grepRun) skipped(name string, commandLine bool) bool {
	if len(g.o.filters) == 0 {
		return false
	}
	candidates := []string{path.Base(name)}
	if commandLine {
		candidates = []string{name}
		for i := 0; i < len(name); i++ {
			if name[i] == '/' && i+1 < len(name) && name[i+1] != '/' {
				candidates = append(candidates, name[i+1:])
			}
		}
	}
	for i := len(g.o.filters) - 1; i >= 0; i-- {
		f := g.o.filters[i]
		for _, n := range candidates {
			if ok, _ := path.Match(f.glob, n); ok {
				return !f.include
			}
		}
	}
	return g.o.filters[0].include
}

// walk searches a directory's files in name order; fi is the directory's,
// needed only where links are followed (-R), nil elsewhere.
func (g *grepRun) walk(dir string, implicit, withName bool, fi fs.FileInfo) bool {
	if g.o.deref {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			id := grepInode{uint64(st.Dev), uint64(st.Ino)}
			for _, v := range g.visited {
				if v == id {
					if !g.o.noMessages {
						g.flushBefore()
						failf(g.c, "%s: warning: recursive directory loop", dir)
					}
					return false
				}
			}
			g.visited = append(g.visited, id)
			defer func() { g.visited = g.visited[:len(g.visited)-1] }()
		}
	}
	op := g.c.Opener()
	entries, err := op.ReadDir(dir)
	if err != nil {
		g.fail(asNamed(err, dir))
		return false
	}
	prefix := strings.TrimRight(dir, "/")
	if prefix == "" {
		prefix = "/"
	} else {
		prefix += "/"
	}
	if implicit {
		prefix = ""
	}
	for _, e := range entries {
		if err := g.ctx.Err(); err != nil {
			g.errored = true
			return true
		}
		child := prefix + e.Name()
		if implicit {
			child = e.Name()
		}
		mode := e.Type()
		var cfi fs.FileInfo // a directory's identity, where links are followed
		switch {
		case mode&fs.ModeSymlink != 0:
			if !g.o.deref {
				continue
			}
			if cfi, err = op.Stat(grepJoin(dir, e.Name(), implicit)); err != nil {
				g.fail(asNamed(err, child))
				continue
			}
			mode = cfi.Mode()
		case mode.IsRegular(), mode.IsDir() && !g.o.deref:
			// The directory's listing says what it is: no stat of its own.
		default:
			if cfi, err = e.Info(); err != nil {
				g.fail(&fs.PathError{Op: "stat", Path: child, Err: grepUnwrap(err)})
				continue
			}
			mode = cfi.Mode()
		}
		switch {
		case mode.IsDir():
			if g.walk(grepJoin(dir, e.Name(), implicit), false, withName, cfi) {
				return true
			}
			continue
		case !mode.IsRegular():
			continue // devices, FIFOs and sockets are skipped in a walk
		}
		if g.skipped(child, false) {
			continue
		}
		if g.listedFile(grepJoin(dir, e.Name(), implicit), child, withName) {
			return true
		}
	}
	return false
}

// grepJoin is the name to open for a walked entry: under the implicit
// "." it is the entry's own name.
func grepJoin(dir, name string, implicit bool) string {
	if implicit {
		return name
	}
	return strings.TrimRight(dir, "/") + "/" + name
}

// file opens and searches one file; display, when given, is the name to
// print instead.
func (g *grepRun) file(name string, withName bool, display ...string) bool {
	shown := name
	if len(display) > 0 {
		shown = display[0]
	}
	f, err := openInput(g.ctx, g.c, name)
	return g.searchFile(f, err, shown, withName)
}

// listedFile searches a regular file a walk listed, shown as shown.
func (g *grepRun) listedFile(name, shown string, withName bool) bool {
	f, err := g.c.Opener().OpenRegular(g.ctx, name)
	return g.searchFile(f, err, shown, withName)
}

// searchFile searches f, opened with err.
func (g *grepRun) searchFile(f io.ReadCloser, err error, shown string, withName bool) bool {
	if err != nil {
		g.fail(asNamed(err, shown))
		return false
	}
	defer f.Close()
	return g.search(shown, f, withName)
}

// fail reports a file's error (unless -s) and marks the status 2.
func (g *grepRun) fail(err error) {
	g.errored = true
	if g.o.noMessages {
		return
	}
	g.flushBefore()
	failf(g.c, "%s", errText(err))
}

// flushBefore flushes stdout so that a message on stderr lands after the
// lines printed before it.
func (g *grepRun) flushBefore() {
	if err := g.out.Flush(); err != nil {
		g.writeFailed = true
	}
}
