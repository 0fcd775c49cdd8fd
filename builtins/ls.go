package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/user"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdLs = &command{
	name:     "ls",
	usage:    "[OPTION]... [FILE]...",
	about:    "List information about the FILEs (the current directory by default), one name a line, as GNU ls does through a pipe.",
	operands: "files",
	flags: []flag{
		{short: 'a', long: "all", about: "do not ignore entries starting with ."},
		{short: 'A', long: "almost-all", about: "do not list implied . and .."},
		{long: "color", arg: "WHEN", about: "colorize the output: only 'never' is accepted"},
		{short: 'd', long: "directory", about: "list directories themselves, not their contents"},
		{short: 'F', long: "classify", about: "append indicator (one of */=@|) to entries"},
		{short: 'h', long: "human-readable", about: "with -l, print sizes like 1K 234M 2G"},
		{short: 'i', long: "inode", about: "print the index number of each file"},
		{short: 'l', about: "use a long listing format"},
		{short: 'n', long: "numeric-uid-gid", about: "like -l, but list numeric user and group IDs"},
		{short: 'p', about: "append / indicator to directories"},
		{short: 'R', long: "recursive", about: "list subdirectories recursively"},
		{short: 'r', long: "reverse", about: "reverse order while sorting"},
		{short: 'S', about: "sort by file size, largest first"},
		{short: 't', about: "sort by time, newest first"},
		{short: '1', about: "list one file per line (the default here)"},
	},
	run: runLs,
}

// lsEntry is one name to list.
type lsEntry struct {
	name   string // as printed
	path   string // as opened
	fi     fs.FileInfo
	target string      // a link's target
	tfi    fs.FileInfo // what a link leads to, nil when dangling
	terr   error       // why tfi is nil
}

type lsState struct {
	ctx                    context.Context
	c                      *kernel.Call
	o                      *kernel.Opener
	w                      *bufio.Writer
	all, almost, long, dir bool
	human, numeric, inode  bool
	classify, slash        bool
	recursive, reverse     bool
	sortBy                 string // "", "t", "S"
	loc                    *time.Location
	now                    time.Time
	confined               bool
	st                     int
	printed                bool // a section has been printed
}

func runLs(ctx context.Context, c *kernel.Call, a *args) error {
	if a.has("color") {
		switch a.value("color", "") {
		case "never", "no", "none":
		default:
			return &kernel.Refusal{Command: "ls", What: "--color=" + kernel.Quote(a.value("color", "")) + " is not supported", Allowed: []string{"--color=never"}}
		}
	}
	s := &lsState{ctx: ctx, c: c, o: c.Opener(), w: bufio.NewWriter(c.Stdout),
		all: a.has("all"), almost: a.has("almost-all"), dir: a.has("directory"),
		long: a.has("l") || a.has("numeric-uid-gid"), numeric: a.has("numeric-uid-gid"),
		human: a.has("human-readable"), inode: a.has("inode"),
		classify: a.has("classify"), slash: a.has("p"),
		recursive: a.has("recursive") && !a.has("directory"), reverse: a.has("reverse"),
		sortBy: a.last("t", "S"), loc: fsLocation(c), now: time.Now()}
	if a.last("all", "almost-all") == "almost-all" {
		s.all = false
	}
	_, s.confined = s.o.Confined()
	defer s.w.Flush()
	ops := a.operands
	if len(ops) == 0 {
		ops = []string{"."}
	}
	// GNU follows a command-line link to a directory unless -d, -F or -l.
	follow := !s.dir && !s.classify && !s.long
	var files, dirs []*lsEntry
	for _, name := range ops {
		e, err := s.entry(name, name)
		if err == nil && follow && errors.Is(e.terr, kernel.ErrOutsideRoot) {
			// A link to outside the root is refused, not listed as a
			// dangling link.
			err = e.terr
		}
		if err != nil {
			s.w.Flush()
			failf(c, "cannot access %s: %s", fsQuote(name), fsReason(err))
			s.st = 2
			continue
		}
		isDir := e.fi.IsDir() || follow && e.tfi != nil && e.tfi.IsDir()
		if isDir && !s.dir {
			dirs = append(dirs, e)
		} else {
			files = append(files, e)
		}
	}
	s.sort(files)
	s.sort(dirs)
	if len(files) > 0 {
		s.print(files)
		s.printed = true
	}
	header := len(ops) > 1 || s.recursive
	for _, d := range dirs {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.listDir(d.path, header, true)
	}
	if s.w.Flush() != nil {
		return status(2)
	}
	return status(s.st)
}

// entry describes one name, a link's target too.
func (s *lsState) entry(name, path string) (*lsEntry, error) {
	fi, err := s.o.Lstat(path)
	if err != nil {
		return nil, err
	}
	e := &lsEntry{name: name, path: path, fi: fi}
	if fi.Mode()&fs.ModeSymlink != 0 {
		e.target, _ = s.o.Readlink(path)
		e.tfi, e.terr = s.o.Stat(path)
	}
	return e, nil
}

func (s *lsState) listDir(path string, header, top bool) {
	des, err := s.o.ReadDir(path)
	if err != nil {
		s.w.Flush()
		failf(s.c, "cannot open directory %s: %s", fsQuote(path), fsReason(err))
		if top {
			s.st = 2
		} else if s.st == 0 {
			s.st = 1
		}
		return
	}
	var entries []*lsEntry
	if s.all {
		for _, dot := range []string{".", ".."} {
			if e, err := s.entry(dot, fsJoin(path, dot)); err == nil {
				entries = append(entries, e)
			}
		}
	}
	for _, de := range des {
		n := de.Name()
		if n[0] == '.' && !s.all && !s.almost {
			continue
		}
		e, err := s.entry(n, fsJoin(path, n))
		if err != nil {
			s.w.Flush()
			failf(s.c, "cannot access %s: %s", fsQuote(fsJoin(path, n)), fsReason(err))
			if s.st == 0 {
				s.st = 1
			}
			continue
		}
		entries = append(entries, e)
	}
	s.sort(entries)
	if s.printed {
		s.w.WriteByte('\n')
	}
	if header {
		s.w.WriteString(path + ":\n")
	}
	s.printed = true
	if s.long {
		var blocks int64
		for _, e := range entries {
			if st, ok := e.fi.Sys().(*syscall.Stat_t); ok {
				blocks += st.Blocks
			}
		}
		if s.human {
			fmt.Fprintf(s.w, "total %s\n", lsHuman(uint64(blocks)*512))
		} else {
			fmt.Fprintf(s.w, "total %d\n", (blocks+1)/2)
		}
	}
	s.print(entries)
	if !s.recursive {
		return
	}
	for _, e := range entries {
		if s.ctx.Err() != nil {
			return
		}
		if e.fi.IsDir() && e.name != "." && e.name != ".." {
			s.listDir(e.path, true, false)
		}
	}
}

func (s *lsState) sort(entries []*lsEntry) {
	slices.SortStableFunc(entries, func(x, y *lsEntry) int {
		c := 0
		switch s.sortBy {
		case "t":
			c = y.fi.ModTime().Compare(x.fi.ModTime())
		case "S":
			c = -cmpInt64(x.fi.Size(), y.fi.Size())
		}
		if c == 0 {
			c = strings.Compare(x.name, y.name)
		}
		if s.reverse {
			c = -c
		}
		return c
	})
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// print writes one group of entries, aligned as GNU's long format is.
func (s *lsState) print(entries []*lsEntry) {
	if !s.long {
		for _, e := range entries {
			if s.inode {
				s.w.WriteString(strconv.FormatUint(lsIno(e.fi), 10) + " ")
			}
			s.w.WriteString(e.name)
			s.w.WriteString(s.indicator(e.fi))
			s.w.WriteByte('\n')
		}
		return
	}
	type row struct{ ino, links, owner, group, size string }
	rows := make([]row, len(entries))
	var wIno, wLinks, wOwner, wGroup, wSize int
	for i, e := range entries {
		r := row{ino: strconv.FormatUint(lsIno(e.fi), 10)}
		var uid, gid uint32
		var nlink uint64 = 1
		if st, ok := e.fi.Sys().(*syscall.Stat_t); ok {
			uid, gid, nlink = st.Uid, st.Gid, uint64(st.Nlink)
			if e.fi.Mode()&fs.ModeDevice != 0 {
				// glibc's major and minor of a device number.
				rdev := uint64(st.Rdev)
				r.size = fmt.Sprintf("%d, %d", (rdev>>8)&0xfff|(rdev>>32)&^0xfff, rdev&0xff|(rdev>>12)&^0xff)
			}
		}
		r.links = strconv.FormatUint(nlink, 10)
		r.owner = s.idName(uid, false)
		r.group = s.idName(gid, true)
		if r.size == "" {
			if s.human {
				r.size = lsHuman(uint64(e.fi.Size()))
			} else {
				r.size = strconv.FormatInt(e.fi.Size(), 10)
			}
		}
		rows[i] = r
		wIno, wLinks = max(wIno, len(r.ino)), max(wLinks, len(r.links))
		wOwner, wGroup, wSize = max(wOwner, len(r.owner)), max(wGroup, len(r.group)), max(wSize, len(r.size))
	}
	for i, e := range entries {
		r := rows[i]
		if s.inode {
			fmt.Fprintf(s.w, "%*s ", wIno, r.ino)
		}
		fmt.Fprintf(s.w, "%s %*s %-*s %-*s %*s %s %s", lsModeString(e.fi.Mode()), wLinks, r.links,
			wOwner, r.owner, wGroup, r.group, wSize, r.size, s.date(e.fi.ModTime()), e.name)
		if e.fi.Mode()&fs.ModeSymlink != 0 {
			s.w.WriteString(" -> " + e.target)
			if e.tfi != nil && (s.classify || s.slash) {
				s.w.WriteString(s.indicator(e.tfi))
			}
		} else {
			s.w.WriteString(s.indicator(e.fi))
		}
		s.w.WriteByte('\n')
	}
}

// indicator is -F's or -p's mark for a file.
func (s *lsState) indicator(fi fs.FileInfo) string {
	m := fi.Mode()
	switch {
	case m.IsDir() && (s.classify || s.slash):
		return "/"
	case !s.classify:
		return ""
	case m&fs.ModeSymlink != 0:
		return "@"
	case m&fs.ModeNamedPipe != 0:
		return "|"
	case m&fs.ModeSocket != 0:
		return "="
	case m.IsRegular() && m&0o111 != 0:
		return "*"
	}
	return ""
}

// date is GNU's "%b %e %H:%M", or "%b %e  %Y" for a time more than six
// months ago or in the future.
func (s *lsState) date(t time.Time) string {
	t = t.In(s.loc)
	recent := t.After(s.now.Add(-31556952/2*time.Second)) && !t.After(s.now)
	if recent {
		return t.Format("Jan _2 15:04")
	}
	return t.Format("Jan _2  2006")
}

var lsNames sync.Map // "u123" or "g123" → name

// idName is a user's or group's name, its number when it has none or -n
// was given. A confined session prints numbers: the host's user and
// group databases lie outside its root.
func (s *lsState) idName(id uint32, group bool) string {
	n := strconv.FormatUint(uint64(id), 10)
	if s.numeric || s.confined {
		return n
	}
	key := "u" + n
	if group {
		key = "g" + n
	}
	if v, ok := lsNames.Load(key); ok {
		return v.(string)
	}
	name := n
	if group {
		if g, err := user.LookupGroupId(n); err == nil {
			name = g.Name
		}
	} else if u, err := user.LookupId(n); err == nil {
		name = u.Username
	}
	lsNames.Store(key, name)
	return name
}

func lsIno(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

// lsModeString is the ten-character mode of ls -l.
func lsModeString(m fs.FileMode) string {
	b := []byte("----------")
	switch {
	case m.IsDir():
		b[0] = 'd'
	case m&fs.ModeSymlink != 0:
		b[0] = 'l'
	case m&fs.ModeNamedPipe != 0:
		b[0] = 'p'
	case m&fs.ModeSocket != 0:
		b[0] = 's'
	case m&fs.ModeCharDevice != 0:
		b[0] = 'c'
	case m&fs.ModeDevice != 0:
		b[0] = 'b'
	}
	const rwx = "rwxrwxrwx"
	for i := 0; i < 9; i++ {
		if m&(1<<uint(8-i)) != 0 {
			b[i+1] = rwx[i]
		}
	}
	special := func(i int, set bool, lower, upper byte) {
		if !set {
			return
		}
		if b[i] == 'x' {
			b[i] = lower
		} else {
			b[i] = upper
		}
	}
	special(3, m&fs.ModeSetuid != 0, 's', 'S')
	special(6, m&fs.ModeSetgid != 0, 's', 'S')
	special(9, m&fs.ModeSticky != 0, 't', 'T')
	return string(b)
}

// lsHuman is a size as GNU's -h prints it: powers of 1024, rounded up,
// one decimal below 10.
func lsHuman(n uint64) string {
	if n < 1024 {
		return strconv.FormatUint(n, 10)
	}
	const units = "KMGTPEZY"
	base := uint64(1024)
	for i := 0; i < len(units); i++ {
		if i+1 < len(units) && n >= base*1024 {
			base *= 1024
			continue
		}
		tenths := (n*10 + base - 1) / base
		if tenths < 100 {
			return fmt.Sprintf("%d.%d%c", tenths/10, tenths%10, units[i])
		}
		whole := (n + base - 1) / base
		if whole >= 1024 && i+1 < len(units) {
			return "1.0" + string(units[i+1])
		}
		return fmt.Sprintf("%d%c", whole, units[i])
	}
	return strconv.FormatUint(n, 10)
}
