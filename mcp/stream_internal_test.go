package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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

// TestEncodeMessage holds encodeMessage to jsonrpc.EncodeMessage's
// bytes for the responses it writes itself and those it leaves to it;
// a result with blanks on its line, which the SDK never makes, keeps
// them.
func TestEncodeMessage(t *testing.T) {
	id := func(v any) jsonrpc.ID {
		id, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	result := json.RawMessage(`{"content":[{"type":"text","text":"\u003ca\u0026b\u003e é \u2028"}],"isError":true}`)
	for _, msg := range []jsonrpc.Message{
		&jsonrpc.Response{ID: id(float64(2)), Result: result},
		&jsonrpc.Response{ID: id(float64(-1 << 40)), Result: json.RawMessage(`{}`)},
		&jsonrpc.Response{ID: id(`a "quoted" <id> é` + "\u2029\x01"), Result: result},
		&jsonrpc.Response{ID: id("x"), Result: json.RawMessage("{\n\"a\": 1}")},
		&jsonrpc.Response{ID: id("x"), Result: json.RawMessage(`{"a": 1}`)},
		&jsonrpc.Response{ID: id(float64(3)), Error: &jsonrpc.Error{Code: -32602, Message: "bad <params>"}},
		&jsonrpc.Response{ID: id(float64(4))},
		&jsonrpc.Request{ID: id(float64(5)), Method: "tools/call", Params: json.RawMessage(`{"name":"bash"}`)},
		&jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{}`)},
	} {
		got, err := encodeMessage(msg)
		want, werr := jsonrpc.EncodeMessage(msg)
		if resp, ok := msg.(*jsonrpc.Response); ok && len(resp.Result) > 0 && !bytes.Contains(resp.Result, []byte("\n")) {
			var compact bytes.Buffer
			if json.Compact(&compact, resp.Result) == nil && compact.String() != string(resp.Result) {
				want = bytes.Replace(want, compact.Bytes(), resp.Result, 1)
			}
		}
		if err != nil || werr != nil || string(got) != string(want) {
			t.Errorf("%+v:\nencodeMessage %s (%v)\nEncodeMessage %s (%v)", msg, got, err, want, werr)
		}
	}
}
