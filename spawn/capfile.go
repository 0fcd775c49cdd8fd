package spawn

import (
	"bufio"
	"io"
	"os"
)

// DefaultSpillCap bounds the disk a [Sink]'s spill file or a [Log] may
// take: past it they keep the last part of the stream.
const DefaultSpillCap = 1 << 30

// spillBuffer is the size of a spill file's write buffer.
const spillBuffer = 64 << 10

// capFile is a file that holds the last part of a stream, at most limit
// bytes of it, behind an optional header line. When a write would take it
// past the limit, it keeps the last half of the limit (or less, to make
// room) by moving it to the front and truncating: each byte is moved at
// most a bounded number of times, so the cost is amortised.
type capFile struct {
	f       *os.File
	bw      *bufio.Writer // nil: writes go to the file at once
	limit   int64
	size    int64 // bytes of the stream in the file, buffered ones included
	hdr     int64 // length of the header in front of them
	dropped int64 // bytes of the stream dropped from the front
	header  func(dropped int64) []byte
}

func (c *capFile) write(p []byte) error {
	n := int64(len(p))
	switch {
	case n >= c.limit:
		if c.bw != nil {
			c.bw.Reset(c.f) // what it holds is dropped anyway
		}
		c.dropped += c.size + n - c.limit
		c.size = 0
		p = p[n-c.limit:]
		if err := c.rewrite(0); err != nil {
			return err
		}
	case c.size+n > c.limit:
		if err := c.flush(); err != nil {
			return err
		}
		keep := min(c.size, c.limit/2, c.limit-n)
		c.dropped += c.size - keep
		if err := c.rewrite(keep); err != nil {
			return err
		}
		c.size = keep
	}
	c.size += int64(len(p))
	var err error
	if c.bw != nil {
		_, err = c.bw.Write(p)
	} else {
		_, err = c.f.Write(p)
	}
	return err
}

// rewrite keeps the last keep bytes of the stream in the file, after a new
// header, and leaves the offset at the end.
func (c *capFile) rewrite(keep int64) error {
	var hdr []byte
	if c.header != nil && c.dropped > 0 {
		hdr = c.header(c.dropped)
	}
	if err := move(c.f, int64(len(hdr)), c.hdr+c.size-keep, keep); err != nil {
		return err
	}
	if _, err := c.f.WriteAt(hdr, 0); err != nil {
		return err
	}
	c.hdr = int64(len(hdr))
	if err := c.f.Truncate(c.hdr + keep); err != nil {
		return err
	}
	_, err := c.f.Seek(c.hdr+keep, io.SeekStart)
	return err
}

func (c *capFile) flush() error {
	if c.bw == nil {
		return nil
	}
	return c.bw.Flush()
}

// move copies n bytes of f from offset src to offset dst, which may
// overlap, as memmove does.
func move(f *os.File, dst, src, n int64) error {
	if dst == src || n == 0 {
		return nil
	}
	buf := make([]byte, min(n, 1<<20))
	for done := int64(0); done < n; {
		k := min(int64(len(buf)), n-done)
		off := done // front to back when moving towards the front
		if dst > src {
			off = n - done - k
		}
		if _, err := f.ReadAt(buf[:k], src+off); err != nil {
			return err
		}
		if _, err := f.WriteAt(buf[:k], dst+off); err != nil {
			return err
		}
		done += k
	}
	return nil
}
