package kernel

import (
	"context"
	"io"
	"strings"
	"sync"
	"unsafe"

	"github.com/shelter-sh/shelter/kernel/internal/fsroot"
	"github.com/shelter-sh/shelter/spawn"
)

// stream is what the shell writes a call's output to: the bounded sink,
// and optionally a live copy for the embedder. Once its call returns it
// forwards nothing more, so a background job's later output reaches
// neither. Like the sink, it does not implement io.ReaderFrom.
type stream struct {
	sink *spawn.Sink
	mu   sync.Mutex
	live io.Writer
	// ended, once its context is done, drops the interpreter's own
	// "context canceled" lines, noise beside shelter's report.
	ended context.Context
	// diverted, once set, receives everything instead (see divert).
	diverted io.Writer
	// spillDir, until the sink outgrows its budget of bytes in memory, is
	// the directory its spill file goes to, made before the sink spills.
	spillDir *fsroot.SessionDir
	budget   int64
	written  int64
}

func (s *stream) Write(p []byte) (int, error) {
	if internalTrace(p) {
		return len(p), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended != nil && s.ended.Err() != nil && isContextError(p) {
		return len(p), nil
	}
	if s.diverted != nil {
		s.diverted.Write(p)
		return len(p), nil
	}
	if s.spillDir != nil {
		if s.written += int64(len(p)); s.written > s.budget {
			s.spillDir.Ensure()
			s.spillDir = nil
		}
	}
	s.sink.Write(p)
	if s.live != nil {
		s.live.Write(p)
	}
	return len(p), nil
}

// WriteString is Write without a copy of p, for the builtins shelter
// answers, which write strings: what the stream writes to keeps no part
// of what it is given (the sink copies it, and io.Writer forbids the
// others to keep or change it).
func (s *stream) WriteString(p string) (int, error) {
	return s.Write(unsafe.Slice(unsafe.StringData(p), len(p)))
}

func (s *stream) stop() {
	s.mu.Lock()
	s.live = nil
	s.mu.Unlock()
}

func isContextError(p []byte) bool {
	line := strings.TrimSuffix(string(p), "\n")
	return line == context.Canceled.Error() || line == context.DeadlineExceeded.Error()
}
