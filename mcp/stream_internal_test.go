package mcp

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// FuzzLineReader reads data through reads of at most chunk bytes and
// checks the lines against a plain split of the whole.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\r\n\n  c  \n"), uint8(1), uint16(3))
	f.Add([]byte("0123456789\n0123\n"), uint8(4), uint16(4))
	f.Add([]byte("tail without newline"), uint8(7), uint16(100))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8, max uint16) {
		if chunk == 0 || max == 0 {
			return
		}
		r := iotest.HalfReader(&chunked{data: data, n: int(chunk)})
		l := newLineReader(r, int(max))
		var want [][]byte
		tooLong := false
		for _, line := range bytes.Split(data, []byte("\n")) {
			if line = bytes.TrimSuffix(line, []byte("\r")); len(line) > int(max) {
				tooLong = true
				break
			}
			if line = bytes.Trim(line, " \t\r"); len(line) > 0 {
				want = append(want, line)
			}
		}
		for i := 0; ; i++ {
			got, err := l.next()
			if err != nil {
				var e *LineTooLongError
				switch {
				case tooLong && i == len(want) && errors.As(err, &e) && e.Max == int(max):
				case !tooLong && i == len(want) && err == io.EOF:
				default:
					t.Fatalf("line %d: error %v; want %d lines, then too long %v", i, err, len(want), tooLong)
				}
				return
			}
			if i >= len(want) || !bytes.Equal(got, want[i]) {
				t.Fatalf("line %d: %q, want %q", i, got, want)
			}
		}
	})
}

// chunked returns at most n bytes a Read.
type chunked struct {
	data []byte
	n    int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.n)], c.data)
	c.data = c.data[n:]
	return n, nil
}
