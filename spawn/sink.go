package spawn

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync"
)

// DefaultHardCap bounds the memory a [Sink] with no limit may hold; past it
// the stream spills as if a limit of DefaultHardCap had been set.
const DefaultHardCap = 64 << 20

// Sink captures one output stream. It keeps at most Head+Tail bytes in
// memory; once a stream outgrows that, everything written so far and
// everything after it goes to a spill file, and [Sink.Bytes] returns the
// head, a marker line naming the file, and the tail, both cut at line
// boundaries.
//
// The spill file is bounded too, by [DefaultSpillCap] unless
// [Sink.Init] says otherwise: past the cap it keeps the stream's
// last part, and the marker says how much of the front was dropped.
// Writes to it are buffered; the file is complete once [Sink.Close] has
// returned, and is not to be read before.
//
// A Sink is safe for concurrent writers: each Write is applied whole, so
// lines written by different processes never interleave within one write.
// It deliberately does not implement [io.ReaderFrom], so that os/exec copies
// through Write and the lock.
type Sink struct {
	head, tail int
	spillDir   string
	spillName  string
	spillCap   int64
	create     func(pattern string) (*os.File, error)

	mu        sync.Mutex
	buf       []byte // everything, until the first overflow; then the head
	afterHead byte   // the byte that followed the head
	ring      []byte // the last tail+1 bytes once overflowed, as a ring
	ringPos   int
	total     int64
	spill     *capFile
	spillPath string
	err       error // the first spill error, reported by Close
	closed    bool
}

// NewSink returns a sink that keeps head+tail bytes in memory and spills to
// a new file in dir named after name. A limit of zero for both means no
// limit: [DefaultHardCap] still applies.
func NewSink(head, tail int, dir, name string) *Sink {
	s := new(Sink)
	s.Init(head, tail, dir, name, 0)
	return s
}

// Init readies a zero Sink as NewSink does, for one held in a larger
// struct, and bounds its spill file to spillCap bytes of the stream, its
// last ones; zero or less means [DefaultSpillCap]. It is not for a sink
// already written.
func (s *Sink) Init(head, tail int, dir, name string, spillCap int64) {
	if head <= 0 && tail <= 0 {
		head, tail = DefaultHardCap/2, DefaultHardCap/2
	}
	if spillCap <= 0 {
		spillCap = DefaultSpillCap
	}
	s.head, s.tail, s.spillDir, s.spillName, s.spillCap = max(head, 0), max(tail, 0), dir, name, spillCap
}

// SpillWith makes the sink create its spill file by calling create with
// the pattern name+"-*.out" instead of calling [os.CreateTemp] in its
// directory: for a caller that makes files beneath a directory it holds
// open, so that no symbolic link on the way is followed. The file must
// be new and open for reading and writing; its Name is the path the
// marker line reports. Call SpillWith after Init, before the first Write.
func (s *Sink) SpillWith(create func(pattern string) (*os.File, error)) {
	s.create = create
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
	s.toSpill(p)
	s.keepTail(p)
	return len(p), nil
}

func (s *Sink) toSpill(p []byte) {
	if s.spill != nil && s.err == nil {
		s.err = s.spill.write(p)
	}
}

// overflow starts the spill: the buffer still holds the whole stream, so
// it goes to the file before p; then the buffer shrinks to the head and
// the ring keeps the tail.
func (s *Sink) overflow(p []byte) {
	var f *os.File
	var err error
	if s.create != nil {
		f, err = s.create(s.spillName + "-*.out")
	} else {
		f, err = os.CreateTemp(s.spillDir, s.spillName+"-*.out")
	}
	if err == nil {
		s.spillPath = f.Name()
		s.spill = &capFile{f: f, bw: bufio.NewWriterSize(f, spillBuffer), limit: s.spillCap}
		s.toSpill(s.buf)
		s.toSpill(p)
	} else {
		s.err = err
	}
	s.ring = make([]byte, 0, s.tail+1)
	if need := s.head - len(s.buf); need >= 0 {
		s.buf = append(s.buf, p[:need]...)
		s.afterHead = p[need]
		s.keepTail(p[need:])
		return
	}
	s.afterHead = s.buf[s.head]
	s.keepTail(s.buf[s.head:])
	s.keepTail(p)
	s.buf = s.buf[:s.head]
}

// keepTail keeps the last tail bytes and the one before them, which says
// whether the tail starts a line.
func (s *Sink) keepTail(p []byte) {
	if s.tail == 0 {
		return
	}
	size := s.tail + 1
	if len(p) >= size {
		s.ring = append(s.ring[:0], p[len(p)-size:]...)
		s.ringPos = 0
		return
	}
	for len(p) > 0 {
		if len(s.ring) < size {
			n := min(size-len(s.ring), len(p))
			s.ring = append(s.ring, p[:n]...)
			p = p[n:]
			continue
		}
		n := copy(s.ring[s.ringPos:], p)
		s.ringPos = (s.ringPos + n) % size
		p = p[n:]
	}
}

// Close stops recording: later writes are discarded. It flushes and closes
// the spill file and returns the first error met while spilling.
func (s *Sink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return s.err
	}
	s.closed = true
	if s.spill != nil {
		if err := s.spill.flush(); err != nil && s.err == nil {
			s.err = err
		}
		if err := s.spill.f.Close(); err != nil && s.err == nil {
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

// SpillPath is the file holding the stream, or "" when nothing spilled. It
// holds the whole stream unless it outgrew the spill cap, and then its
// last part ([Sink.SpillDropped] says how much is missing from the front).
// Read it only after [Sink.Close].
func (s *Sink) SpillPath() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spillPath
}

// SpillDropped is the number of bytes at the front of the stream that the
// spill file no longer holds: zero unless the stream outgrew the spill
// cap.
func (s *Sink) SpillDropped() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spill == nil {
		return 0
	}
	return s.spill.dropped
}

// Bytes returns what is kept in memory: the whole stream, or after an
// overflow the head, a marker line and the tail. The head ends at its last
// newline and the tail starts after its first one, so that no fragment of
// a line appears; only a line longer than the head (or the tail) is cut,
// and the marker says so:
//
//	[output truncated: N bytes total; full output at PATH]
//	[output truncated: N bytes total; full output at PATH, less its first D bytes; the head's last line is cut; the tail's first line is cut]
func (s *Sink) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ring == nil {
		return bytes.Clone(s.buf)
	}
	return s.cut()
}

// Capture is what a sink tells of its stream, read at once.
type Capture struct {
	Text      string // [Sink.String]
	Total     int64  // [Sink.Total]
	Truncated bool   // [Sink.Truncated]
	SpillPath string // [Sink.SpillPath]
}

// Capture reads the sink's text, size, truncation and spill file under
// one lock, as a result is made of them.
func (s *Sink) Capture() Capture {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := Capture{Total: s.total, Truncated: s.ring != nil, SpillPath: s.spillPath}
	if s.ring == nil {
		c.Text = string(s.buf)
	} else {
		c.Text = string(s.cut())
	}
	return c
}

// String is [Sink.Bytes] as a string.
func (s *Sink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ring == nil {
		return string(s.buf)
	}
	return string(s.cut())
}

// cut is the head, the marker line and the tail of an overflowed stream.
func (s *Sink) cut() []byte {
	head, headCut := s.headLines()
	tail, tailCut := s.tailLines()
	out := make([]byte, 0, len(head)+len(tail)+200)
	out = append(out, head...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	if s.spill != nil {
		out = fmt.Appendf(out, "[output truncated: %d bytes total; full output at %s", s.total, s.spillPath)
	} else {
		out = fmt.Appendf(out, "[output truncated: %d bytes total; no spill file could be written: %s", s.total, spillError(s.err))
	}
	if s.spill != nil && s.spill.dropped > 0 {
		out = fmt.Appendf(out, ", less its first %d bytes", s.spill.dropped)
	}
	if headCut {
		out = append(out, "; the head's last line is cut"...)
	}
	if tailCut {
		out = append(out, "; the tail's first line is cut"...)
	}
	out = append(out, "]\n"...)
	return append(out, tail...)
}

// headLines is the head up to its last newline, or cut when it holds no
// whole line.
func (s *Sink) headLines() (head []byte, cut bool) {
	head = s.buf
	if len(head) == 0 || head[len(head)-1] == '\n' || s.afterHead == '\n' {
		return head, false
	}
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		return head[:i+1], false
	}
	return head, true
}

// tailLines is the tail from after its first newline, or cut when it holds
// no whole line.
func (s *Sink) tailLines() (tail []byte, cut bool) {
	if len(s.ring) == 0 {
		return nil, false
	}
	ring := append(bytes.Clone(s.ring[s.ringPos:]), s.ring[:s.ringPos]...)
	before, tail := ring[0], ring[1:]
	if before == '\n' {
		return tail, false
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
		return tail[i+1:], false
	}
	return tail, true
}

// spillError words why the spill file could not be made: the system's
// reason, without the path of a file that does not exist.
func spillError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Op + " " + pe.Path + ": " + pe.Err.Error()
	}
	if err == nil {
		return "unknown error"
	}
	return err.Error()
}
