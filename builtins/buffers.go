package builtins

import (
	"bufio"
	"io"
	"sync"
)

// bufSize is the size of the buffers the builtins read and write through.
const bufSize = 64 << 10

// The buffers are pooled: a pipeline of builtins would otherwise allocate
// a few of them per stage on every run, and the garbage collector would
// clear and mark each one.
var (
	writerPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, bufSize) }}
	readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, bufSize) }}
	chunkPool  = sync.Pool{New: func() any { b := make([]byte, bufSize); return &b }}
)

// newWriter returns a buffered writer on w. Give it back with freeWriter
// once it is flushed for the last time.
func newWriter(w io.Writer) *bufio.Writer {
	bw := writerPool.Get().(*bufio.Writer)
	bw.Reset(w)
	return bw
}

// freeWriter returns bw to the pool; what it still buffers is dropped.
func freeWriter(bw *bufio.Writer) {
	bw.Reset(nil)
	writerPool.Put(bw)
}

// newReader returns a buffered reader on r. Give it back with freeReader.
func newReader(r io.Reader) *bufio.Reader {
	br := readerPool.Get().(*bufio.Reader)
	br.Reset(r)
	return br
}

// freeReader returns br to the pool.
func freeReader(br *bufio.Reader) {
	br.Reset(nil)
	readerPool.Put(br)
}

// getChunk returns a buffer of bufSize bytes. Give it back with putChunk.
func getChunk() *[]byte { return chunkPool.Get().(*[]byte) }

// putChunk returns a buffer from getChunk to the pool.
func putChunk(b *[]byte) { chunkPool.Put(b) }
