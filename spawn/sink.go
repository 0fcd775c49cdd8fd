package spawn

import (
	"bytes"
	"fmt"
	"os"
	"sync"
)

// DefaultHardCap bounds the memory a [Sink] with no limit may hold; past it
// the stream spills as if a limit of DefaultHardCap had been set.
const DefaultHardCap = 64 << 20

// Sink captures one output stream. It keeps at most Head+Tail bytes in
// memory; once a stream outgrows that, everything written so far and
// everything after it goes to a spill file, and [Sink.Text] returns the head,
// a marker line naming the file, and the tail.
//
// A Sink is safe for concurrent writers: each Write is applied whole, so
// lines written by different processes never interleave within one write.
// It deliberately does not implement [io.ReaderFrom], so that os/exec copies
// through Write and the lock.
type Sink struct {
	head, tail int
	spillDir   string
	spillName  string

	mu      sync.Mutex
	buf     []byte // everything, until the first overflow; then the head
	ring    []byte // the last tail bytes once overflowed, as a ring
	ringPos int
	total   int64
	spill   *os.File
	err     error // the first spill error, reported by Close
	closed  bool
}

// NewSink returns a sink that keeps head+tail bytes in memory and spills to
// a new file in dir named after name. A limit of zero for both means no
// limit: [DefaultHardCap] still applies.
func NewSink(head, tail int, dir, name string) *Sink {
	if head <= 0 && tail <= 0 {
		head, tail = DefaultHardCap/2, DefaultHardCap/2
	}
	return &Sink{head: max(head, 0), tail: max(tail, 0), spillDir: dir, spillName: name}
}

// Write records p. It never fails for lack of memory; a failure to create or
// write the spill file is kept and returned by [Sink.Close] so that the
// writing process is not killed by it.
func (s *Sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return len(p), nil
	}
	s.total += int64(len(p))
	if s.ring == nil {
		if len(s.buf)+len(p) <= s.head+s.tail {
			s.buf = append(s.buf, p...)
			return len(p), nil
		}
		s.overflow(p)
		return len(p), nil
	}
	if s.spill != nil && s.err == nil {
		if _, err := s.spill.Write(p); err != nil {
			s.err = err
		}
	}
	s.keepTail(p)
	return len(p), nil
}

// overflow starts the spill: the buffer still holds the whole stream, so
// it goes to the file before p; then the buffer shrinks to the head and
// the ring keeps the tail.
func (s *Sink) overflow(p []byte) {
	f, err := os.CreateTemp(s.spillDir, s.spillName+"-*.out")
	if err == nil {
		s.spill = f
		if _, err = f.Write(s.buf); err == nil {
			_, err = f.Write(p)
		}
	}
	if err != nil {
		s.err = err
	}
	s.ring = make([]byte, 0, s.tail)
	if need := s.head - len(s.buf); need >= 0 {
		s.buf = append(s.buf, p[:need]...)
		s.keepTail(p[need:])
		return
	}
	s.keepTail(s.buf[s.head:])
	s.keepTail(p)
	s.buf = s.buf[:s.head]
}

func (s *Sink) keepTail(p []byte) {
	if s.tail == 0 {
		return
	}
	if len(p) >= s.tail {
		s.ring = append(s.ring[:0], p[len(p)-s.tail:]...)
		s.ringPos = 0
		return
	}
	for len(p) > 0 {
		if len(s.ring) < s.tail {
			n := min(s.tail-len(s.ring), len(p))
			s.ring = append(s.ring, p[:n]...)
			p = p[n:]
			continue
		}
		n := copy(s.ring[s.ringPos:], p)
		s.ringPos = (s.ringPos + n) % s.tail
		p = p[n:]
	}
}

// Close stops recording: later writes are discarded. It closes the spill
// file and returns the first error met while spilling.
func (s *Sink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return s.err
	}
	s.closed = true
	if s.spill != nil {
		if err := s.spill.Close(); err != nil && s.err == nil {
			s.err = err
		}
	}
	return s.err
}

// Total is the number of bytes written so far.
func (s *Sink) Total() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Truncated reports whether the stream outgrew the memory limit.
func (s *Sink) Truncated() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ring != nil
}

// SpillPath is the file holding the whole stream, or "" when nothing
// spilled.
func (s *Sink) SpillPath() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spill == nil {
		return ""
	}
	return s.spill.Name()
}

// Bytes returns what is kept in memory: the whole stream, or after an
// overflow the head, a marker line and the tail.
func (s *Sink) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ring == nil {
		return bytes.Clone(s.buf)
	}
	path := "(spill failed)"
	if s.spill != nil {
		path = s.spill.Name()
	}
	out := make([]byte, 0, len(s.buf)+len(s.ring)+100)
	out = append(out, s.buf...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	out = fmt.Appendf(out, "[output truncated: %d bytes total; full output at %s]\n", s.total, path)
	out = append(out, s.ring[s.ringPos:]...)
	out = append(out, s.ring[:s.ringPos]...)
	return out
}
