package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shelter-sh/shelter/internal/jsonquote"
)

// DefaultMaxLine is the longest message a [StreamTransport] reads when
// MaxLine is zero: 16 MiB, the SDK's own stdio bound.
const DefaultMaxLine = 16 << 20

// StreamTransport is an MCP transport of newline-delimited JSON-RPC over
// a pair of streams, as the MCP stdio transport is: the SDK's
// [sdk.IOTransport] on the wire, for either end of a connection, at a
// fraction of its cost per message (docs/mcp.md, "Performance").
//
// Each message is one line. Blank lines are skipped, a line may end in
// "\r\n", and a last message may end at EOF without a newline. A JSON
// array on one line is a batch (protocol revision 2025-03-26): its
// messages are read in order, and the responses to its requests are
// written together as one array once the last is ready. A message is
// written as jsonrpc.EncodeMessage writes it, but for a response's
// result, which goes out as it is given, not checked and compacted once
// more: the SDK gives it compact.
//
// The end of input is not the end of the requests read before it: once
// Reader ends (or fails, or sends a line that is not a message), Read
// returns the error only when every request it returned has been
// answered (a Write of a response with the request's id), a Write has
// failed, or the connection is closed. So a peer that writes its
// requests and closes its end gets every answer, and the SDK, which ends
// the connection and cancels the calls in flight when Read fails, sees
// the end only when nothing is left to answer. A subscriptions/listen
// request is the exception: it lasts as long as the input, so it is not
// waited for.
//
// Messages are read on the goroutine that calls Read, with one reused
// buffer, when closing Reader interrupts a pending read: a pipe or a
// socket, anything with a working SetReadDeadline (os.Stdin is, when it
// is in non-blocking mode). Any other Reader is read by one goroutine of
// the connection's, so that Close still ends a pending Read; that
// goroutine is left blocked until the Reader returns.
type StreamTransport struct {
	// Reader carries the messages in; it is required, and closing the
	// connection closes it.
	Reader io.ReadCloser
	// Writer carries the messages out, one Write a message; it is
	// required, and closing the connection closes it.
	Writer io.WriteCloser
	// MaxLine bounds one message, in bytes; zero means DefaultMaxLine. A
	// longer line ends the connection with a [*LineTooLongError], read no
	// further than the bound.
	MaxLine int
	// End, once closed, ends the input where it is, as the end of Reader
	// would: no further message is read, and Read returns io.EOF once the
	// requests it returned are answered. A server told to stop closes it;
	// nil means the input ends with Reader only.
	End <-chan struct{}
}

// LineTooLongError is a message longer than its transport's MaxLine.
type LineTooLongError struct {
	Max int
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("mcp: a message longer than %d bytes; allowed: one line of at most %d bytes a message", e.Max, e.Max)
}

// Connect starts the connection; it is called once, by the SDK. It
// fails when Reader or Writer is nil.
func (t *StreamTransport) Connect(context.Context) (sdk.Connection, error) {
	if t.Reader == nil || t.Writer == nil {
		return nil, errors.New("mcp: StreamTransport needs both a Reader and a Writer")
	}
	max := t.MaxLine
	if max <= 0 {
		max = DefaultMaxLine
	}
	c := &streamConn{
		r:        t.Reader,
		w:        t.Writer,
		lines:    newLineReader(t.Reader, max),
		closed:   make(chan struct{}),
		answered: make(chan struct{}, 1),
		end:      t.End,
	}
	if !interruptible(t.Reader) {
		c.feed = make(chan lineOrErr)
		go c.readLoop(c.feed)
	} else if t.End != nil {
		// End interrupts a Read pending on the Reader.
		go func() {
			select {
			case <-t.End:
				t.Reader.(interface{ SetReadDeadline(time.Time) error }).SetReadDeadline(time.Now())
			case <-c.closed:
			}
		}()
	}
	return c, nil
}

// interruptible reports whether closing r ends a Read pending on it.
func interruptible(r io.Reader) bool {
	d, ok := r.(interface{ SetReadDeadline(time.Time) error })
	return ok && d.SetReadDeadline(time.Time{}) == nil
}

type streamConn struct {
	r io.ReadCloser
	w io.WriteCloser

	// Reads are serialised by the SDK; these are Read's own.
	lines *lineReader
	queue []jsonrpc.Message // the rest of a batch
	feed  chan lineOrErr    // from readLoop, when Reader is not interruptible
	// feedErr ended readLoop
	feedErr error

	wmu     sync.Mutex
	batches map[jsonrpc.ID]*batch // the batch of each request still unanswered; under wmu
	// unanswered are the requests Read returned that no Write has
	// answered yet; broken is a failed Write. Both under wmu; answered
	// wakes a Read waiting at the end of input for them.
	unanswered map[jsonrpc.ID]bool
	broken     bool
	answered   chan struct{}

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
	end       <-chan struct{} // StreamTransport.End
}

type lineOrErr struct {
	line []byte
	err  error
}

// batch is the requests of one incoming batch: their responses go out
// together.
type batch struct {
	index     map[jsonrpc.ID]int
	responses []*jsonrpc.Response
	left      int
}

func (c *streamConn) SessionID() string { return "" }

func (c *streamConn) readLoop(feed chan<- lineOrErr) {
	for {
		line, err := c.lines.next()
		if line != nil {
			line = bytes.Clone(line)
		}
		select {
		case feed <- lineOrErr{line, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read returns the next message, io.EOF when the peer is gone or the
// connection closed. At the end of input it first waits until every
// request it returned has been answered.
func (c *streamConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.read(ctx)
	if err != nil {
		if werr := c.waitAnswered(ctx); werr != nil {
			return nil, werr
		}
		return nil, err
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && req.Method != "subscriptions/listen" {
		c.wmu.Lock()
		if c.unanswered == nil {
			c.unanswered = map[jsonrpc.ID]bool{}
		}
		c.unanswered[req.ID] = true
		c.wmu.Unlock()
	}
	return msg, nil
}

// waitAnswered waits until no request Read returned is unanswered, a
// Write failed or the connection is closed; it fails only when ctx ends.
func (c *streamConn) waitAnswered(ctx context.Context) error {
	for {
		c.wmu.Lock()
		done := len(c.unanswered) == 0 || c.broken
		c.wmu.Unlock()
		if done {
			return nil
		}
		select {
		case <-c.answered:
		case <-c.closed:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// answer wakes a Read waiting in waitAnswered.
func (c *streamConn) answer() {
	select {
	case c.answered <- struct{}{}:
	default:
	}
}

func (c *streamConn) read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.queue) > 0 {
		msg := c.queue[0]
		c.queue = c.queue[1:]
		return msg, nil
	}
	line, err := c.next(ctx)
	if err != nil {
		select {
		case <-c.closed:
			return nil, io.EOF
		default:
		}
		return nil, err
	}
	if line[0] == '[' {
		return c.readBatch(line)
	}
	return decodeMessage(line)
}

// next is the next line that is not blank, with its end of line cut;
// the caller owns it.
func (c *streamConn) next(ctx context.Context) ([]byte, error) {
	if c.feedErr != nil {
		return nil, c.feedErr
	}
	if c.ended() {
		return nil, io.EOF
	}
	if c.feed == nil {
		line, err := c.lines.next()
		if c.ended() {
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		return bytes.Clone(line), nil
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case <-c.end:
		return nil, io.EOF
	case v := <-c.feed:
		if v.err != nil {
			c.feedErr = v.err
			c.feed = nil // readLoop is done
		}
		return v.line, v.err
	}
}

// ended reports whether End is closed.
func (c *streamConn) ended() bool {
	select {
	case <-c.end:
		return true
	default:
		return false
	}
}

func (c *streamConn) readBatch(line []byte) (jsonrpc.Message, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(line, &raws); err != nil {
		return nil, fmt.Errorf("jsonrpc batch: %v", err)
	}
	if len(raws) == 0 {
		return nil, errors.New("jsonrpc batch: empty")
	}
	msgs := make([]jsonrpc.Message, len(raws))
	b := &batch{index: map[jsonrpc.ID]int{}}
	for i, raw := range raws {
		msg, err := decodeMessage(raw)
		if err != nil {
			return nil, err
		}
		msgs[i] = msg
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if _, dup := b.index[req.ID]; dup {
				return nil, fmt.Errorf("jsonrpc batch: id %v given twice", req.ID.Raw())
			}
			b.index[req.ID] = len(b.responses)
			b.responses = append(b.responses, nil)
		}
	}
	if b.left = len(b.responses); b.left > 0 {
		c.wmu.Lock()
		for id := range b.index {
			if _, dup := c.batches[id]; dup {
				c.wmu.Unlock()
				return nil, fmt.Errorf("jsonrpc batch: id %v is still unanswered from an earlier batch", id.Raw())
			}
		}
		if c.batches == nil {
			c.batches = map[jsonrpc.ID]*batch{}
		}
		for id := range b.index {
			c.batches[id] = b
		}
		c.wmu.Unlock()
	}
	c.queue = msgs[1:]
	return msgs[0], nil
}

// Write sends msg as one line, or holds a response to a batch's request
// until the batch's last response is ready.
func (c *streamConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	// A response that cannot go out answers its request all the same:
	// nothing else will.
	if resp, ok := msg.(*jsonrpc.Response); ok && c.unanswered[resp.ID] {
		delete(c.unanswered, resp.ID)
		c.answer()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	err := c.write(msg)
	if err != nil && !c.broken {
		c.broken = true
		c.answer()
	}
	return err
}

// write is Write's; c.wmu is held.
func (c *streamConn) write(msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && c.batches[resp.ID] != nil {
		return c.writeBatched(resp)
	}
	data, err := encodeMessage(msg)
	if err != nil {
		return err
	}
	_, err = c.w.Write(append(data, '\n'))
	return err
}

// encodeMessage is msg as jsonrpc.EncodeMessage writes it.
func encodeMessage(msg jsonrpc.Message) ([]byte, error) {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if data, ok := encodeResult(resp); ok {
			return data, nil
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, fmt.Errorf("mcp: encoding a message: %v", err)
	}
	return data, nil
}

// encodeResult writes a response with a result, every answer to a call,
// around its result as it is: the result is JSON the SDK encoded, compact
// already, which EncodeMessage would check and copy once more, a pass
// over every byte of every answer. ok is false for a response it leaves
// to EncodeMessage: an error, or a result with a newline, which
// EncodeMessage compacts away and which would end the line early.
func encodeResult(resp *jsonrpc.Response) (data []byte, ok bool) {
	if resp.Error != nil || len(resp.Result) == 0 || bytes.IndexByte(resp.Result, '\n') >= 0 {
		return nil, false
	}
	b := make([]byte, 0, len(resp.Result)+64)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	switch id := resp.ID.Raw().(type) {
	case int64:
		b = strconv.AppendInt(b, id, 10)
	case string:
		b = jsonquote.Append(b, id)
	default:
		return nil, false
	}
	b = append(b, `,"result":`...)
	b = append(b, resp.Result...)
	return append(b, '}'), true
}

// writeBatched records resp in its batch and writes the batch when it is
// complete; c.wmu is held.
func (c *streamConn) writeBatched(resp *jsonrpc.Response) error {
	b := c.batches[resp.ID]
	delete(c.batches, resp.ID)
	b.responses[b.index[resp.ID]] = resp
	if b.left--; b.left > 0 {
		return nil
	}
	out := []byte{'['}
	for i, r := range b.responses {
		data, err := encodeMessage(r)
		if err != nil {
			return err
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, data...)
	}
	_, err := c.w.Write(append(out, ']', '\n'))
	return err
}

// Close closes both streams; a pending Read returns io.EOF.
func (c *streamConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.closeErr = errors.Join(c.r.Close(), c.w.Close())
	})
	return c.closeErr
}

// lineReader splits a stream into lines with one reused buffer.
type lineReader struct {
	br   *bufio.Reader
	long []byte // a line longer than br's buffer, being gathered
	max  int
	err  error // once the stream ended or failed
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, min(max+2, 32<<10)), max: max}
}

// next is the next line that is not blank, without its end of line and
// the blanks around it; the bound counts the line as sent, without its
// "\n" or "\r\n". It is valid until the following call. A last line without a newline is
// a line; an error is io.EOF after the last line, a *LineTooLongError,
// or the stream's.
func (l *lineReader) next() ([]byte, error) {
	for l.err == nil {
		line, err := l.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull || l.long != nil {
			if len(l.long)+len(line) > l.max+2 { // room for "\r\n"
				l.long = nil
				l.err = &LineTooLongError{Max: l.max}
				return nil, l.err
			}
			l.long = append(l.long, line...)
			if err == bufio.ErrBufferFull {
				continue
			}
			line, l.long = l.long, nil
		}
		if err != nil {
			l.err = err
			if err != io.EOF {
				return nil, err
			}
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > l.max {
			l.err = &LineTooLongError{Max: l.max}
			return nil, l.err
		}
		if line = bytes.Trim(line, " \t\r"); len(line) > 0 {
			return line, nil
		}
	}
	return nil, l.err
}
