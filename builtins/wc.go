package builtins

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdWc = &command{
	name:     "wc",
	usage:    "[OPTION]... [FILE]...",
	about:    "Print newline, word, and byte counts for each FILE (standard input when none, or for -), and a total line if more than one FILE is given.",
	operands: "files to count; - is standard input",
	flags: []flag{
		{short: 'c', long: "bytes", about: "print the byte counts"},
		{short: 'm', long: "chars", about: "print the character counts (bytes: the locale is C)"},
		{short: 'l', long: "lines", about: "print the newline counts"},
		{short: 'L', long: "max-line-length", about: "print the maximum display width"},
		{short: 'w', long: "words", about: "print the word counts"},
	},
	run: runWc,
}

type wcCounts struct {
	lines, words, bytes, maxLine int64
}

type wcWhich struct {
	lines, words, chars, bytes, maxLine bool
}

func (w wcWhich) n() int {
	n := 0
	for _, b := range []bool{w.lines, w.words, w.chars, w.bytes, w.maxLine} {
		if b {
			n++
		}
	}
	return n
}

func runWc(ctx context.Context, c *kernel.Call, a *args) error {
	which := wcWhich{
		lines: a.has("lines"), words: a.has("words"), chars: a.has("chars"),
		bytes: a.has("bytes"), maxLine: a.has("max-line-length"),
	}
	if which.n() == 0 {
		which.lines, which.words, which.bytes = true, true, true
	}
	files := a.operands
	named := len(files) > 0
	if !named {
		files = []string{"-"}
	}
	width := wcWidth(c, files, which)

	out := bufio.NewWriter(c.Stdout)
	var total wcCounts
	failed := false
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			out.Flush()
			return err
		}
		r, err := openInput(ctx, c, name)
		if errors.Is(err, syscall.EISDIR) {
			// GNU opens a directory, fails to read it, and still prints
			// its zero counts.
			out.Flush()
			failf(c, "%s", errText(asNamed(err, name)))
			failed = true
			wcLine(out, which, width, wcCounts{}, name, named)
			continue
		}
		if err != nil {
			out.Flush()
			failf(c, "%s", errText(asNamed(err, name)))
			failed = true
			continue
		}
		n, rerr := wcCount(ctx, r, which)
		r.Close()
		if rerr != nil {
			out.Flush()
			if interrupted(ctx, rerr) {
				return rerr
			}
			failf(c, "%s: %s", name, reason(rerr))
			failed = true
		}
		total.lines += n.lines
		total.words += n.words
		total.bytes += n.bytes
		total.maxLine = max(total.maxLine, n.maxLine)
		if err := wcLine(out, which, width, n, name, named); err != nil {
			return status(1)
		}
	}
	if len(files) > 1 {
		wcLine(out, which, width, total, "total", true)
	}
	if err := out.Flush(); err != nil {
		return status(1)
	}
	if failed {
		return status(1)
	}
	return nil
}

// wcWidth is GNU's column width: 1 when one count of one input is asked
// for; otherwise the digits of the regular files' total size (operands
// that cannot be statted left out), at least 7 when any input is not a
// regular file.
func wcWidth(c *kernel.Call, files []string, which wcWhich) int {
	if len(files) == 1 && which.n() == 1 {
		return 1
	}
	minimum := 1
	var size int64
	for _, name := range files {
		fi, err := wcStat(c, name)
		if err != nil {
			continue
		}
		if fi.Mode().IsRegular() {
			size += fi.Size()
		} else {
			minimum = 7
		}
	}
	width := 1
	for ; size >= 10; size /= 10 {
		width++
	}
	return max(width, minimum)
}

// wcStat stats an operand; standard input is a regular file only when the
// call's stdin is one.
func wcStat(c *kernel.Call, name string) (fs.FileInfo, error) {
	if name != "-" {
		return c.Opener().Stat(name)
	}
	if f, ok := c.Stdin.(*os.File); ok {
		return f.Stat()
	}
	return wcPipeInfo{}, nil
}

// wcPipeInfo stands for a standard input that is not a file.
type wcPipeInfo struct{ fs.FileInfo }

func (wcPipeInfo) Mode() fs.FileMode { return fs.ModeNamedPipe }

func wcLine(out *bufio.Writer, which wcWhich, width int, n wcCounts, name string, named bool) error {
	var buf [128]byte
	b := buf[:0]
	field := func(v int64) {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		var d [20]byte
		s := strconv.AppendInt(d[:0], v, 10)
		for i := len(s); i < width; i++ {
			b = append(b, ' ')
		}
		b = append(b, s...)
	}
	if which.lines {
		field(n.lines)
	}
	if which.words {
		field(n.words)
	}
	if which.chars {
		field(n.bytes)
	}
	if which.bytes {
		field(n.bytes)
	}
	if which.maxLine {
		field(n.maxLine)
	}
	out.Write(b)
	if named {
		out.WriteByte(' ')
		out.WriteString(name)
	}
	return out.WriteByte('\n')
}

// wcClass sorts bytes as wc does in the C locale.
const (
	wcOther   = iota // not printable: neither in a word nor between words
	wcPrint          // a printable non-space: part of a word
	wcSpace          // ' '
	wcNewline        // '\n'
	wcReset          // '\r', '\f': back to column 0
	wcTab            // '\t'
	wcVtab           // '\v'
)

var wcClasses = func() (t [256]byte) {
	for c := 0x21; c < 0x7f; c++ {
		t[c] = wcPrint
	}
	t[' '], t['\n'], t['\r'], t['\f'], t['\t'], t['\v'] = wcSpace, wcNewline, wcReset, wcReset, wcTab, wcVtab
	return t
}()

func wcCount(ctx context.Context, r io.Reader, which wcWhich) (wcCounts, error) {
	var n wcCounts
	chunk := getChunk()
	defer putChunk(chunk)
	buf := *chunk
	simple := !which.words && !which.maxLine
	var pos int64
	inWord := false
	for i := 0; ; i++ {
		if i&63 == 63 {
			if err := ctx.Err(); err != nil {
				return n, err
			}
		}
		k, err := r.Read(buf)
		b := buf[:k]
		n.bytes += int64(k)
		if simple {
			if which.lines {
				n.lines += int64(bytes.Count(b, []byte{'\n'}))
			}
		} else {
			for _, ch := range b {
				switch wcClasses[ch] {
				case wcPrint:
					pos++
					inWord = true
				case wcSpace:
					pos++
					if inWord {
						n.words++
						inWord = false
					}
				case wcNewline, wcReset:
					if ch == '\n' {
						n.lines++
					}
					n.maxLine = max(n.maxLine, pos)
					pos = 0
					if inWord {
						n.words++
						inWord = false
					}
				case wcTab:
					pos += 8 - pos%8
					if inWord {
						n.words++
						inWord = false
					}
				case wcVtab:
					if inWord {
						n.words++
						inWord = false
					}
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
	}
	if inWord {
		n.words++
	}
	n.maxLine = max(n.maxLine, pos)
	return n, nil
}
