package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// This file holds the commands that change the file tree: mkdir, rm,
// rmdir, cp, mv, ln and touch, and what they share (quoting a name as GNU
// does in its messages, an error's reason, the target rules of cp, mv and
// ln). Every file access goes through the call's opener.

// fsQuote quotes a name as GNU's messages do in the C locale
// (shell-escape-always): 'name', "name" when it holds a single quote and
// nothing a double-quoted shell word would expand, and $'\n' for control
// bytes.
func fsQuote(s string) string {
	needs := false
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b == 0x7f {
			needs = true
		}
	}
	if !needs {
		if !strings.Contains(s, "'") {
			return "'" + s + "'"
		}
		if !strings.ContainsAny(s, "\"$`\\!") {
			return "\"" + s + "\""
		}
	}
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			b.WriteString(`'\''`)
		case c < 0x20 || c == 0x7f:
			b.WriteString(`'$'`)
			switch c {
			case '\n':
				b.WriteString(`\n`)
			case '\t':
				b.WriteString(`\t`)
			case '\r':
				b.WriteString(`\r`)
			default:
				fmt.Fprintf(&b, `\%03o`, c)
			}
			b.WriteString(`''`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	out := b.String()
	// GNU drops the empty '' pairs the escapes leave at either end.
	out = strings.TrimSuffix(out, "''")
	out = strings.TrimPrefix(out, "''")
	return out
}

// fsQuoteC quotes a name as GNU's quote() does in the C locale: 'name',
// with a quote or backslash escaped and control bytes as C escapes.
func fsQuoteC(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// fsQuoteIfNeeded is a name as GNU's quotef() prints it: bare unless it
// holds something a shell would read specially.
func fsQuoteIfNeeded(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\r'\"$`\\|&;<>()*?[]#~=%!{}^") {
		plain := true
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] == 0x7f {
				plain = false
			}
		}
		if plain {
			return s
		}
	}
	return fsQuote(s)
}

// fsReason is the strerror(3) text of a file error, without the operation
// and name the opener's *fs.PathError carries.
func fsReason(err error) string {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &le):
		err = le.Err
	case errors.As(err, &pe):
		err = pe.Err
	}
	if errors.Is(err, kernel.ErrOutsideRoot) || errors.Is(err, kernel.ErrShelterProc) {
		return err.Error()
	}
	return reason(err)
}

// fsUmask is shelter's own umask, read once without changing it.
var fsUmask = sync.OnceValue(func() uint32 {
	b, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return uint32(n)
				}
			}
		}
	}
	return 0o022
})

// fsMode turns unix permission bits (with setuid, setgid, sticky) into an
// fs.FileMode for Chmod.
func fsMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	if m&0o4000 != 0 {
		mode |= fs.ModeSetuid
	}
	if m&0o2000 != 0 {
		mode |= fs.ModeSetgid
	}
	if m&0o1000 != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// fsUnixMode is the reverse of fsMode.
func fsUnixMode(mode fs.FileMode) uint32 {
	m := uint32(mode.Perm())
	if mode&fs.ModeSetuid != 0 {
		m |= 0o4000
	}
	if mode&fs.ModeSetgid != 0 {
		m |= 0o2000
	}
	if mode&fs.ModeSticky != 0 {
		m |= 0o1000
	}
	return m
}

// fsParseMode reads an octal or symbolic (u+x,go-w,a=rX) mode as chmod(1)
// does, applied to cur; umask limits the clauses that name no one.
// The second result is the bits the mode sets or clears explicitly.
func fsParseMode(spec string, cur uint32, isDir bool, umask uint32) (uint32, uint32, bool) {
	if spec == "" {
		return 0, 0, false
	}
	if strings.Trim(spec, "01234567") == "" {
		n, err := strconv.ParseUint(spec, 8, 32)
		if err != nil || n > 0o7777 {
			return 0, 0, false
		}
		return uint32(n), 0o7777, true
	}
	var touched uint32
	for _, clause := range strings.Split(spec, ",") {
		i := 0
		var who uint32
		for ; i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0; i++ {
			switch clause[i] {
			case 'u':
				who |= 0o4700
			case 'g':
				who |= 0o2070
			case 'o':
				who |= 0o1007
			case 'a':
				who |= 0o7777
			}
		}
		masked := who == 0
		if masked {
			who = 0o7777
		}
		if i == len(clause) {
			return 0, 0, false
		}
		for i < len(clause) {
			op := clause[i]
			if op != '+' && op != '-' && op != '=' {
				return 0, 0, false
			}
			i++
			var bits uint32
			if i < len(clause) && strings.IndexByte("ugo", clause[i]) >= 0 {
				var c uint32
				switch clause[i] {
				case 'u':
					c = (cur >> 6) & 7
				case 'g':
					c = (cur >> 3) & 7
				case 'o':
					c = cur & 7
				}
				bits = c<<6 | c<<3 | c
				i++
			} else {
				for ; i < len(clause) && strings.IndexByte("rwxXst", clause[i]) >= 0; i++ {
					switch clause[i] {
					case 'r':
						bits |= 0o444
					case 'w':
						bits |= 0o222
					case 'x':
						bits |= 0o111
					case 'X':
						if isDir || cur&0o111 != 0 {
							bits |= 0o111
						}
					case 's':
						bits |= 0o6000
					case 't':
						bits |= 0o1000
					}
				}
			}
			value := bits & who
			if masked {
				value &^= umask
			}
			switch op {
			case '+':
				cur |= value
				touched |= value
			case '-':
				cur &^= value
				touched |= value
			case '=':
				clear := who
				if masked {
					clear = 0o7777
				}
				cur = cur&^clear | value
				touched |= clear
			}
		}
	}
	return cur, touched, true
}

// fsMissing prints GNU's missing-operand lines.
func fsMissing(c *kernel.Call, what string) error {
	failf(c, "%s\nTry '%s --help' for more information.", what, c.Args[0])
	return status(1)
}

// fsJoin is dir/base as GNU prints it.
func fsJoin(dir, base string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + base
	}
	return dir + "/" + base
}

// fsBase is the last component of a name, trailing slashes ignored.
func fsBase(name string) string {
	t := strings.TrimRight(name, "/")
	if t == "" {
		return "/"
	}
	return filepath.Base(t)
}

// ---- mkdir

var cmdMkdir = &command{
	name:     "mkdir",
	usage:    "[OPTION]... DIRECTORY...",
	about:    "Create the DIRECTORY(ies), if they do not already exist.",
	operands: "directories",
	flags: []flag{
		{short: 'm', long: "mode", arg: "MODE", about: "set file mode (as in chmod), not a=rwx - umask"},
		{short: 'p', long: "parents", about: "no error if existing, make parent directories as needed"},
		{short: 'v', long: "verbose", about: "print a message for each created directory"},
	},
	run: runMkdir,
}

func runMkdir(_ context.Context, c *kernel.Call, a *args) error {
	if len(a.operands) == 0 {
		return fsMissing(c, "missing operand")
	}
	umask := fsUmask()
	var mode uint32
	hasMode := a.has("mode")
	if hasMode {
		m, touched, ok := fsParseMode(a.value("mode", ""), 0o777, true, umask)
		// GNU makes the directory with the mode under the umask, and
		// fixes it afterwards only when a special bit is asked for and
		// a bit the mode names came out wrong.
		if made := (m &^ umask) & 0o1777; m&0o7000 != 0 && (m^made)&touched == 0 {
			m = made
		}
		if !ok {
			failf(c, "invalid mode %s", fsQuoteC(a.value("mode", "")))
			return status(1)
		}
		mode = m
	}
	o := c.Opener()
	verbose := a.has("verbose")
	w := bufio.NewWriter(c.Stdout)
	defer w.Flush()
	made := ""
	created := func(name string) {
		made = name
		if verbose {
			fmt.Fprintf(w, "mkdir: created directory %s\n", fsQuote(name))
		}
	}
	st := 0
	for _, name := range a.operands {
		if a.has("parents") {
			if err := mkdirParents(o, name, created); err != nil {
				w.Flush()
				failf(c, "%s", err)
				st = 1
				continue
			}
		} else {
			if err := o.Mkdir(name, 0o777); err != nil {
				w.Flush()
				failf(c, "cannot create directory %s: %s", fsQuoteC(name), fsReason(err))
				st = 1
				continue
			}
			created(name)
		}
		if hasMode && made == name {
			if err := o.Chmod(name, fsMode(mode)); err != nil {
				w.Flush()
				failf(c, "cannot set permissions of %s: %s", fsQuote(name), fsReason(err))
				st = 1
			}
		}
	}
	if w.Flush() != nil {
		return status(1)
	}
	return status(st)
}

// mkdirParents creates name and its missing parents, in order, reporting
// each it creates.
func mkdirParents(o *kernel.Opener, name string, created func(string)) error {
	var prefixes []string
	for i := 1; i <= len(name); i++ {
		if i == len(name) || name[i] == '/' && name[i-1] != '/' {
			prefixes = append(prefixes, name[:i])
		}
	}
	// From the deepest that exists on: in the sandbox the ancestors of an
	// absolute name under the root (/, /tmp) are outside it, and are
	// neither stat'ed nor made.
	start := 0
	for i := len(prefixes) - 1; i >= 0; i-- {
		if fi, err := o.Stat(prefixes[i]); err == nil && fi.IsDir() {
			start = i + 1
			break
		}
	}
	for _, p := range prefixes[start:] {
		fi, err := o.Stat(p)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("cannot create directory %s: %s", fsQuoteC(p), reason(syscall.ENOTDIR))
			}
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot create directory %s: %s", fsQuoteC(p), fsReason(err))
		}
		if err := o.Mkdir(p, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("cannot create directory %s: %s", fsQuoteC(p), fsReason(err))
		}
		created(p)
	}
	return nil
}

// ---- rm

var cmdRm = &command{
	name:     "rm",
	usage:    "[OPTION]... [FILE]...",
	about:    "Remove (unlink) the FILE(s).",
	operands: "files",
	flags: []flag{
		{short: 'f', long: "force", about: "ignore nonexistent files and arguments, never prompt"},
		{short: 'i', about: "prompt before every removal (refused: there is no terminal)"},
		{short: 'r', long: "recursive", about: "remove directories and their contents recursively"},
		{short: 'R', about: "same as -r"},
		{short: 'd', long: "dir", about: "remove empty directories"},
		{short: 'v', long: "verbose", about: "explain what is being done"},
	},
	run: runRm,
}

type rmState struct {
	ctx                      context.Context
	c                        *kernel.Call
	o                        *kernel.Opener
	w                        *bufio.Writer
	force, recursive, dir, v bool
	st                       int
}

func runRm(ctx context.Context, c *kernel.Call, a *args) error {
	if a.last("force", "i") == "i" {
		return &kernel.Refusal{Line: "rm: -i prompts on a terminal and there is none; allowed: -f/--force or no prompt flag"}
	}
	r := &rmState{ctx: ctx, c: c, o: c.Opener(), w: bufio.NewWriter(c.Stdout),
		force: a.has("force"), recursive: a.has("recursive") || a.has("R"), dir: a.has("dir"), v: a.has("verbose")}
	defer r.w.Flush()
	if len(a.operands) == 0 {
		if r.force {
			return nil
		}
		return fsMissing(c, "missing operand")
	}
	for _, name := range a.operands {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if b := fsBase(name); b == "." || b == ".." {
			r.fail("refusing to remove '.' or '..' directory: skipping %s", fsQuote(name))
			continue
		}
		if r.recursive && r.o.Abs(name) == "/" {
			r.fail("it is dangerous to operate recursively on %s\nrm: use --no-preserve-root to override this failsafe", fsQuote(name))
			continue
		}
		fi, err := r.o.Lstat(name)
		if err != nil {
			if r.force && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			r.fail("cannot remove %s: %s", fsQuote(name), fsReason(err))
			continue
		}
		r.remove(name, fi)
	}
	if r.w.Flush() != nil {
		return status(1)
	}
	return status(r.st)
}

func (r *rmState) fail(format string, a ...any) {
	r.w.Flush()
	failf(r.c, format, a...)
	r.st = 1
}

// remove removes one name whose Lstat is fi, descending into a directory
// when -r was given. It reports whether the name is gone.
func (r *rmState) remove(name string, fi fs.FileInfo) bool {
	if fi.IsDir() {
		switch {
		case r.recursive:
			entries, err := r.o.ReadDir(name)
			if err != nil {
				r.fail("cannot remove %s: %s", fsQuote(name), fsReason(err))
				return false
			}
			ok := true
			for _, e := range entries {
				if r.ctx.Err() != nil {
					return false
				}
				child := fsJoin(name, e.Name())
				cfi, err := r.o.Lstat(child)
				if err != nil {
					r.fail("cannot remove %s: %s", fsQuote(child), fsReason(err))
					ok = false
					continue
				}
				if !r.remove(child, cfi) {
					ok = false
				}
			}
			if !ok {
				return false
			}
		case !r.dir:
			r.fail("cannot remove %s: %s", fsQuote(name), reason(syscall.EISDIR))
			return false
		}
	}
	if err := r.o.Remove(name); err != nil {
		r.fail("cannot remove %s: %s", fsQuote(name), fsReason(err))
		return false
	}
	if r.v {
		if fi.IsDir() {
			fmt.Fprintf(r.w, "removed directory %s\n", fsQuote(name))
		} else {
			fmt.Fprintf(r.w, "removed %s\n", fsQuote(name))
		}
	}
	return true
}

// ---- rmdir

var cmdRmdir = &command{
	name:     "rmdir",
	usage:    "[OPTION]... DIRECTORY...",
	about:    "Remove the DIRECTORY(ies), if they are empty.",
	operands: "directories",
	flags: []flag{
		{long: "ignore-fail-on-non-empty", about: "ignore each failure that is solely because a directory is non-empty"},
		{short: 'p', long: "parents", about: "remove DIRECTORY and its ancestors"},
		{short: 'v', long: "verbose", about: "output a diagnostic for every directory processed"},
	},
	run: runRmdir,
}

func runRmdir(_ context.Context, c *kernel.Call, a *args) error {
	if len(a.operands) == 0 {
		return fsMissing(c, "missing operand")
	}
	o := c.Opener()
	w := bufio.NewWriter(c.Stdout)
	defer w.Flush()
	ignore := a.has("ignore-fail-on-non-empty")
	st := 0
	removeOne := func(name string, parent bool) bool {
		if a.has("verbose") {
			fmt.Fprintf(w, "rmdir: removing directory, %s\n", fsQuote(name))
		}
		fi, err := o.Lstat(name)
		if err == nil && !fi.IsDir() {
			err = syscall.ENOTDIR
		}
		if err == nil {
			err = o.Remove(name)
		}
		if err == nil {
			return true
		}
		if ignore && (errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)) {
			return false
		}
		w.Flush()
		what := ""
		if parent {
			what = "directory "
		}
		failf(c, "failed to remove %s%s: %s", what, fsQuote(name), fsReason(err))
		st = 1
		return false
	}
	for _, name := range a.operands {
		if !removeOne(name, false) || !a.has("parents") {
			continue
		}
		p := strings.TrimRight(name, "/")
		for {
			i := strings.LastIndexByte(p, '/')
			if i <= 0 {
				break
			}
			p = strings.TrimRight(p[:i], "/")
			if p == "" || !removeOne(p, true) {
				break
			}
		}
	}
	if w.Flush() != nil {
		return status(1)
	}
	return status(st)
}

// ---- touch

var cmdTouch = &command{
	name:     "touch",
	usage:    "[OPTION]... FILE...",
	about:    "Update the access and modification times of each FILE to the current time; create it when missing.",
	operands: "files",
	flags: []flag{
		{short: 'a', about: "change only the access time"},
		{short: 'c', long: "no-create", about: "do not create any files"},
		{short: 'd', long: "date", arg: "STRING", about: "use @EPOCH or an ISO date (YYYY-MM-DD[ HH:MM[:SS[.frac]]][Z|±HH:MM]) instead of now"},
		{short: 'm', about: "change only the modification time"},
		{short: 'r', long: "reference", arg: "FILE", about: "use this file's times instead of now"},
		{short: 't', arg: "STAMP", about: "use [[CC]YY]MMDDhhmm[.ss] instead of now"},
	},
	run: runTouch,
}

func runTouch(_ context.Context, c *kernel.Call, a *args) error {
	if len(a.operands) == 0 {
		return fsMissing(c, "missing file operand")
	}
	o := c.Opener()
	loc := fsLocation(c)
	now := time.Now()
	atime, mtime := now, now
	switch a.last("date", "reference", "t") {
	case "date":
		s := a.value("date", "")
		t, ok := touchParseDate(s, now, loc)
		if !ok {
			failf(c, "invalid date format %s", fsQuoteC(s))
			return status(1)
		}
		atime, mtime = t, t
	case "t":
		s := a.value("t", "")
		t, ok := touchParseStamp(s, now, loc)
		if !ok {
			failf(c, "invalid date format %s", fsQuoteC(s))
			return status(1)
		}
		atime, mtime = t, t
	case "reference":
		ref := a.value("reference", "")
		fi, err := o.Stat(ref)
		if err != nil {
			failf(c, "failed to get attributes of %s: %s", fsQuote(ref), fsReason(err))
			return status(1)
		}
		atime, mtime = fsAtime(fi), fi.ModTime()
	}
	onlyA, onlyM := a.has("a"), a.has("m")
	if onlyA && !onlyM {
		mtime = time.Time{}
	}
	if onlyM && !onlyA {
		atime = time.Time{}
	}
	st := 0
	for _, name := range a.operands {
		if _, err := o.Stat(name); errors.Is(err, fs.ErrNotExist) {
			if a.has("no-create") {
				continue
			}
			f, err := o.OpenFile(context.Background(), name, os.O_WRONLY|os.O_CREATE, 0o666)
			if err != nil {
				failf(c, "cannot touch %s: %s", fsQuote(name), fsReason(err))
				st = 1
				continue
			}
			f.Close()
		}
		if err := o.Chtimes(name, atime, mtime); err != nil {
			failf(c, "setting times of %s: %s", fsQuote(name), fsReason(err))
			st = 1
		}
	}
	return status(st)
}

// fsLocation is the time zone the call's TZ names, the process's own when
// it names none.
func fsLocation(c *kernel.Call) *time.Location {
	tz, ok := "", false
	for _, kv := range c.Env {
		if v, found := strings.CutPrefix(kv, "TZ="); found {
			tz, ok = v, true
		}
	}
	if !ok {
		return time.Local
	}
	tz = strings.TrimPrefix(tz, ":")
	if tz == "" || tz == "UTC" || tz == "UTC0" {
		return time.UTC
	}
	if loc, err := time.LoadLocation(tz); err == nil {
		return loc
	}
	return time.UTC
}

// touchParseDate reads touch -d's forms: @EPOCH[.frac], "now", and ISO
// dates with an optional time, fraction and zone.
func touchParseDate(s string, now time.Time, loc *time.Location) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "now" {
		return now, true
	}
	if e, ok := strings.CutPrefix(s, "@"); ok {
		sec, frac, _ := strings.Cut(e, ".")
		n, err := strconv.ParseInt(sec, 10, 64)
		if err != nil {
			return time.Time{}, false
		}
		var ns int64
		if frac != "" {
			if strings.Trim(frac, "0123456789") != "" {
				return time.Time{}, false
			}
			frac = (frac + "000000000")[:9]
			ns, _ = strconv.ParseInt(frac, 10, 64)
			if n < 0 {
				ns = -ns
			}
		}
		return time.Unix(n, ns), true
	}
	for _, layout := range []string{
		"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02T15:04:05.999999999 Z07:00", "2006-01-02 15:04:05.999999999 Z07:00",
		"2006-01-02T15:04Z07:00", "2006-01-02 15:04Z07:00",
		"2006-01-02 15:04 Z07:00",
	} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	for _, layout := range []string{
		"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999",
		"2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02",
	} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// touchParseStamp reads touch -t's [[CC]YY]MMDDhhmm[.ss].
func touchParseStamp(s string, now time.Time, loc *time.Location) (time.Time, bool) {
	main, secs, hasSecs := strings.Cut(s, ".")
	if !isDigits(main) || hasSecs && (len(secs) != 2 || !isDigits(secs)) {
		return time.Time{}, false
	}
	year := now.In(loc).Year()
	switch len(main) {
	case 8:
	case 10:
		yy, _ := strconv.Atoi(main[:2])
		if yy < 69 {
			year = 2000 + yy
		} else {
			year = 1900 + yy
		}
		main = main[2:]
	case 12:
		year, _ = strconv.Atoi(main[:4])
		main = main[4:]
	default:
		return time.Time{}, false
	}
	num := func(i int) int { n, _ := strconv.Atoi(main[i : i+2]); return n }
	mon, day, hh, mm := num(0), num(2), num(4), num(6)
	ss := 0
	if hasSecs {
		ss, _ = strconv.Atoi(secs)
	}
	if mon < 1 || mon > 12 || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(mon), day, hh, mm, ss, 0, loc)
	if t.Day() != day {
		return time.Time{}, false
	}
	return t, true
}

// ---- cp, mv and ln: where the sources go

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

// ---- cp

var cmdCp = &command{
	name:     "cp",
	usage:    "[OPTION]... SOURCE... DEST",
	about:    "Copy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY.",
	operands: "sources and a destination",
	flags: []flag{
		{short: 'a', long: "archive", about: "same as -dR --preserve=mode,timestamps"},
		{short: 'd', about: "same as --no-dereference"},
		{short: 'f', long: "force", about: "if a destination cannot be opened, remove it and try again"},
		{short: 'L', long: "dereference", about: "always follow symbolic links in SOURCE"},
		{short: 'n', long: "no-clobber", about: "do not overwrite an existing file"},
		{short: 'P', long: "no-dereference", about: "never follow symbolic links in SOURCE"},
		{short: 'p', long: "preserve", about: "preserve mode and timestamps"},
		{short: 'R', about: "copy directories recursively"},
		{short: 'r', long: "recursive", about: "copy directories recursively"},
		{short: 't', long: "target-directory", arg: "DIRECTORY", about: "copy all SOURCE arguments into DIRECTORY"},
		{short: 'T', long: "no-target-directory", about: "treat DEST as a normal file"},
		{short: 'v', long: "verbose", about: "explain what is being done"},
	},
	run: runCp,
}

// fsCopier copies files and trees through the opener.
type fsCopier struct {
	ctx       context.Context
	c         *kernel.Call
	o         *kernel.Opener
	w         *bufio.Writer
	recursive bool
	deref     bool // follow links below the command line
	derefArg  bool // follow links named on the command line
	preserve  bool
	noClobber bool
	force     bool
	verbose   bool
	name      string // "cp", or "mv" when mv copies across devices
	st        int
}

func runCp(ctx context.Context, c *kernel.Call, a *args) error {
	cp := &fsCopier{ctx: ctx, c: c, o: c.Opener(), w: bufio.NewWriter(c.Stdout), name: "cp",
		recursive: a.has("recursive") || a.has("R") || a.has("archive"),
		preserve:  a.has("preserve") || a.has("archive"),
		noClobber: a.has("no-clobber"), force: a.has("force"), verbose: a.has("verbose")}
	defer cp.w.Flush()
	switch a.last("dereference", "no-dereference", "d", "archive") {
	case "dereference":
		cp.deref, cp.derefArg = true, true
	case "no-dereference", "d", "archive":
	default:
		cp.derefArg = !cp.recursive
	}
	plan, err := fsTargets(c, a, true)
	if err != nil {
		return err
	}
	for i, src := range plan.sources {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		cp.top(src, plan.dests[i])
	}
	if cp.w.Flush() != nil {
		return status(1)
	}
	return status(cp.st)
}

func (cp *fsCopier) fail(format string, a ...any) {
	cp.w.Flush()
	fmt.Fprintf(cp.c.Stderr, "%s: %s\n", cp.name, fmt.Sprintf(format, a...))
	cp.st = 1
}

func (cp *fsCopier) stat(name string, follow bool) (fs.FileInfo, error) {
	if follow {
		return cp.o.Stat(name)
	}
	return cp.o.Lstat(name)
}

// top copies one command-line source.
func (cp *fsCopier) top(src, dest string) bool {
	fi, err := cp.stat(src, cp.derefArg)
	if err != nil {
		cp.fail("cannot stat %s: %s", fsQuote(src), fsReason(err))
		return false
	}
	if fi.IsDir() {
		if !cp.recursive {
			cp.fail("-r not specified; omitting directory %s", fsQuote(src))
			return false
		}
		if fsInside(cp.o, src, dest) {
			cp.fail("cannot copy a directory, %s, into itself, %s", fsQuote(src), fsQuote(dest))
			return false
		}
	}
	if dfi, err := cp.o.Stat(dest); err == nil && os.SameFile(fi, dfi) {
		cp.fail("%s and %s are the same file", fsQuote(src), fsQuote(dest))
		return false
	}
	return cp.copy(src, dest, fi)
}

// copy copies src, described by fi, to dest.
func (cp *fsCopier) copy(src, dest string, fi fs.FileInfo) bool {
	if cp.ctx.Err() != nil {
		return false
	}
	dfi, derr := cp.o.Lstat(dest)
	exists := derr == nil
	if exists && cp.noClobber {
		return true
	}
	switch {
	case fi.IsDir():
		if exists && !dfi.IsDir() {
			if fdi, err := cp.o.Stat(dest); err != nil || !fdi.IsDir() {
				cp.fail("cannot overwrite non-directory %s with directory %s", fsQuote(dest), fsQuote(src))
				return false
			}
		}
		return cp.copyDir(src, dest, fi, exists)
	case exists && dfi.IsDir():
		cp.fail("cannot overwrite directory %s with non-directory", fsQuote(dest))
		return false
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := cp.o.Readlink(src)
		if err != nil {
			cp.fail("cannot read symbolic link %s: %s", fsQuote(src), fsReason(err))
			return false
		}
		if exists {
			cp.o.Remove(dest)
		}
		if err := cp.o.Symlink(target, dest); err != nil {
			cp.fail("cannot create symbolic link %s: %s", fsQuote(dest), fsReason(err))
			return false
		}
		cp.report(src, dest)
		return true
	case !fi.Mode().IsRegular():
		cp.fail("cannot create special file %s: copying a %s is not supported", fsQuote(dest), fsTypeWord(fi.Mode()))
		return false
	}
	if !cp.copyFile(src, dest, fi, exists) {
		return false
	}
	cp.report(src, dest)
	return true
}

func (cp *fsCopier) report(src, dest string) {
	if cp.verbose {
		fmt.Fprintf(cp.w, "%s -> %s\n", fsQuote(src), fsQuote(dest))
	}
}

func (cp *fsCopier) copyFile(src, dest string, fi fs.FileInfo, exists bool) bool {
	if strings.HasSuffix(dest, "/") {
		cp.fail("cannot create regular file %s: %s", fsQuote(dest), reason(syscall.ENOTDIR))
		return false
	}
	in, err := cp.o.Open(cp.ctx, src)
	if err != nil {
		cp.fail("cannot open %s for reading: %s", fsQuote(src), fsReason(err))
		return false
	}
	defer in.Close()
	out, err := cp.o.OpenFile(cp.ctx, dest, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	if err != nil && exists && cp.force {
		cp.o.Remove(dest)
		out, err = cp.o.OpenFile(cp.ctx, dest, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	}
	if err != nil {
		what := "cannot create regular file"
		if exists {
			what = "cannot open"
		}
		cp.fail("%s %s: %s", what, fsQuote(dest), fsReason(err))
		return false
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		cp.fail("error copying %s to %s: %s", fsQuote(src), fsQuote(dest), fsReason(err))
		return false
	}
	if err := out.Close(); err != nil {
		cp.fail("failed to close %s: %s", fsQuote(dest), fsReason(err))
		return false
	}
	return cp.attributes(dest, fi)
}

// attributes applies -p to dest: the source's mode and times.
func (cp *fsCopier) attributes(dest string, fi fs.FileInfo) bool {
	if !cp.preserve {
		return true
	}
	if err := cp.o.Chtimes(dest, fsAtime(fi), fi.ModTime()); err != nil {
		cp.fail("preserving times for %s: %s", fsQuote(dest), fsReason(err))
		return false
	}
	if err := cp.o.Chmod(dest, fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)); err != nil {
		cp.fail("preserving permissions for %s: %s", fsQuote(dest), fsReason(err))
		return false
	}
	return true
}

func (cp *fsCopier) copyDir(src, dest string, fi fs.FileInfo, exists bool) bool {
	if !exists {
		if err := cp.o.Mkdir(dest, 0o700); err != nil {
			cp.fail("cannot create directory %s: %s", fsQuote(dest), fsReason(err))
			return false
		}
	}
	cp.report(src, dest)
	entries, err := cp.o.ReadDir(src)
	if err != nil {
		cp.fail("cannot access %s: %s", fsQuote(src), fsReason(err))
		return false
	}
	ok := true
	for _, e := range entries {
		s, d := fsJoin(src, e.Name()), fsJoin(dest, e.Name())
		cfi, err := cp.stat(s, cp.deref)
		if err != nil {
			cp.fail("cannot stat %s: %s", fsQuote(s), fsReason(err))
			ok = false
			continue
		}
		if !cp.copy(s, d, cfi) {
			ok = false
		}
	}
	if !exists {
		mode := fsMode(fsUnixMode(fi.Mode()) &^ fsUmask())
		if cp.preserve {
			mode = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		}
		if err := cp.o.Chmod(dest, mode); err != nil {
			cp.fail("setting permissions for %s: %s", fsQuote(dest), fsReason(err))
			return false
		}
	}
	if cp.preserve {
		if err := cp.o.Chtimes(dest, fsAtime(fi), fi.ModTime()); err != nil {
			cp.fail("preserving times for %s: %s", fsQuote(dest), fsReason(err))
			return false
		}
	}
	return ok
}

// fsTypeWord names a file type as GNU's messages do.
func fsTypeWord(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character special file"
	case m&fs.ModeDevice != 0:
		return "block special file"
	}
	return "special file"
}

// ---- mv

var cmdMv = &command{
	name:     "mv",
	usage:    "[OPTION]... SOURCE... DEST",
	about:    "Rename SOURCE to DEST, or move SOURCE(s) to DIRECTORY.",
	operands: "sources and a destination",
	flags: []flag{
		{short: 'f', long: "force", about: "do not prompt before overwriting"},
		{short: 'n', long: "no-clobber", about: "do not overwrite an existing file"},
		{short: 't', long: "target-directory", arg: "DIRECTORY", about: "move all SOURCE arguments into DIRECTORY"},
		{short: 'T', long: "no-target-directory", about: "treat DEST as a normal file"},
		{short: 'v', long: "verbose", about: "explain what is being done"},
	},
	run: runMv,
}

func runMv(ctx context.Context, c *kernel.Call, a *args) error {
	plan, err := fsTargets(c, a, true)
	if err != nil {
		return err
	}
	o := c.Opener()
	w := bufio.NewWriter(c.Stdout)
	defer w.Flush()
	noClobber := a.last("force", "no-clobber") == "no-clobber"
	st := 0
	fail := func(format string, args ...any) {
		w.Flush()
		failf(c, format, args...)
		st = 1
	}
	for i, src := range plan.sources {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		dest := plan.dests[i]
		fi, err := o.Lstat(src)
		if err != nil {
			fail("cannot stat %s: %s", fsQuote(src), fsReason(err))
			continue
		}
		dfi, derr := o.Lstat(dest)
		if derr == nil {
			if noClobber {
				continue
			}
			if os.SameFile(fi, dfi) {
				fail("%s and %s are the same file", fsQuote(src), fsQuote(dest))
				continue
			}
			if fi.IsDir() && !dfi.IsDir() {
				fail("cannot overwrite non-directory %s with directory %s", fsQuote(dest), fsQuote(src))
				continue
			}
			if !fi.IsDir() && dfi.IsDir() {
				fail("cannot overwrite directory %s with non-directory", fsQuote(dest))
				continue
			}
		}
		if fi.IsDir() && fsInside(o, src, dest) {
			fail("cannot move %s to a subdirectory of itself, %s", fsQuote(src), fsQuote(dest))
			continue
		}
		err = o.Rename(src, dest)
		if errors.Is(err, syscall.EXDEV) {
			err = mvAcross(ctx, c, o, src, dest, fi)
			if err == errMvReported {
				st = 1
				continue
			}
		}
		if err != nil {
			fail("cannot move %s to %s: %s", fsQuote(src), fsQuote(dest), fsReason(err))
			continue
		}
		if a.has("verbose") {
			fmt.Fprintf(w, "renamed %s -> %s\n", fsQuote(src), fsQuote(dest))
		}
	}
	if w.Flush() != nil {
		return status(1)
	}
	return status(st)
}

var errMvReported = errors.New("reported")

// mvAcross moves src to dest on another file system: a copy that keeps
// mode and times, then the removal of src.
func mvAcross(ctx context.Context, c *kernel.Call, o *kernel.Opener, src, dest string, fi fs.FileInfo) error {
	cp := &fsCopier{ctx: ctx, c: c, o: o, w: bufio.NewWriter(io.Discard), name: "mv",
		recursive: true, preserve: true}
	if _, err := o.Lstat(dest); err == nil {
		if err := o.RemoveAll(dest); err != nil {
			return err
		}
	}
	if !cp.copy(src, dest, fi) {
		return errMvReported
	}
	return o.RemoveAll(src)
}

// ---- ln

var cmdLn = &command{
	name:     "ln",
	usage:    "[OPTION]... TARGET... [LINK_NAME | DIRECTORY]",
	about:    "Create a link to TARGET with the name LINK_NAME, or links in DIRECTORY; hard links by default.",
	operands: "targets and a link name or directory",
	flags: []flag{
		{short: 'f', long: "force", about: "remove existing destination files"},
		{short: 'n', long: "no-dereference", about: "treat LINK_NAME as a normal file if it is a symbolic link to a directory"},
		{short: 'r', long: "relative", about: "with -s, create links relative to link location"},
		{short: 's', long: "symbolic", about: "make symbolic links instead of hard links"},
		{short: 't', long: "target-directory", arg: "DIRECTORY", about: "create the links in DIRECTORY"},
		{short: 'T', long: "no-target-directory", about: "treat LINK_NAME as a normal file always"},
		{short: 'v', long: "verbose", about: "print name of each linked file"},
	},
	run: runLn,
}

func runLn(ctx context.Context, c *kernel.Call, a *args) error {
	symbolic := a.has("symbolic")
	if a.has("relative") && !symbolic {
		failf(c, "cannot do --relative without --symbolic")
		return status(1)
	}
	plan, err := fsTargets(c, a, !a.has("no-dereference"))
	if err != nil {
		return err
	}
	o := c.Opener()
	w := bufio.NewWriter(c.Stdout)
	defer w.Flush()
	st := 0
	fail := func(format string, args ...any) {
		w.Flush()
		failf(c, format, args...)
		st = 1
	}
	for i, target := range plan.sources {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		link := plan.dests[i]
		if !symbolic {
			if _, err := o.Lstat(target); err != nil {
				fail("failed to access %s: %s", fsQuote(target), fsReason(err))
				continue
			}
		}
		if a.has("relative") {
			target = lnRelative(o, target, link)
		}
		if a.has("force") {
			if lfi, err := o.Lstat(link); err == nil {
				if lfi.IsDir() {
					fail("%s: cannot overwrite directory", fsQuote(link))
					continue
				}
				if tfi, err := o.Lstat(target); !symbolic && err == nil && os.SameFile(tfi, lfi) {
					fail("%s and %s are the same file", fsQuote(target), fsQuote(link))
					continue
				}
				o.Remove(link)
			}
		}
		if symbolic {
			err = o.Symlink(target, link)
		} else {
			err = o.Link(target, link)
		}
		if err != nil {
			if symbolic {
				fail("failed to create symbolic link %s: %s", fsQuote(link), fsReason(err))
			} else {
				fail("failed to create hard link %s: %s", fsQuote(link), fsReason(err))
			}
			continue
		}
		if a.has("verbose") {
			arrow := "=>"
			if symbolic {
				arrow = "->"
			}
			fmt.Fprintf(w, "%s %s %s\n", fsQuote(link), arrow, fsQuote(target))
		}
	}
	if w.Flush() != nil {
		return status(1)
	}
	return status(st)
}

// lnRelative is target as a path relative to the directory link is made
// in, both resolved as far as they exist (ln -r).
func lnRelative(o *kernel.Opener, target, link string) string {
	t, err := realpathResolve(o, target, realpathMissing, true)
	if err != nil {
		return target
	}
	dir, err := realpathResolve(o, filepath.Dir(o.Abs(link)), realpathMissing, true)
	if err != nil {
		return target
	}
	if r, err := filepath.Rel(dir, t); err == nil {
		return r
	}
	return target
}
