package builtins

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdDiff = &command{
	name:     "diff",
	usage:    "[OPTION]... FILE1 FILE2",
	about:    "Compare two files line by line (- is standard input).",
	operands: "the two files to compare",
	flags: []flag{
		{short: 'q', long: "brief", about: "report only when files differ"},
		{short: 'u', about: "output 3 lines of unified context"},
		{short: 'U', long: "unified", arg: "NUM", about: "output NUM lines of unified context"},
		{short: 'i', long: "ignore-case", about: "ignore case differences in file contents"},
		{short: 'w', long: "ignore-all-space", about: "ignore all white space"},
		{short: 'b', long: "ignore-space-change", about: "ignore changes in the amount of white space"},
		{short: 'a', long: "text", about: "treat all files as text"},
		{short: 'N', long: "new-file", about: "treat absent files as empty"},
		{long: "label", arg: "LABEL", about: "use LABEL instead of file name and timestamp (twice: the second file's)"},
	},
	run: runDiff,
}

// A diffFile is one side: its lines (without terminators) and whether
// the last one lacks its newline.
type diffFile struct {
	name   string
	data   []byte
	lines  [][]byte
	noEOL  bool
	mtime  time.Time
	label  string
	labeld bool
}

type diffOpts struct {
	brief, unified, fold, allSpace, spaceChange, text, newFile bool
	context                                                    int
}

func diffUsage(c *kernel.Call, format string, a ...any) error {
	failf(c, format, a...)
	failf(c, "Try '%s --help' for more information.", c.Args[0])
	return status(2)
}

func runDiff(ctx context.Context, c *kernel.Call, a *args) error {
	o := diffOpts{
		brief: a.has("brief"), fold: a.has("ignore-case"), allSpace: a.has("ignore-all-space"),
		spaceChange: a.has("ignore-space-change"), text: a.has("text"), newFile: a.has("new-file"),
		context: 3,
	}
	o.unified = a.has("u") || a.has("unified")
	if a.has("unified") {
		n, err := strconv.Atoi(a.value("unified", ""))
		if err != nil || n < 0 {
			return diffUsage(c, "invalid context length '%s'", a.value("unified", ""))
		}
		if a.last("u", "unified") == "unified" {
			o.context = n
		}
	}
	switch len(a.operands) {
	case 0:
		return diffUsage(c, "missing operand after '%s'", c.Args[0])
	case 1:
		return diffUsage(c, "missing operand after '%s'", a.operands[0])
	case 2:
	default:
		return diffUsage(c, "extra operand '%s'", a.operands[2])
	}
	names := []string{a.operands[0], a.operands[1]}
	dirs := [2]bool{}
	for i, n := range names {
		if n == "-" {
			continue
		}
		if fi, err := c.Opener().Stat(n); err == nil && fi.IsDir() {
			dirs[i] = true
		}
	}
	switch {
	case dirs[0] && dirs[1]:
		failf(c, "%s: Is a directory; comparing directories is not supported", names[0])
		return status(2)
	case dirs[0] && names[1] != "-":
		names[0] = path.Join(names[0], path.Base(names[1]))
	case dirs[1] && names[0] != "-":
		names[1] = path.Join(names[1], path.Base(names[0]))
	}
	var files [2]*diffFile
	trouble := false
	for i, n := range names {
		f, err := diffRead(ctx, c, n, o.newFile)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			failf(c, "%s", cutFileErr(n, err))
			trouble = true
			continue
		}
		files[i] = f
	}
	if trouble {
		return status(2)
	}
	for i, l := range a.values("label") {
		if i < 2 {
			files[i].label, files[i].labeld = l, true
		}
	}
	if bytes.Equal(files[0].data, files[1].data) {
		return nil
	}
	w := newWriter(c.Stdout)
	defer freeWriter(w)
	if !o.text && (diffBinary(files[0].data) || diffBinary(files[1].data)) {
		if o.brief {
			fmt.Fprintf(w, "Files %s and %s differ\n", names[0], names[1])
		} else {
			fmt.Fprintf(w, "Binary files %s and %s differ\n", names[0], names[1])
		}
		w.Flush()
		return status(1)
	}
	changes := diffCompute(files[0], files[1], &o)
	if len(changes) == 0 {
		return nil
	}
	switch {
	case o.brief:
		fmt.Fprintf(w, "Files %s and %s differ\n", names[0], names[1])
	case o.unified:
		loc := diffLocation(c)
		for i, f := range files {
			mark := "---"
			if i == 1 {
				mark = "+++"
			}
			if f.labeld {
				fmt.Fprintf(w, "%s %s\n", mark, f.label)
			} else {
				fmt.Fprintf(w, "%s %s\t%s\n", mark, f.name, f.mtime.In(loc).Format("2006-01-02 15:04:05.000000000 -0700"))
			}
		}
		diffUnified(w, files[0], files[1], changes, o.context)
	default:
		diffNormal(w, files[0], files[1], changes)
	}
	if err := w.Flush(); err != nil {
		return status(2)
	}
	return status(1)
}

// diffLocation is the session's TZ, as GNU diff prints timestamps in it.
func diffLocation(c *kernel.Call) *time.Location {
	tz := strings.TrimPrefix(c.Getenv("TZ"), ":")
	if tz == "" {
		return time.Local
	}
	if loc, err := time.LoadLocation(tz); err == nil {
		return loc
	}
	return time.UTC
}

// diffBinary reports whether data looks binary as GNU diff decides: a NUL
// byte in its first buffer.
func diffBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 32<<10)], 0) >= 0
}

func diffRead(ctx context.Context, c *kernel.Call, name string, newFile bool) (*diffFile, error) {
	f := &diffFile{name: name, mtime: time.Now()}
	if name != "-" {
		fi, err := c.Opener().Stat(name)
		if err != nil {
			if newFile && errors.Is(err, fs.ErrNotExist) {
				f.mtime = time.Unix(0, 0)
				return f, nil
			}
			return nil, err
		}
		if fi.IsDir() {
			return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
		}
		f.mtime = fi.ModTime()
	}
	data, err := sortRead(ctx, c, name)
	if err != nil {
		return nil, err
	}
	f.data = data
	f.lines = sortSplit(nil, data, '\n')
	f.noEOL = len(data) > 0 && data[len(data)-1] != '\n'
	return f, nil
}

// A diffChange is one hunk of GNU's script: at line0 of the first file
// (0-based) deleted lines go, at line1 of the second inserted ones come.
type diffChange struct{ line0, line1, deleted, inserted int }

// diffCompute finds the changes as GNU diff does: identical ends set
// aside, lines in classes, lines without a match discarded, Myers'
// divide and conquer, then the boundaries shifted to GNU's places.
func diffCompute(a, b *diffFile, o *diffOpts) []diffChange {
	n0, n1 := len(a.lines), len(b.lines)
	same := func(i, j int) bool {
		return bytes.Equal(a.lines[i], b.lines[j]) && (i == n0-1 && a.noEOL) == (j == n1-1 && b.noEOL)
	}
	prefix := 0
	for prefix < n0 && prefix < n1 && same(prefix, prefix) {
		prefix++
	}
	suffix := 0
	for suffix < n0-prefix && suffix < n1-prefix && same(n0-1-suffix, n1-1-suffix) {
		suffix++
	}
	horizon := 0
	if o.unified {
		horizon = o.context
	}
	prefix -= min(prefix, horizon)
	suffix -= min(suffix, horizon)

	classes := map[string]int{}
	var key []byte
	equivs := func(f *diffFile, from, to int) []int {
		out := make([]int, to-from)
		for i := from; i < to; i++ {
			key = diffKey(key[:0], f.lines[i], o)
			if i == len(f.lines)-1 && f.noEOL {
				key = append(key, 0, 'N')
			}
			id, ok := classes[string(key)]
			if !ok {
				id = len(classes) + 1
				classes[string(key)] = id
			}
			out[i-from] = id
		}
		return out
	}
	eq := [2][]int{equivs(a, prefix, n0-suffix), equivs(b, prefix, n1-suffix)}
	// changed has a zero sentinel on each side: changed[f][i+1] is line i.
	changed := [2][]bool{make([]bool, len(eq[0])+2), make([]bool, len(eq[1])+2)}
	diffMiddle(eq, changed, len(classes)+1)
	diffShift(eq, changed)

	var out []diffChange
	c0, c1 := changed[0][1:], changed[1][1:]
	for i0, i1 := 0, 0; i0 < len(eq[0]) || i1 < len(eq[1]); i0, i1 = i0+1, i1+1 {
		if c0[i0] || c1[i1] {
			s0, s1 := i0, i1
			for c0[i0] {
				i0++
			}
			for c1[i1] {
				i1++
			}
			out = append(out, diffChange{prefix + s0, prefix + s1, i0 - s0, i1 - s1})
		}
	}
	return out
}

func diffSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// diffKey is the form of a line that -i, -w and -b compare.
func diffKey(dst, line []byte, o *diffOpts) []byte {
	for i := 0; i < len(line); i++ {
		ch := line[i]
		if diffSpace(ch) && (o.allSpace || o.spaceChange) {
			j := i
			for j < len(line) && diffSpace(line[j]) {
				j++
			}
			if !o.allSpace && j < len(line) {
				dst = append(dst, ' ')
			}
			i = j - 1
			continue
		}
		if o.fold && ch >= 'A' && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		dst = append(dst, ch)
	}
	return dst
}

// diffMiddle discards the lines that cannot match (GNU's
// discard_confusing_lines) and runs the comparison on the rest, marking
// changed lines.
func diffMiddle(eq [2][]int, changed [2][]bool, nclass int) {
	var counts [2][]int
	for f := 0; f < 2; f++ {
		counts[f] = make([]int, nclass)
		for _, e := range eq[f] {
			counts[f][e]++
		}
	}
	var discards [2][]byte
	for f := 0; f < 2; f++ {
		end := len(eq[f])
		d := make([]byte, end)
		other := counts[1-f]
		many := 5
		for tem := end / 64; ; {
			if tem >>= 2; tem <= 0 {
				break
			}
			many *= 2
		}
		for i, e := range eq[f] {
			switch n := other[e]; {
			case n == 0:
				d[i] = 1
			case n > many:
				d[i] = 2
			}
		}
		diffKeepProvisional(d)
		discards[f] = d
	}
	var vec, real [2][]int
	for f := 0; f < 2; f++ {
		for i, e := range eq[f] {
			if discards[f][i] == 0 {
				vec[f] = append(vec[f], e)
				real[f] = append(real[f], i)
			} else {
				changed[f][i+1] = true
			}
		}
	}
	m := &diffMyers{x: vec[0], y: vec[1], xreal: real[0], yreal: real[1], changed: changed}
	n := len(vec[0]) + len(vec[1]) + 3
	m.fd = make([]int, n)
	m.bd = make([]int, n)
	m.off = len(vec[1]) + 1
	m.tooExpensive = 1
	for d := n; d != 0; d >>= 2 {
		m.tooExpensive <<= 1
	}
	m.tooExpensive = max(4096, m.tooExpensive)
	m.compare(0, len(vec[0]), 0, len(vec[1]), false)
}

// diffKeepProvisional cancels the provisional discards (2) that are not
// inside a run of discards, as GNU does.
func diffKeepProvisional(d []byte) {
	end := len(d)
	for i := 0; i < end; i++ {
		if d[i] == 2 {
			d[i] = 0
			continue
		}
		if d[i] == 0 {
			continue
		}
		j, provisional := i, 0
		for ; j < end && d[j] != 0; j++ {
			if d[j] == 2 {
				provisional++
			}
		}
		for j > i && d[j-1] == 2 {
			j--
			d[j] = 0
			provisional--
		}
		length := j - i
		if provisional*4 > length {
			for j > i {
				j--
				if d[j] == 2 {
					d[j] = 0
				}
			}
			continue
		}
		minimum := 1
		for tem := length >> 2; ; {
			if tem >>= 2; tem <= 0 {
				break
			}
			minimum <<= 1
		}
		minimum++
		consec := 0
		for j = 0; j < length; j++ {
			switch {
			case d[i+j] != 2:
				consec = 0
			default:
				consec++
				if consec == minimum {
					j -= consec
				} else if consec > minimum {
					d[i+j] = 0
				}
			}
		}
		consec = 0
		for j = 0; j < length; j++ {
			if j >= 8 && d[i+j] == 1 {
				break
			}
			switch d[i+j] {
			case 2:
				consec = 0
				d[i+j] = 0
			case 0:
				consec = 0
			default:
				consec++
			}
			if consec == 3 {
				break
			}
		}
		i += length - 1
		consec = 0
		for j = 0; j < length; j++ {
			if j >= 8 && d[i-j] == 1 {
				break
			}
			switch d[i-j] {
			case 2:
				consec = 0
				d[i-j] = 0
			case 0:
				consec = 0
			default:
				consec++
			}
			if consec == 3 {
				break
			}
		}
	}
}

// diffMyers is the O(ND) comparison in linear space (Myers 1986, §4.2)
// with GNU's cost cut-off.
type diffMyers struct {
	x, y         []int
	xreal, yreal []int
	changed      [2][]bool
	fd, bd       []int
	off          int
	tooExpensive int
}

func (m *diffMyers) compare(xoff, xlim, yoff, ylim int, minimal bool) {
	for xoff < xlim && yoff < ylim && m.x[xoff] == m.y[yoff] {
		xoff++
		yoff++
	}
	for xoff < xlim && yoff < ylim && m.x[xlim-1] == m.y[ylim-1] {
		xlim--
		ylim--
	}
	switch {
	case xoff == xlim:
		for ; yoff < ylim; yoff++ {
			m.changed[1][m.yreal[yoff]+1] = true
		}
	case yoff == ylim:
		for ; xoff < xlim; xoff++ {
			m.changed[0][m.xreal[xoff]+1] = true
		}
	default:
		xmid, ymid, lo, hi := m.diag(xoff, xlim, yoff, ylim, minimal)
		m.compare(xoff, xmid, yoff, ymid, lo)
		m.compare(xmid, xlim, ymid, ylim, hi)
	}
}

func (m *diffMyers) diag(xoff, xlim, yoff, ylim int, minimal bool) (int, int, bool, bool) {
	fd, bd, o := m.fd, m.bd, m.off
	dmin, dmax := xoff-ylim, xlim-yoff
	fmid, bmid := xoff-yoff, xlim-ylim
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	odd := (fmid-bmid)&1 != 0
	const huge = int(^uint(0) >> 1)
	fd[o+fmid] = xoff
	bd[o+bmid] = xlim
	for c := 1; ; c++ {
		if fmin > dmin {
			fmin--
			fd[o+fmin-1] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			fd[o+fmax+1] = -1
		} else {
			fmax--
		}
		for d := fmax; d >= fmin; d -= 2 {
			tlo, thi := fd[o+d-1], fd[o+d+1]
			x0 := tlo + 1
			if tlo < thi {
				x0 = thi
			}
			x, y := x0, x0-d
			for x < xlim && y < ylim && m.x[x] == m.y[y] {
				x++
				y++
			}
			fd[o+d] = x
			if odd && bmin <= d && d <= bmax && bd[o+d] <= x {
				return x, y, true, true
			}
		}
		if bmin > dmin {
			bmin--
			bd[o+bmin-1] = huge
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			bd[o+bmax+1] = huge
		} else {
			bmax--
		}
		for d := bmax; d >= bmin; d -= 2 {
			tlo, thi := bd[o+d-1], bd[o+d+1]
			x0 := thi - 1
			if tlo < thi {
				x0 = tlo
			}
			x, y := x0, x0-d
			for xoff < x && yoff < y && m.x[x-1] == m.y[y-1] {
				x--
				y--
			}
			bd[o+d] = x
			if !odd && fmin <= d && d <= fmax && x <= fd[o+d] {
				return x, y, true, true
			}
		}
		if minimal || c < m.tooExpensive {
			continue
		}
		fxybest, fxbest := -1, 0
		for d := fmax; d >= fmin; d -= 2 {
			x := min(fd[o+d], xlim)
			y := x - d
			if ylim < y {
				x, y = ylim+d, ylim
			}
			if fxybest < x+y {
				fxybest, fxbest = x+y, x
			}
		}
		bxybest, bxbest := huge, 0
		for d := bmax; d >= bmin; d -= 2 {
			x := max(xoff, bd[o+d])
			y := x - d
			if y < yoff {
				x, y = yoff+d, yoff
			}
			if x+y < bxybest {
				bxybest, bxbest = x+y, x
			}
		}
		if (xlim+ylim)-bxybest < fxybest-(xoff+yoff) {
			return fxbest, fxybest - fxbest, true, false
		}
		return bxbest, bxybest - bxbest, false, true
	}
}

// diffShift moves each run of changes as GNU's shift_boundaries does: back
// to merge with earlier runs, then forward as far as it goes, then back
// to line up with a run in the other file.
func diffShift(eq [2][]int, changed [2][]bool) {
	for f := 0; f < 2; f++ {
		ch := changed[f][1:]
		c := func(i int) bool { return changed[f][i+1] }
		oc := func(j int) bool { return changed[1-f][j+1] }
		e := eq[f]
		iEnd := len(e)
		i, j := 0, 0
		for {
			for i < iEnd && !ch[i] {
				for oc(j) {
					j++
				}
				j++
				i++
			}
			if i == iEnd {
				break
			}
			start := i
			for i++; c(i); i++ {
			}
			for oc(j) {
				j++
			}
			var runlength, corresponding int
			for {
				runlength = i - start
				for start > 0 && e[start-1] == e[i-1] {
					start--
					ch[start] = true
					i--
					ch[i] = false
					for c(start - 1) {
						start--
					}
					for j--; oc(j); j-- {
					}
				}
				corresponding = iEnd
				if oc(j - 1) {
					corresponding = i
				}
				for i != iEnd && e[start] == e[i] {
					ch[start] = false
					start++
					ch[i] = true
					i++
					for c(i) {
						i++
					}
					for j++; oc(j); j++ {
						corresponding = i
					}
				}
				if runlength == i-start {
					break
				}
			}
			for corresponding < i {
				start--
				ch[start] = true
				i--
				ch[i] = false
				for j--; oc(j); j-- {
				}
			}
		}
	}
}

func diffRange(w *bufio.Writer, a, b int) {
	if a >= b {
		fmt.Fprintf(w, "%d", b)
		return
	}
	fmt.Fprintf(w, "%d,%d", a, b)
}

func diffLine(w *bufio.Writer, prefix string, f *diffFile, i int) {
	w.WriteString(prefix)
	w.Write(f.lines[i])
	w.WriteByte('\n')
	if i == len(f.lines)-1 && f.noEOL {
		w.WriteString("\\ No newline at end of file\n")
	}
}

func diffNormal(w *bufio.Writer, a, b *diffFile, changes []diffChange) {
	for _, c := range changes {
		switch {
		case c.inserted == 0:
			diffRange(w, c.line0+1, c.line0+c.deleted)
			fmt.Fprintf(w, "d%d\n", c.line1)
		case c.deleted == 0:
			fmt.Fprintf(w, "%da", c.line0)
			diffRange(w, c.line1+1, c.line1+c.inserted)
			w.WriteByte('\n')
		default:
			diffRange(w, c.line0+1, c.line0+c.deleted)
			w.WriteByte('c')
			diffRange(w, c.line1+1, c.line1+c.inserted)
			w.WriteByte('\n')
		}
		for i := c.line0; i < c.line0+c.deleted; i++ {
			diffLine(w, "< ", a, i)
		}
		if c.deleted > 0 && c.inserted > 0 {
			w.WriteString("---\n")
		}
		for i := c.line1; i < c.line1+c.inserted; i++ {
			diffLine(w, "> ", b, i)
		}
	}
}

// diffUniRange prints a unified range: its first line and count, the
// count left out when it is 1, the line before when it is empty.
func diffUniRange(w *bufio.Writer, first, count int) {
	switch count {
	case 0:
		fmt.Fprintf(w, "%d,0", first)
	case 1:
		fmt.Fprintf(w, "%d", first+1)
	default:
		fmt.Fprintf(w, "%d,%d", first+1, count)
	}
}

func diffUnified(w *bufio.Writer, a, b *diffFile, changes []diffChange, context int) {
	for k := 0; k < len(changes); {
		last := k
		for last+1 < len(changes) && changes[last+1].line0-(changes[last].line0+changes[last].deleted) < 2*context+1 {
			last++
		}
		first := changes[k]
		lo0 := max(0, first.line0-context)
		lo1 := first.line1 - (first.line0 - lo0)
		end := changes[last]
		hi0 := min(len(a.lines), end.line0+end.deleted+context)
		hi1 := end.line1 + end.inserted + (hi0 - (end.line0 + end.deleted))
		w.WriteString("@@ -")
		diffUniRange(w, lo0, hi0-lo0)
		w.WriteString(" +")
		diffUniRange(w, lo1, hi1-lo1)
		w.WriteString(" @@\n")
		i0 := lo0
		for _, c := range changes[k : last+1] {
			for ; i0 < c.line0; i0++ {
				diffLine(w, " ", a, i0)
			}
			for i := c.line0; i < c.line0+c.deleted; i++ {
				diffLine(w, "-", a, i)
			}
			for i := c.line1; i < c.line1+c.inserted; i++ {
				diffLine(w, "+", b, i)
			}
			i0 = c.line0 + c.deleted
		}
		for ; i0 < hi0; i0++ {
			diffLine(w, " ", a, i0)
		}
		k = last + 1
	}
}
