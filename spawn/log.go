package spawn

import (
	"fmt"
	"os"
	"sync"
	"syscall"
)

// Log is a file that keeps the last part of a stream, as a background
// job's log: at most a cap of bytes of it. When the stream outgrows the
// cap, the front is dropped and the file starts with a line that says how
// much:
//
//	[log truncated: its first D bytes were dropped]
//
// Every Write goes to the file at once, so a reader sees it. A Log is
// safe for concurrent writers; each Write is applied whole.
type Log struct {
	mu     sync.Mutex
	file   capFile
	total  int64
	closed bool
}

// NewLog creates the file at path, or truncates it, and returns a Log
// that keeps at most limit bytes of the stream in it; a limit of zero or
// less means [DefaultSpillCap]. A symbolic link at path is not followed:
// NewLog fails instead (ELOOP).
func NewLog(path string, limit int64) (*Log, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	return NewLogFile(f, limit), nil
}

// NewLogFile returns a Log that writes to f, an empty file open for
// reading and writing that the Log then owns, and keeps at most limit
// bytes of the stream in it; a limit of zero or less means
// [DefaultSpillCap]. It is for a caller that makes the file itself,
// beneath a directory it holds open.
func NewLogFile(f *os.File, limit int64) *Log {
	if limit <= 0 {
		limit = DefaultSpillCap
	}
	return &Log{file: capFile{f: f, limit: limit, header: logHeader}}
}

func logHeader(dropped int64) []byte {
	return fmt.Appendf(nil, "[log truncated: its first %d bytes were dropped]\n", dropped)
}

// Write appends p, dropping the front of the log when it outgrows its
// cap. After Close it fails with [os.ErrClosed].
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return 0, os.ErrClosed
	}
	l.total += int64(len(p))
	if err := l.file.write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Name is the path the log was created at.
func (l *Log) Name() string { return l.file.f.Name() }

// Total is the number of bytes written so far, dropped ones included.
func (l *Log) Total() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// Dropped is the number of bytes at the front of the stream the file no
// longer holds.
func (l *Log) Dropped() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.file.dropped
}

// Close closes the file; later writes fail.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return os.ErrClosed
	}
	l.closed = true
	return l.file.f.Close()
}
