package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// findTool is find: its words are an expression, not getopt flags, so it
// reads its own argv instead of the framework's parse.
type findTool struct{ *command }

var cmdFind = &findTool{&command{
	name:  "find",
	usage: "[PATH]... [EXPRESSION]",
	about: "Walk the PATHs (. by default) and print the names the expression selects. Primaries: " +
		"-name -iname -path -wholename -ipath -iwholename PATTERN, -type [fdlpsbc], -maxdepth N, -mindepth N, " +
		"-newer FILE, -size [+-]N[cwbkMG], -empty, -mtime [+-]N, -mmin [+-]N, -print, -print0, -prune, -true, -false, " +
		"! -not, -a -and, -o -or, ( ). Directories are walked in name order. -exec, -execdir, -ok, -okdir and -delete are refused: use xargs.",
	operands: "paths and an expression",
}}

// Run reads the paths and the expression and walks.
func (f *findTool) Run(ctx context.Context, c *kernel.Call) error {
	if len(c.Args) == 2 && c.Args[1] == "--help" {
		_, err := io.WriteString(c.Stdout, f.help())
		return err
	}
	return runFind(ctx, c, c.Args[1:])
}

// findNode is one node of the expression: it reports whether the file
// matches, and may print or prune.
type findNode func(w *findWalk, e *findFile) bool

type findFile struct {
	path  string
	depth int
	mode  fs.FileMode // its type, from its directory's listing
	fi    fs.FileInfo // its lstat, made when a test first needs one
	prune bool
}

// info is e's lstat, made at the first test that asks more of it than its
// name and its type (-size, -mtime, -newer, -empty), as GNU find stats a
// file only then; false when the file cannot be looked at any more.
func (w *findWalk) info(e *findFile) (fs.FileInfo, bool) {
	if e.fi == nil {
		fi, err := w.o.Lstat(e.path)
		if err != nil {
			w.fail(fsFindQuote(e.path), err)
			return nil, false
		}
		e.fi = fi
	}
	return e.fi, true
}

type findWalk struct {
	ctx      context.Context
	c        *kernel.Call
	o        *kernel.Opener
	w        *bufio.Writer
	expr     findNode
	maxDepth int // -1: none
	minDepth int
	now      time.Time
	st       int
}

// findParser reads the expression's words.
type findParser struct {
	words  []string
	i      int
	w      *findWalk
	action bool // an action (-print, -print0) was given
}

// findError is a parse error printed as find prints it, status 1.
type findError string

func (e findError) Error() string { return string(e) }

func runFind(ctx context.Context, c *kernel.Call, argv []string) error {
	w := &findWalk{ctx: ctx, c: c, o: c.Opener(), w: bufio.NewWriter(c.Stdout), maxDepth: -1, now: time.Now()}
	defer w.w.Flush()
	var paths []string
	i := 0
	for ; i < len(argv); i++ {
		a := argv[i]
		if a == "--" && len(paths) == 0 {
			continue
		}
		if len(a) > 1 && a[0] == '-' || a == "(" || a == "!" || a == ")" {
			break
		}
		paths = append(paths, a)
	}
	p := &findParser{words: argv[i:], w: w}
	expr, err := p.parse()
	if err != nil {
		var fe findError
		if errors.As(err, &fe) {
			failf(c, "%s", string(fe))
			return status(1)
		}
		return err
	}
	if !p.action {
		inner := expr
		expr = func(w *findWalk, e *findFile) bool {
			if inner(w, e) {
				w.print(e.path, '\n')
			}
			return true
		}
	}
	w.expr = expr
	if len(paths) == 0 {
		paths = []string{"."}
	}
	for _, path := range paths {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if path == "" {
			w.fail("''", syscall.ENOENT)
			continue
		}
		fi, err := w.o.Lstat(path)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 && strings.HasSuffix(path, "/") {
			// A trailing slash names what the link leads to.
			fi, err = w.o.Stat(path)
		}
		if err != nil {
			w.fail(fsFindQuote(path), err)
			continue
		}
		w.walk(&findFile{path: path, mode: fi.Mode().Type(), fi: fi})
	}
	if w.w.Flush() != nil {
		return status(1)
	}
	return status(w.st)
}

// fsFindQuote quotes a name as find's messages do: 'name'.
func fsFindQuote(name string) string {
	return "'" + name + "'"
}

func (w *findWalk) fail(quoted string, err error) {
	w.w.Flush()
	failf(w.c, "%s: %s", quoted, fsReason(err))
	w.st = 1
}

func (w *findWalk) print(path string, end byte) {
	w.w.WriteString(path)
	w.w.WriteByte(end)
}

func (w *findWalk) walk(e *findFile) {
	if w.ctx.Err() != nil {
		return
	}
	if e.depth >= w.minDepth {
		w.expr(w, e)
	}
	if !e.mode.IsDir() || e.prune || w.maxDepth >= 0 && e.depth >= w.maxDepth {
		return
	}
	entries, err := w.o.ReadDir(e.path)
	if err != nil {
		w.fail(fsFindQuote(e.path), err)
		return
	}
	for _, de := range entries {
		w.walk(&findFile{path: fsJoin(e.path, de.Name()), depth: e.depth + 1, mode: de.Type()})
	}
}

func (p *findParser) parse() (findNode, error) {
	if len(p.words) == 0 {
		return func(*findWalk, *findFile) bool { return true }, nil
	}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.words) {
		if p.words[p.i] == ")" {
			return nil, findError("you have too many ')'")
		}
		return nil, findError(fmt.Sprintf("paths must precede expression: `%s'", p.words[p.i]))
	}
	return n, nil
}

func (p *findParser) peek() string {
	if p.i < len(p.words) {
		return p.words[p.i]
	}
	return ""
}

func (p *findParser) or() (findNode, error) {
	left, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.peek() == "-o" || p.peek() == "-or" {
		p.i++
		right, err := p.and()
		if err != nil {
			return nil, err
		}
		l := left
		left = func(w *findWalk, e *findFile) bool { return l(w, e) || right(w, e) }
	}
	return left, nil
}

func (p *findParser) and() (findNode, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		switch p.peek() {
		case "", ")", "-o", "-or":
			return left, nil
		case "-a", "-and":
			p.i++
		}
		right, err := p.unary()
		if err != nil {
			return nil, err
		}
		l := left
		left = func(w *findWalk, e *findFile) bool { return l(w, e) && right(w, e) }
	}
}

func (p *findParser) unary() (findNode, error) {
	switch p.peek() {
	case "":
		return nil, findError("invalid expression; expected an expression at the end")
	case "!", "-not":
		p.i++
		n, err := p.unary()
		if err != nil {
			return nil, err
		}
		return func(w *findWalk, e *findFile) bool { return !n(w, e) }, nil
	case "(":
		p.i++
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, findError("invalid expression; I was expecting to find a ')' somewhere but did not see one.")
		}
		p.i++
		return n, nil
	}
	return p.primary()
}

// findRefused names the primaries that run or delete, refused here.
var findRefused = map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true, "-delete": true}

var findPrimaries = []string{"-name", "-iname", "-path", "-wholename", "-ipath", "-iwholename", "-type", "-maxdepth", "-mindepth",
	"-newer", "-size", "-empty", "-mtime", "-mmin", "-print", "-print0", "-prune", "-true", "-false", "-not", "-a", "-and", "-o", "-or", "!", "(", ")"}

func (p *findParser) primary() (findNode, error) {
	name := p.words[p.i]
	p.i++
	if findRefused[name] {
		return nil, &kernel.Refusal{Command: "find", What: "primary " + kernel.Quote(name) + " is not supported", Allowed: []string{"-print0 | xargs -0 CMD"}}
	}
	if !strings.HasPrefix(name, "-") || len(name) == 1 {
		return nil, findError(fmt.Sprintf("paths must precede expression: `%s'", name))
	}
	arg := func() (string, error) {
		if p.i >= len(p.words) {
			return "", findError(fmt.Sprintf("missing argument to `%s'", name))
		}
		p.i++
		return p.words[p.i-1], nil
	}
	switch name {
	case "-name", "-iname", "-path", "-wholename", "-ipath", "-iwholename":
		pat, err := arg()
		if err != nil {
			return nil, err
		}
		fold := name[1] == 'i'
		whole := strings.HasSuffix(name, "path") || strings.HasSuffix(name, "wholename")
		return func(w *findWalk, e *findFile) bool {
			s := e.path
			if !whole {
				s = fsBase(e.path)
			}
			return findMatch(pat, s, fold)
		}, nil
	case "-type":
		t, err := arg()
		if err != nil {
			return nil, err
		}
		var want []fs.FileMode
		for _, k := range strings.Split(t, ",") {
			m, ok := map[string]fs.FileMode{"f": 0, "d": fs.ModeDir, "l": fs.ModeSymlink, "p": fs.ModeNamedPipe,
				"s": fs.ModeSocket, "b": fs.ModeDevice, "c": fs.ModeDevice | fs.ModeCharDevice}[k]
			if !ok {
				return nil, findError("Unknown argument to -type: " + k)
			}
			want = append(want, m)
		}
		return func(w *findWalk, e *findFile) bool {
			got := e.mode.Type()
			for _, m := range want {
				if got == m {
					return true
				}
			}
			return false
		}, nil
	case "-maxdepth", "-mindepth":
		v, err := arg()
		if err != nil {
			return nil, err
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || !isDigits(strings.TrimPrefix(v, "+")) {
			return nil, findError(fmt.Sprintf("Expected a positive decimal integer argument to %s, but got '%s'", name, v))
		}
		if name == "-maxdepth" {
			p.w.maxDepth = n
		} else {
			p.w.minDepth = n
		}
		return func(*findWalk, *findFile) bool { return true }, nil
	case "-newer":
		ref, err := arg()
		if err != nil {
			return nil, err
		}
		fi, err := p.w.o.Stat(ref)
		if err != nil {
			return nil, findError(fsFindQuote(ref) + ": " + fsReason(err))
		}
		t := fi.ModTime()
		return func(w *findWalk, e *findFile) bool {
			fi, ok := w.info(e)
			return ok && fi.ModTime().After(t)
		}, nil
	case "-size":
		v, err := arg()
		if err != nil {
			return nil, err
		}
		cmp, num := findSign(v)
		unit := int64(512)
		if num != "" {
			if u, ok := map[byte]int64{'c': 1, 'w': 2, 'b': 512, 'k': 1024, 'M': 1 << 20, 'G': 1 << 30}[num[len(num)-1]]; ok {
				unit, num = u, num[:len(num)-1]
			}
		}
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || !isDigits(num) {
			return nil, findError(fmt.Sprintf("invalid -size type `%s'", v))
		}
		return func(w *findWalk, e *findFile) bool {
			fi, ok := w.info(e)
			return ok && findCompare(cmp, (fi.Size()+unit-1)/unit, n)
		}, nil
	case "-mtime", "-mmin":
		v, err := arg()
		if err != nil {
			return nil, err
		}
		cmp, num := findSign(v)
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || !isDigits(num) {
			return nil, findError(fmt.Sprintf("invalid argument `%s' to `%s'", v, name))
		}
		period := 24 * time.Hour
		if name == "-mmin" {
			period = time.Minute
		}
		return func(w *findWalk, e *findFile) bool {
			fi, ok := w.info(e)
			if !ok {
				return false
			}
			age := w.now.Sub(fi.ModTime())
			units := int64(age / period)
			if age < 0 {
				units = int64((age - period + 1) / period)
			}
			return findCompare(cmp, units, n)
		}, nil
	case "-empty":
		return func(w *findWalk, e *findFile) bool {
			switch {
			case e.mode.IsRegular():
				fi, ok := w.info(e)
				return ok && fi.Size() == 0
			case e.mode.IsDir():
				entries, err := w.o.ReadDir(e.path)
				return err == nil && len(entries) == 0
			}
			return false
		}, nil
	case "-print", "-print0":
		p.action = true
		end := byte('\n')
		if name == "-print0" {
			end = 0
		}
		return func(w *findWalk, e *findFile) bool { w.print(e.path, end); return true }, nil
	case "-prune":
		return func(w *findWalk, e *findFile) bool { e.prune = true; return true }, nil
	case "-true":
		return func(*findWalk, *findFile) bool { return true }, nil
	case "-false":
		return func(*findWalk, *findFile) bool { return false }, nil
	}
	return nil, &kernel.Refusal{Command: "find", What: "unknown primary " + kernel.Quote(name), Allowed: findPrimaries}
}

// findSign splits +N and -N.
func findSign(v string) (byte, string) {
	if v != "" && (v[0] == '+' || v[0] == '-') {
		return v[0], v[1:]
	}
	return '=', v
}

func findCompare(cmp byte, got, n int64) bool {
	switch cmp {
	case '+':
		return got > n
	case '-':
		return got < n
	}
	return got == n
}

// findMatch is fnmatch(3) without FNM_PATHNAME or FNM_PERIOD: * and ?
// match any byte, / included; [...] is a class ([!...] or [^...]
// negated); a backslash quotes the next byte.
func findMatch(pat, s string, fold bool) bool {
	if fold {
		pat, s = strings.ToLower(pat), strings.ToLower(s)
	}
	px, sx := 0, 0
	starP, starS := -1, -1
	for sx < len(s) {
		if px < len(pat) {
			switch c := pat[px]; c {
			case '*':
				starP, starS = px, sx
				px++
				continue
			case '?':
				px++
				sx++
				continue
			case '[':
				if ok, n, valid := findClass(pat[px:], s[sx]); valid {
					if ok {
						px += n
						sx++
						continue
					}
				} else if s[sx] == '[' {
					px++
					sx++
					continue
				}
			case '\\':
				if px+1 < len(pat) && pat[px+1] == s[sx] {
					px += 2
					sx++
					continue
				}
			default:
				if c == s[sx] {
					px++
					sx++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		starS++
		px, sx = starP+1, starS
	}
	for px < len(pat) && pat[px] == '*' {
		px++
	}
	return px == len(pat)
}

// findClass matches one byte against the class that pat starts with,
// returning the class's length; valid is false when it is not closed.
func findClass(pat string, b byte) (match bool, n int, valid bool) {
	i := 1
	neg := i < len(pat) && (pat[i] == '!' || pat[i] == '^')
	if neg {
		i++
	}
	first := true
	for i < len(pat) {
		c := pat[i]
		if c == ']' && !first {
			return match != neg, i + 1, true
		}
		first = false
		if c == '\\' && i+1 < len(pat) {
			i++
			c = pat[i]
		}
		if i+2 < len(pat) && pat[i+1] == '-' && pat[i+2] != ']' {
			if c <= b && b <= pat[i+2] {
				match = true
			}
			i += 3
			continue
		}
		if c == b {
			match = true
		}
		i++
	}
	return false, 0, false
}
