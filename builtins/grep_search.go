package builtins

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"strconv"
)

// grepBinaryWindow is how much of a file GNU grep reads first; a NUL
// byte in it marks the whole file binary.
const grepBinaryWindow = 32 << 10

// search reads one input and prints what grep's flags ask for. It
// reports true when grep should stop altogether.
func (g *grepRun) search(name string, r io.Reader, withName bool) bool {
	o := g.o
	if o.maxCount == 0 {
		// only -L gets here: no file has a selected line
		g.out.WriteString(name)
		g.out.WriteByte('\n')
		return false
	}
	// One reader serves every file of the run: grep -r over a tree of
	// small files would otherwise make a 32 KiB buffer for each.
	if g.br == nil {
		g.br = bufio.NewReaderSize(r, grepBinaryWindow)
	} else {
		g.br.Reset(r)
	}
	defer g.br.Reset(nil)
	br := g.br
	binary := false
	if _, err := br.Peek(1); err == nil {
		buf, _ := br.Peek(br.Buffered())
		binary = bytes.IndexByte(buf, 0) >= 0
	}
	printLines := !o.quiet && !o.count && !o.listMatching && !o.listMissing
	s := grepFile{g: g, name: name, withName: withName}
	var count, lineno int64
	var acc []byte
	afterLeft := 0
	var ring grepRing
	if printLines && o.before > 0 {
		ring.lines = make([]grepLine, o.before)
	}
	limited := false // -m reached: only trailing context is left
	if g.scannable(binary) {
		rest, stop, ret := g.scan(&s, br, &count, &lineno, printLines)
		if stop {
			return ret
		}
		if rest == nil {
			return g.summary(&s, count)
		}
		// A NUL byte further on: the line loop takes over from its line.
		br = bufio.NewReaderSize(rest, grepBinaryWindow)
	}
	for {
		line, err := grepReadLine(br, &acc)
		if err != nil {
			if err != io.EOF {
				g.fail(&fs.PathError{Op: "read", Path: name, Err: grepUnwrap(err)})
			}
			break
		}
		lineno++
		if lineno&4095 == 0 && g.ctx.Err() != nil {
			g.errored = true
			return true
		}
		if !binary && bytes.IndexByte(line, 0) >= 0 {
			binary = true
		}
		if limited {
			if afterLeft == 0 || binary {
				break
			}
			s.emit(lineno, line, '-')
			afterLeft--
			if g.writeFailed {
				return true
			}
			continue
		}
		if binary {
			// GNU reads a binary file's NULs as line ends, and prints
			// one line for the first selected one instead of text.
			stop := false
			for seg := range bytes.SplitSeq(line, []byte{0}) {
				if g.m.match(seg) == o.invert {
					continue
				}
				count++
				g.matched = true
				switch {
				case o.quiet || o.listMatching || o.listMissing:
					return g.firstMatch(&s)
				case printLines:
					g.flushBefore()
					failf(g.c, "%s: binary file matches", name)
					return g.writeFailed
				}
				if o.maxCount >= 0 && count >= o.maxCount {
					stop = true
					break
				}
			}
			if stop {
				break
			}
			continue
		}
		if g.m.match(line) == o.invert {
			if printLines && o.context {
				if afterLeft > 0 {
					s.emit(lineno, line, '-')
					afterLeft--
				} else if o.before > 0 {
					ring.push(lineno, line)
				}
			}
			continue
		}
		count++
		g.matched = true
		if o.quiet || o.listMatching || o.listMissing {
			return g.firstMatch(&s)
		}
		if printLines {
			for _, l := range ring.drain() {
				s.emit(l.n, l.text, '-')
			}
			s.emit(lineno, line, ':')
			afterLeft = o.after
			if g.writeFailed {
				return true
			}
		}
		if o.maxCount >= 0 && count >= o.maxCount {
			limited = true
		}
	}
	return g.summary(&s, count)
}

// summary prints what is left once an input is read: its count (-c), or
// its name when nothing matched (-L).
func (g *grepRun) summary(s *grepFile, count int64) bool {
	o, name, withName := g.o, s.name, s.withName
	switch {
	case o.count:
		if withName {
			g.out.WriteString(name)
			g.out.WriteByte(':')
		}
		g.out.Write(strconv.AppendInt(nil, count, 10))
		if err := g.out.WriteByte('\n'); err != nil {
			g.writeFailed = true
		}
	case o.listMissing && count == 0:
		s.listName()
	}
	return g.writeFailed
}

// scannable reports whether an input can be searched a buffer at a time
// rather than a line at a time: one plain literal, whole lines selected
// as they are, no context and no -m, text so far.
func (g *grepRun) scannable(binary bool) bool {
	m, o := g.m, g.o
	return !binary && m.isLit && !m.fold && !m.litWord && !m.litLine && len(m.lit) > 0 &&
		!o.invert && !o.context && !o.only && o.maxCount < 0
}

// scan searches an input a buffer at a time for the literal, jumping from
// match to match instead of reading every line. It returns stop when grep
// has its answer (ret is search's result then), and rest, when it met a
// NUL byte, with the input from the line that holds it on: the line loop
// goes on from there. Otherwise the input is read to its end.
func (g *grepRun) scan(s *grepFile, br *bufio.Reader, count, lineno *int64, printLines bool) (rest io.Reader, stop, ret bool) {
	lit := g.m.lit
	chunk := getChunk()
	defer putChunk(chunk)
	buf := *chunk
	carried := 0
	for {
		n, err := br.Read(buf[carried:])
		data := buf[:carried+n]
		eof := err != nil
		if err != nil && err != io.EOF {
			g.fail(&fs.PathError{Op: "read", Path: s.name, Err: grepUnwrap(err)})
		}
		chunk := data
		if !eof {
			cut := bytes.LastIndexByte(data, '\n')
			if cut < 0 {
				if len(data) == len(buf) {
					buf = append(buf, make([]byte, len(buf))...)
				}
				carried = len(data)
				continue
			}
			chunk = data[:cut+1]
		}
		if nul := bytes.IndexByte(chunk, 0); nul >= 0 {
			from := bytes.LastIndexByte(chunk[:nul], '\n') + 1
			if g.scanChunk(s, chunk[:from], lit, count, lineno, printLines) {
				return nil, true, g.firstMatch(s)
			}
			left := bytes.Clone(data[from:])
			if eof {
				return bytes.NewReader(left), false, false
			}
			return io.MultiReader(bytes.NewReader(left), br), false, false
		}
		if g.scanChunk(s, chunk, lit, count, lineno, printLines) {
			return nil, true, g.firstMatch(s)
		}
		if g.writeFailed {
			return nil, true, true
		}
		if g.ctx.Err() != nil {
			g.errored = true
			return nil, true, true
		}
		if eof {
			return nil, false, false
		}
		carried = copy(buf, data[len(chunk):])
	}
}

// firstMatch is search's result once a match decides it: -q stops grep,
// -l prints the name, -L has nothing to print.
func (g *grepRun) firstMatch(s *grepFile) bool {
	switch {
	case g.o.quiet:
		return true
	case g.o.listMatching:
		s.listName()
		return g.writeFailed
	}
	return false
}

// scanChunk selects the lines of whole lines in chunk that hold lit. It
// reports true at the first match when that decides (-q, -l, -L).
func (g *grepRun) scanChunk(s *grepFile, chunk, lit []byte, count, lineno *int64, printLines bool) bool {
	o := g.o
	pos := 0
	for pos < len(chunk) {
		i := bytes.Index(chunk[pos:], lit)
		if i < 0 {
			break
		}
		at := pos + i
		start := bytes.LastIndexByte(chunk[pos:at], '\n') + 1 + pos
		end := bytes.IndexByte(chunk[at:], '\n')
		if end < 0 {
			end = len(chunk)
		} else {
			end += at
		}
		if o.lineNumber {
			*lineno += int64(bytes.Count(chunk[pos:start], []byte{'\n'})) + 1
		}
		*count++
		g.matched = true
		if o.quiet || o.listMatching || o.listMissing {
			return true
		}
		if printLines {
			s.emit(*lineno, chunk[start:end], ':')
			if g.writeFailed {
				return false
			}
		}
		pos = end + 1
	}
	if o.lineNumber && pos < len(chunk) {
		*lineno += int64(bytes.Count(chunk[pos:], []byte{'\n'}))
		if chunk[len(chunk)-1] != '\n' {
			*lineno++
		}
	}
	return false
}

// grepReadLine returns the next line without its newline; acc holds a
// line longer than the reader's buffer. The last line may lack a
// newline; io.EOF comes after it.
func grepReadLine(br *bufio.Reader, acc *[]byte) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		*acc = append((*acc)[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = br.ReadSlice('\n')
			*acc = append(*acc, line...)
		}
		line = *acc
	}
	switch {
	case err == io.EOF && len(line) > 0:
		return line, nil
	case err != nil:
		return nil, err
	}
	return line[:len(line)-1], nil
}

// grepFile prints the lines of one file.
type grepFile struct {
	g        *grepRun
	name     string
	withName bool
	last     int64 // the last line printed (0: none yet)
	num      []byte
}

func (s *grepFile) listName() {
	s.g.out.WriteString(s.name)
	if err := s.g.out.WriteByte('\n'); err != nil {
		s.g.writeFailed = true
	}
}

// emit prints line n: a selected line (sep ':') whole or, with -o, its
// matches; or a context line (sep '-'), which -o counts without printing.
// A gap since the last printed line is marked "--" when context is on.
func (s *grepFile) emit(n int64, line []byte, sep byte) {
	g, o := s.g, s.g.o
	if o.context {
		if g.printed && (s.last == 0 || n > s.last+1) {
			g.out.WriteString("--\n")
		}
		g.printed = true
	}
	s.last = n
	if o.only {
		if sep == ':' && !o.invert {
			g.m.each(line, func(b, e int) {
				s.prefix(n, sep)
				g.out.Write(line[b:e])
				if err := g.out.WriteByte('\n'); err != nil {
					g.writeFailed = true
				}
			})
		}
		return
	}
	s.prefix(n, sep)
	g.out.Write(line)
	if err := g.out.WriteByte('\n'); err != nil {
		g.writeFailed = true
	}
}

func (s *grepFile) prefix(n int64, sep byte) {
	g := s.g
	if s.withName {
		g.out.WriteString(s.name)
		g.out.WriteByte(sep)
	}
	if g.o.lineNumber {
		s.num = strconv.AppendInt(s.num[:0], n, 10)
		g.out.Write(s.num)
		g.out.WriteByte(sep)
	}
}

// grepRing keeps the last -B lines, copied, for leading context.
type grepRing struct {
	lines []grepLine
	start int
	n     int
}

type grepLine struct {
	n    int64
	text []byte
}

func (r *grepRing) push(n int64, text []byte) {
	if len(r.lines) == 0 {
		return
	}
	i := (r.start + r.n) % len(r.lines)
	if r.n == len(r.lines) {
		i = r.start
		r.start = (r.start + 1) % len(r.lines)
	} else {
		r.n++
	}
	r.lines[i].n = n
	r.lines[i].text = append(r.lines[i].text[:0], text...)
}

// drain returns the kept lines, oldest first, and empties the ring.
func (r *grepRing) drain() []grepLine {
	if r.n == 0 {
		return nil
	}
	out := make([]grepLine, 0, r.n)
	for k := 0; k < r.n; k++ {
		out = append(out, r.lines[(r.start+k)%len(r.lines)])
	}
	r.start, r.n = 0, 0
	return out
}
