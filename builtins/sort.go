package builtins

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"syscall"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdSort = &command{
	name:     "sort",
	usage:    "[OPTION]... [FILE]...",
	about:    "Write the sorted concatenation of all FILEs to standard output (byte order, as in the C locale).",
	operands: "files to sort; - or none is standard input",
	flags: []flag{
		{short: 'b', long: "ignore-leading-blanks", about: "ignore leading blanks"},
		{short: 'd', long: "dictionary-order", about: "consider only blanks and alphanumeric characters"},
		{short: 'f', long: "ignore-case", about: "fold lower case to upper case characters"},
		{short: 'h', long: "human-numeric-sort", about: "compare human readable numbers (e.g., 2K 1G)"},
		{short: 'i', long: "ignore-nonprinting", about: "consider only printable characters"},
		{short: 'n', long: "numeric-sort", about: "compare according to string numerical value"},
		{short: 'r', long: "reverse", about: "reverse the result of comparisons"},
		{short: 'V', long: "version-sort", about: "natural sort of (version) numbers within text"},
		{short: 'c', long: "check", about: "check for sorted input; do not sort"},
		{short: 'k', long: "key", arg: "KEYDEF", about: "sort via a key; KEYDEF gives location and type (POS1[,POS2], POS is F[.C][OPTS])"},
		{short: 'o', long: "output", arg: "FILE", about: "write result to FILE instead of standard output"},
		{short: 's', long: "stable", about: "stabilize sort by disabling last-resort comparison"},
		{short: 't', long: "field-separator", arg: "SEP", about: "use SEP instead of non-blank to blank transition"},
		{short: 'u', long: "unique", about: "output only the first of an equal run"},
		{short: 'z', long: "zero-terminated", about: "line delimiter is NUL, not newline"},
	},
	run: runSort,
}

var (
	sortBlanks, sortNondict, sortNonprint [256]bool
)

func init() {
	for i := 0; i < 256; i++ {
		b := byte(i)
		sortBlanks[i] = b == ' ' || b == '\t' || b == '\n'
		sortNonprint[i] = b < 32 || b >= 127
		sortNondict[i] = !isASCIIDigit(b) && !isASCIIAlpha(b) && !sortBlanks[i]
	}
}

// A sortKey is one -k KEYDEF (or the whole line). Fields and characters
// are 0-based; sword < 0 is the line's start, eword < 0 its end.
type sortKey struct {
	sword, schar, eword, echar int
	skipsb, skipeb             bool
	ignore                     *[256]bool
	fold                       bool
	numeric, human, version    bool
	reverse                    bool
}

// plain reports whether the key has no ordering option of its own, so
// that it takes the global ones.
func (k *sortKey) plain() bool { return k.byteOrder() && !k.reverse }

// byteOrder reports whether the key compares bytes as they are.
func (k *sortKey) byteOrder() bool {
	return k.ignore == nil && !k.fold && !k.skipsb && !k.skipeb && !k.numeric && !k.human && !k.version
}

func (k *sortKey) opts() string {
	var b []byte
	add := func(on bool, c byte) {
		if on {
			b = append(b, c)
		}
	}
	add(k.ignore == &sortNondict, 'd')
	add(k.fold, 'f')
	add(k.human, 'h')
	add(k.ignore == &sortNonprint, 'i')
	add(k.numeric, 'n')
	add(k.version, 'V')
	return string(b)
}

func (k *sortKey) incompatible() bool {
	n := 0
	for _, on := range []bool{k.numeric, k.human, k.version || k.ignore != nil} {
		if on {
			n++
		}
	}
	return n > 1
}

// setOrdering applies option letters; it returns what it did not use.
func (k *sortKey) setOrdering(s string, end bool) string {
	for ; s != ""; s = s[1:] {
		switch s[0] {
		case 'b':
			if end {
				k.skipeb = true
			} else {
				k.skipsb = true
			}
		case 'd':
			k.ignore = &sortNondict
		case 'f':
			k.fold = true
		case 'h':
			k.human = true
		case 'i':
			if k.ignore == nil {
				k.ignore = &sortNonprint
			}
		case 'n':
			k.numeric = true
		case 'r':
			k.reverse = true
		case 'V':
			k.version = true
		default:
			return s
		}
	}
	return s
}

// sortError is a fatal message; sort exits 2.
type sortError string

func (e sortError) Error() string { return string(e) }

func sortFieldCount(s, what string) (int, string, error) {
	i := 0
	for i < len(s) && isASCIIDigit(s[i]) {
		i++
	}
	if i == 0 {
		return 0, s, sortError(fmt.Sprintf("%s: invalid count at start of '%s'", what, s))
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil || n > 1<<40 {
		n = 1 << 40
	}
	return n, s[i:], nil
}

func sortParseKey(spec string) (*sortKey, error) {
	bad := func(why string) error {
		return sortError(fmt.Sprintf("%s: invalid field specification '%s'", why, spec))
	}
	k := &sortKey{}
	n, s, err := sortFieldCount(spec, "invalid number at field start")
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, bad("field number is zero")
	}
	k.sword = n - 1
	if s != "" && s[0] == '.' {
		if n, s, err = sortFieldCount(s[1:], "invalid number after '.'"); err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, bad("character offset is zero")
		}
		k.schar = n - 1
	}
	if k.sword == 0 && k.schar == 0 {
		k.sword = -1
	}
	s = k.setOrdering(s, false)
	k.eword = -1
	if s != "" && s[0] == ',' {
		if n, s, err = sortFieldCount(s[1:], "invalid number after ','"); err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, bad("field number is zero")
		}
		k.eword = n - 1
		if s != "" && s[0] == '.' {
			if k.echar, s, err = sortFieldCount(s[1:], "invalid number after '.'"); err != nil {
				return nil, err
			}
		}
		s = k.setOrdering(s, true)
	}
	if s != "" {
		return nil, bad("stray character in field spec")
	}
	return k, nil
}

// A sorter holds the parsed options.
type sorter struct {
	keys           []*sortKey
	tab            int // -1: blank to non-blank transitions
	reverse        bool
	unique, stable bool
	eol            byte
	check          bool
	output         string
	outputGiven    bool
	operands       []string
	defaultCompare bool // no keys, no options: plain byte order
}

func sortConfigure(a *args) (*sorter, error) {
	s := &sorter{tab: -1, eol: '\n'}
	g := &sortKey{sword: -1, eword: -1}
	for _, o := range a.order {
		switch o.key {
		case "ignore-leading-blanks":
			g.skipsb, g.skipeb = true, true
		case "dictionary-order":
			g.ignore = &sortNondict
		case "ignore-nonprinting":
			if g.ignore == nil {
				g.ignore = &sortNonprint
			}
		case "ignore-case":
			g.fold = true
		case "human-numeric-sort":
			g.human = true
		case "numeric-sort":
			g.numeric = true
		case "reverse":
			g.reverse = true
		case "version-sort":
			g.version = true
		case "key":
			k, err := sortParseKey(o.value)
			if err != nil {
				return nil, err
			}
			s.keys = append(s.keys, k)
		case "field-separator":
			t := o.value
			switch {
			case t == "":
				return nil, sortError("empty tab")
			case t == "\\0":
				t = "\x00"
			case len(t) > 1:
				return nil, sortError(fmt.Sprintf("multi-character tab '%s'", t))
			}
			if s.tab >= 0 && s.tab != int(t[0]) {
				return nil, sortError("incompatible tabs")
			}
			s.tab = int(t[0])
		}
	}
	s.unique, s.stable, s.check = a.has("unique"), a.has("stable"), a.has("check")
	if a.has("zero-terminated") {
		s.eol = 0
	}
	s.output, s.outputGiven = a.value("output", ""), a.has("output")
	s.reverse = g.reverse
	for _, k := range s.keys {
		if k.plain() {
			k.ignore, k.fold, k.skipsb, k.skipeb = g.ignore, g.fold, g.skipsb, g.skipeb
			k.numeric, k.human, k.version, k.reverse = g.numeric, g.human, g.version, g.reverse
		}
	}
	if len(s.keys) == 0 && !g.byteOrder() {
		s.keys = []*sortKey{g}
	}
	s.defaultCompare = len(s.keys) == 0
	for _, k := range s.keys {
		if k.incompatible() {
			return nil, sortError(fmt.Sprintf("options '-%s' are incompatible", k.opts()))
		}
	}
	s.operands = a.operands
	if len(s.operands) == 0 {
		s.operands = []string{"-"}
	}
	if s.check && len(s.operands) > 1 {
		return nil, sortError(fmt.Sprintf("extra operand '%s' not allowed with -c", s.operands[1]))
	}
	return s, nil
}

func runSort(ctx context.Context, c *kernel.Call, a *args) error {
	s, err := sortConfigure(a)
	if err != nil {
		failf(c, "%s", err)
		return status(2)
	}
	var lines [][]byte
	for _, name := range s.operands {
		data, err := sortRead(ctx, c, name)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if s.check && errors.Is(err, fs.ErrNotExist) {
				failf(c, "open failed: %s", cutFileErr(name, err))
			} else if errors.Is(err, syscall.EISDIR) {
				failf(c, "read failed: %s", cutFileErr(name, err))
			} else {
				failf(c, "cannot read: %s", cutFileErr(name, err))
			}
			return status(2)
		}
		lines = sortSplit(lines, data, s.eol)
	}
	if s.check {
		return s.checkOrder(c, lines)
	}
	lines = s.sort(lines)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	out := c.Stdout
	if s.outputGiven && s.output != "-" {
		f, err := c.Opener().OpenFile(ctx, s.output, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			failf(c, "open failed: %s", cutFileErr(s.output, err))
			return status(2)
		}
		defer f.Close()
		out = f
	}
	w := newWriter(out)
	defer freeWriter(w)
	var prev []byte
	for i, l := range lines {
		if s.unique && i > 0 && s.compare(prev, l) == 0 {
			continue
		}
		prev = l
		w.Write(l)
		if err := w.WriteByte(s.eol); err != nil {
			return status(2)
		}
	}
	if err := w.Flush(); err != nil {
		if s.outputGiven {
			failf(c, "write failed: %s: %s", s.output, reason(err))
			return status(2)
		}
		return status(2)
	}
	return nil
}

func sortRead(ctx context.Context, c *kernel.Call, name string) ([]byte, error) {
	f, err := openInput(ctx, c, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, 0, bufSize)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = slices.Grow(data, cap(data))
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: name, Err: err}
		}
	}
}

// sort sorts lines stably: pdqsort on (line, input position) pairs, the
// position breaking ties, beats a merge sort's extra comparisons. The
// first key's text is found once a line, as GNU does.
func (s *sorter) sort(lines [][]byte) [][]byte {
	if s.defaultCompare && !s.reverse && len(s.keys) == 0 {
		return sortBytes(lines)
	}
	type item struct {
		line, key []byte
		pos       int
	}
	items := make([]item, len(lines))
	for i, l := range lines {
		items[i] = item{line: l, pos: i}
		if len(s.keys) > 0 {
			items[i].key = s.keyText(l, s.keys[0])
		}
	}
	plain := s.defaultCompare && !s.reverse
	slices.SortFunc(items, func(a, b item) int {
		var d int
		switch {
		case plain:
			d = bytes.Compare(a.line, b.line)
		case len(s.keys) > 0:
			if d = s.compareKey(s.keys[0], a.key, b.key); d == 0 {
				d = s.keyCompare(a.line, b.line, 1)
			}
			if d == 0 && !s.unique && !s.stable {
				d = bytes.Compare(a.line, b.line)
				if s.reverse {
					d = -d
				}
			}
		default:
			d = s.compare(a.line, b.line)
		}
		if d != 0 {
			return d
		}
		return a.pos - b.pos
	})
	for i, it := range items {
		lines[i] = it.line
	}
	return lines
}

// sortBytes sorts whole lines in byte order. Equal lines are equal bytes,
// so stability cannot show. Each line's first eight bytes are taken as a
// number and sorted with the line's index by a radix sort, which skips
// the bytes every line shares; only lines whose eight bytes tie are
// compared whole.
func sortBytes(lines [][]byte) [][]byte {
	type item struct {
		prefix uint64
		i      int
	}
	n := len(lines)
	items := make([]item, 2*n) // the items, and the radix sort's scratch
	a, tmp := items[:n], items[n:]
	var counts [8][256]int
	for i, l := range lines {
		var p [8]byte
		copy(p[:], l)
		a[i] = item{binary.BigEndian.Uint64(p[:]), i}
		for d := range counts {
			counts[d][p[7-d]]++
		}
	}
	if n < 256 {
		slices.SortFunc(a, func(x, y item) int {
			if x.prefix != y.prefix {
				return cmp.Compare(x.prefix, y.prefix)
			}
			return bytes.Compare(lines[x.i], lines[y.i])
		})
	} else {
		for d := range counts { // least significant byte first
			shift := 8 * d
			if counts[d][byte(a[0].prefix>>shift)] == n {
				continue // every line has this byte
			}
			pos := 0
			for b, c := range counts[d] {
				counts[d][b] = pos
				pos += c
			}
			for _, it := range a {
				k := byte(it.prefix >> shift)
				tmp[counts[d][k]] = it
				counts[d][k]++
			}
			a, tmp = tmp, a
		}
		for i := 0; i < n; {
			j := i + 1
			for j < n && a[j].prefix == a[i].prefix {
				j++
			}
			if j-i > 1 {
				slices.SortFunc(a[i:j], func(x, y item) int { return bytes.Compare(lines[x.i], lines[y.i]) })
			}
			i = j
		}
	}
	out := make([][]byte, n)
	for j, it := range a {
		out[j] = lines[it.i]
	}
	return out
}

// sortSplit appends data's lines, without their terminators, to lines.
func sortSplit(lines [][]byte, data []byte, eol byte) [][]byte {
	// One allocation for the lines to come, not a growing slice's.
	lines = slices.Grow(lines, bytes.Count(data, []byte{eol})+1)
	for len(data) > 0 {
		i := bytes.IndexByte(data, eol)
		if i < 0 {
			return append(lines, data)
		}
		lines = append(lines, data[:i:i])
		data = data[i+1:]
	}
	return lines
}

func (s *sorter) checkOrder(c *kernel.Call, lines [][]byte) error {
	for i := 1; i < len(lines); i++ {
		d := s.compare(lines[i-1], lines[i])
		if d > 0 || (s.unique && d == 0) {
			fmt.Fprintf(c.Stderr, "%s: %s:%d: disorder: %s\n", c.Args[0], s.operands[0], i+1, lines[i])
			return status(1)
		}
	}
	return nil
}

// compare is GNU sort's: the keys in turn, then (unless -s or -u) the
// whole lines in byte order.
func (s *sorter) compare(a, b []byte) int {
	if len(s.keys) > 0 {
		if d := s.keyCompare(a, b, 0); d != 0 || s.unique || s.stable {
			return d
		}
	}
	d := bytes.Compare(a, b)
	if s.reverse {
		return -d
	}
	return d
}

// keyCompare compares by the keys from the from'th on.
func (s *sorter) keyCompare(a, b []byte, from int) int {
	for _, k := range s.keys[from:] {
		if d := s.compareKey(k, s.keyText(a, k), s.keyText(b, k)); d != 0 {
			return d
		}
	}
	return 0
}

// compareKey compares two lines' texts of key k.
func (s *sorter) compareKey(k *sortKey, ta, tb []byte) int {
	var d int
	switch {
	case k.numeric || k.human || k.version:
		if k.ignore != nil || k.fold {
			ta, tb = sortTransform(ta, k), sortTransform(tb, k)
		}
		switch {
		case k.numeric:
			d = sortNumCompare(sortSkipBlanks(ta), sortSkipBlanks(tb))
		case k.human:
			d = sortHumanCompare(sortSkipBlanks(ta), sortSkipBlanks(tb))
		default:
			d = sortVersionCompare(ta, tb)
		}
	case k.ignore != nil || k.fold:
		d = sortTextCompare(ta, tb, k)
	default:
		d = bytes.Compare(ta, tb)
	}
	if k.reverse {
		return -d
	}
	return d
}

func sortSkipBlanks(t []byte) []byte {
	for len(t) > 0 && sortBlanks[t[0]] {
		t = t[1:]
	}
	return t
}

func sortFold(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

func sortTransform(t []byte, k *sortKey) []byte {
	out := make([]byte, 0, len(t))
	for _, c := range t {
		if k.ignore != nil && k.ignore[c] {
			continue
		}
		if k.fold {
			c = sortFold(c)
		}
		out = append(out, c)
	}
	return out
}

func sortTextCompare(a, b []byte, k *sortKey) int {
	i, j := 0, 0
	for {
		if k.ignore != nil {
			for i < len(a) && k.ignore[a[i]] {
				i++
			}
			for j < len(b) && k.ignore[b[j]] {
				j++
			}
		}
		if i >= len(a) || j >= len(b) {
			break
		}
		x, y := a[i], b[j]
		if k.fold {
			x, y = sortFold(x), sortFold(y)
		}
		if x != y {
			return int(x) - int(y)
		}
		i++
		j++
	}
	switch {
	case i < len(a):
		return 1
	case j < len(b):
		return -1
	}
	return 0
}

// keyText is the part of line key k covers, as GNU's begfield and
// limfield find it.
func (s *sorter) keyText(line []byte, k *sortKey) []byte {
	lim := len(line)
	if k.eword >= 0 {
		lim = s.limField(line, k)
	}
	beg := 0
	if k.sword >= 0 {
		beg = s.begField(line, k)
	} else if k.skipsb {
		for beg < lim && sortBlanks[line[beg]] {
			beg++
		}
	}
	if lim < beg {
		lim = beg
	}
	return line[beg:lim]
}

// skipField moves past one field: to its separator (past it when over),
// or past its leading blanks and its non-blanks.
func (s *sorter) skipField(line []byte, p int, over bool) int {
	if s.tab >= 0 {
		for p < len(line) && int(line[p]) != s.tab {
			p++
		}
		if p < len(line) && over {
			p++
		}
		return p
	}
	for p < len(line) && sortBlanks[line[p]] {
		p++
	}
	for p < len(line) && !sortBlanks[line[p]] {
		p++
	}
	return p
}

func (s *sorter) begField(line []byte, k *sortKey) int {
	p := 0
	for n := k.sword; n > 0 && p < len(line); n-- {
		p = s.skipField(line, p, true)
	}
	if k.skipsb {
		for p < len(line) && sortBlanks[line[p]] {
			p++
		}
	}
	return min(len(line), p+k.schar)
}

func (s *sorter) limField(line []byte, k *sortKey) int {
	p := 0
	eword := k.eword
	if k.echar == 0 {
		eword++
	}
	for ; eword > 0 && p < len(line); eword-- {
		p = s.skipField(line, p, eword > 1 || k.echar != 0)
	}
	if k.echar != 0 {
		if k.skipeb {
			for p < len(line) && sortBlanks[line[p]] {
				p++
			}
		}
		p = min(len(line), p+k.echar)
	}
	return p
}

// sortNumber splits a number as -n reads it: sign, integer digits
// without leading zeros, fraction digits without trailing zeros.
func sortNumber(t []byte) (neg bool, whole, frac []byte) {
	if len(t) > 0 && t[0] == '-' {
		neg = true
		t = t[1:]
	}
	i := 0
	for i < len(t) && isASCIIDigit(t[i]) {
		i++
	}
	whole = bytes.TrimLeft(t[:i], "0")
	if i < len(t) && t[i] == '.' {
		j := i + 1
		for j < len(t) && isASCIIDigit(t[j]) {
			j++
		}
		frac = bytes.TrimRight(t[i+1:j], "0")
	}
	if len(whole) == 0 && len(frac) == 0 {
		neg = false
	}
	return neg, whole, frac
}

func sortNumCompare(a, b []byte) int {
	an, aw, af := sortNumber(a)
	bn, bw, bf := sortNumber(b)
	if an != bn {
		if an {
			return -1
		}
		return 1
	}
	d := len(aw) - len(bw)
	if d == 0 {
		d = bytes.Compare(aw, bw)
	}
	if d == 0 {
		d = bytes.Compare(af, bf)
	}
	if an {
		return -d
	}
	return d
}

var sortUnits = [256]int{'K': 1, 'k': 1, 'M': 2, 'G': 3, 'T': 4, 'P': 5, 'E': 6, 'Z': 7, 'Y': 8}

func sortUnitOrder(t []byte) int {
	neg := len(t) > 0 && t[0] == '-'
	if neg {
		t = t[1:]
	}
	maxDigit := byte(0)
	i := 0
	for i < len(t) && isASCIIDigit(t[i]) {
		maxDigit = max(maxDigit, t[i])
		i++
	}
	if i < len(t) && t[i] == '.' {
		i++
		for i < len(t) && isASCIIDigit(t[i]) {
			maxDigit = max(maxDigit, t[i])
			i++
		}
	}
	if maxDigit <= '0' || i >= len(t) {
		return 0
	}
	if neg {
		return -sortUnits[t[i]]
	}
	return sortUnits[t[i]]
}

func sortHumanCompare(a, b []byte) int {
	if d := sortUnitOrder(a) - sortUnitOrder(b); d != 0 {
		return d
	}
	return sortNumCompare(a, b)
}

// sortVersionCompare is gnulib's filevercmp: "." and ".." first, then
// hidden names, then the rest, comparing without file suffixes first.
func sortVersionCompare(a, b []byte) int {
	switch {
	case len(a) == 0:
		if len(b) == 0 {
			return 0
		}
		return -1
	case len(b) == 0:
		return 1
	}
	if a[0] == '.' {
		if b[0] != '.' {
			return -1
		}
		adot, bdot := len(a) == 1, len(b) == 1
		if adot {
			if bdot {
				return 0
			}
			return -1
		}
		if bdot {
			return 1
		}
		add, bdd := a[1] == '.' && len(a) == 2, b[1] == '.' && len(b) == 2
		if add {
			if bdd {
				return 0
			}
			return -1
		}
		if bdd {
			return 1
		}
	} else if b[0] == '.' {
		return 1
	}
	ap, bp := sortPrefixLen(a), sortPrefixLen(b)
	if d := sortVerRevCmp(a[:ap], b[:bp]); d != 0 || (ap == len(a) && bp == len(b)) {
		return d
	}
	return sortVerRevCmp(a, b)
}

// sortPrefixLen is the length of s without its file suffix, a trailing
// run of (\.[A-Za-z~][A-Za-z0-9~]*)*.
func sortPrefixLen(s []byte) int {
	prefix := 0
	n := len(s)
	for i := 0; ; {
		if i == n {
			return prefix
		}
		i++
		prefix = i
		for i+1 < n && s[i] == '.' && (isASCIIAlpha(s[i+1]) || s[i+1] == '~') {
			for i += 2; i < n && (isASCIIAlpha(s[i]) || isASCIIDigit(s[i]) || s[i] == '~'); i++ {
			}
		}
	}
}

func sortVerOrder(c byte) int {
	switch {
	case isASCIIDigit(c):
		return 0
	case isASCIIAlpha(c):
		return int(c)
	case c == '~':
		return -1
	}
	return int(c) + 256
}

func sortVerRevCmp(a, b []byte) int {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		first := 0
		for (i < len(a) && !isASCIIDigit(a[i])) || (j < len(b) && !isASCIIDigit(b[j])) {
			ac, bc := 0, 0
			if i < len(a) {
				ac = sortVerOrder(a[i])
			}
			if j < len(b) {
				bc = sortVerOrder(b[j])
			}
			if ac != bc {
				return ac - bc
			}
			i++
			j++
		}
		for i < len(a) && a[i] == '0' {
			i++
		}
		for j < len(b) && b[j] == '0' {
			j++
		}
		for i < len(a) && j < len(b) && isASCIIDigit(a[i]) && isASCIIDigit(b[j]) {
			if first == 0 {
				first = int(a[i]) - int(b[j])
			}
			i++
			j++
		}
		if i < len(a) && isASCIIDigit(a[i]) {
			return 1
		}
		if j < len(b) && isASCIIDigit(b[j]) {
			return -1
		}
		if first != 0 {
			return first
		}
	}
	return 0
}
