package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shelter-sh/shelter/mcp"
)

// chunks is a reader that returns its chunks one Read each, then EOF;
// it has no SetReadDeadline, so a StreamTransport reads it on a
// goroutine of its own.
type chunks struct {
	mu   sync.Mutex
	left []string
	read int // bytes handed out
}

func (c *chunks) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.left) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.left[0])
	if c.left[0] = c.left[0][n:]; c.left[0] == "" {
		c.left = c.left[1:]
	}
	c.read += n
	return n, nil
}

func (c *chunks) Close() error { return nil }

// endless is a reader of one line that never ends.
type endless struct{ read int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	e.read += len(p)
	return len(p), nil
}

func (e *endless) Close() error { return nil }

type discard struct{ io.Writer }

func (discard) Close() error { return nil }

func connect(t *testing.T, tr *mcp.StreamTransport) sdk.Connection {
	t.Helper()
	if tr.Writer == nil {
		tr.Writer = discard{io.Discard}
	}
	c, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// methods reads messages until an error and returns their methods (or
// "result ID" for a response) and the error. It answers every request,
// so that the end of input is not held for it.
func methods(c sdk.Connection) ([]string, error) {
	var got []string
	for {
		msg, err := c.Read(context.Background())
		if err != nil {
			return got, err
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			got = append(got, m.Method)
			if m.IsCall() {
				c.Write(context.Background(), &jsonrpc.Response{ID: m.ID, Result: json.RawMessage(`{}`)})
			}
		case *jsonrpc.Response:
			got = append(got, fmt.Sprint("result ", m.ID.Raw()))
		}
	}
}

func TestStreamFraming(t *testing.T) {
	req := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	note := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	resp := `{"jsonrpc":"2.0","id":"x","result":{}}`
	for _, tc := range []struct {
		name   string
		chunks []string
		want   []string
		err    string // "" for io.EOF
	}{
		{"one a read", []string{req + "\n", note + "\n"}, []string{"ping", "notifications/initialized"}, ""},
		{"split across reads", []string{req[:5], req[5:20], req[20:] + "\n" + note[:1], note[1:] + "\n"}, []string{"ping", "notifications/initialized"}, ""},
		{"byte by byte", strings.Split(req+"\n"+resp+"\n", ""), []string{"ping", "result x"}, ""},
		{"crlf and blank lines", []string{"\n\r\n  \n" + req + "\r\n\n" + note + " \r\n"}, []string{"ping", "notifications/initialized"}, ""},
		{"last line at EOF", []string{req + "\n" + note}, []string{"ping", "notifications/initialized"}, ""},
		{"EOF mid-line", []string{req + "\n" + note[:20]}, []string{"ping"}, "jsonrpc message: unexpected end of JSON input"},
		{"two values on a line", []string{req + " " + note + "\n"}, nil, "jsonrpc message: invalid character '{' after top-level value"},
		{"not JSON-RPC", []string{`{"id":1}` + "\n"}, nil, `jsonrpc message: no "jsonrpc": "2.0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := connect(t, &mcp.StreamTransport{Reader: &chunks{left: tc.chunks}})
			got, err := methods(c)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("messages %q, want %q", got, tc.want)
			}
			switch {
			case tc.err == "" && err != io.EOF:
				t.Errorf("error %v, want EOF", err)
			case tc.err != "" && (err == nil || err.Error() != tc.err):
				t.Errorf("error %v, want %s", err, tc.err)
			}
		})
	}
}

func TestStreamLongLine(t *testing.T) {
	big := strings.Repeat("é", 1<<20) // 2 MiB, many times the buffer
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "m", "params": map[string]string{"s": big}})
	for _, max := range []int{0, len(line)} {
		c := connect(t, &mcp.StreamTransport{Reader: &chunks{left: []string{string(line) + "\n", string(line)}}, MaxLine: max})
		for range 2 {
			msg, err := c.Read(context.Background())
			if err != nil {
				t.Fatalf("MaxLine %d: %v", max, err)
			}
			var p struct{ S string }
			json.Unmarshal(msg.(*jsonrpc.Request).Params, &p)
			if p.S != big {
				t.Fatalf("MaxLine %d: params of %d bytes, want %d", max, len(p.S), len(big))
			}
		}
	}
}

func TestStreamLineTooLong(t *testing.T) {
	const max = 100
	req := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	long := `{"jsonrpc":"2.0","id":2,"method":"` + strings.Repeat("m", max) + `"}`
	r := &chunks{left: []string{req + "\n" + long + "\n" + req + "\n"}}
	c := connect(t, &mcp.StreamTransport{Reader: r, MaxLine: max})
	got, err := methods(c)
	var tooLong *mcp.LineTooLongError
	if len(got) != 1 || !errors.As(err, &tooLong) || tooLong.Max != max {
		t.Fatalf("messages %q, error %v; want ping, then a LineTooLongError", got, err)
	}
	if want := "mcp: a message longer than 100 bytes; allowed: one line of at most 100 bytes a message"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if _, err := c.Read(context.Background()); !errors.As(err, &tooLong) {
		t.Errorf("the next Read: %v, want the same error", err)
	}

	// A line that never ends is read no further than the bound.
	e := &endless{}
	c = connect(t, &mcp.StreamTransport{Reader: e, MaxLine: max})
	if _, err := c.Read(context.Background()); !errors.As(err, &tooLong) {
		t.Fatalf("an endless line: %v, want a LineTooLongError", err)
	}
	if e.read > 4*max {
		t.Errorf("read %d bytes of an endless line, bound %d", e.read, max)
	}
}

// TestStreamConcurrentWrites writes messages much larger than a pipe's
// buffer from many goroutines: each arrives whole, on its own line.
func TestStreamConcurrentWrites(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	out := connect(t, &mcp.StreamTransport{Reader: io.NopCloser(strings.NewReader("")), Writer: w})
	in := connect(t, &mcp.StreamTransport{Reader: r})
	const writers, each = 8, 20
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			params, _ := json.Marshal(strings.Repeat(string(rune('a'+g)), 200<<10))
			for i := range each {
				id, _ := jsonrpc.MakeID(float64(g*each + i))
				if err := out.Write(context.Background(), &jsonrpc.Request{ID: id, Method: "m", Params: params}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	seen := map[int64]bool{}
	for range writers * each {
		msg, err := in.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		req := msg.(*jsonrpc.Request)
		n := req.ID.Raw().(int64)
		var s string
		json.Unmarshal(req.Params, &s)
		if want := strings.Repeat(string(rune('a'+n/each)), 200<<10); s != want || seen[n] {
			t.Fatalf("message %d: %d bytes of params, or seen twice", n, len(s))
		}
		seen[n] = true
	}
	wg.Wait()
}

// TestStreamCloseUnblocksRead closes a connection whose Read waits for
// input, on a pipe (read on Read's goroutine) and on an io.Pipe (read on
// the connection's own).
func TestStreamCloseUnblocksRead(t *testing.T) {
	osr, osw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer osw.Close()
	ior, iow := io.Pipe()
	defer iow.Close()
	for name, r := range map[string]io.ReadCloser{"os.Pipe": osr, "io.Pipe": ior} {
		t.Run(name, func(t *testing.T) {
			c := connect(t, &mcp.StreamTransport{Reader: r})
			done := make(chan error, 1)
			go func() {
				_, err := c.Read(context.Background())
				done <- err
			}()
			c.Close()
			select {
			case err := <-done:
				if err != io.EOF {
					t.Errorf("Read after Close: %v, want EOF", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Read still blocked 10s after Close")
			}
		})
	}
}

// TestStreamBatch reads a batch (protocol revision 2025-03-26) and
// writes the responses to its requests as one array, in the batch's
// order, once the last is ready.
func TestStreamBatch(t *testing.T) {
	var out bytes.Buffer
	batch := `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"two","method":"b"}]`
	c := connect(t, &mcp.StreamTransport{Reader: &chunks{left: []string{batch + "\n" + `{"jsonrpc":"2.0","id":3,"method":"c"}` + "\n"}}, Writer: discard{&out}})
	var got []string
	for range 4 {
		msg, err := c.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, msg.(*jsonrpc.Request).Method)
	}
	if want := "[a n b c]"; fmt.Sprint(got) != want {
		t.Fatalf("messages %q, want %s", got, want)
	}
	respond := func(id any) {
		t.Helper()
		i, _ := jsonrpc.MakeID(id)
		if err := c.Write(context.Background(), &jsonrpc.Response{ID: i, Result: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	respond(float64(3))
	respond("two")
	if want := `{"jsonrpc":"2.0","id":3,"result":{}}` + "\n"; out.String() != want {
		t.Fatalf("before the batch is answered: %q, want %q", out.String(), want)
	}
	respond(float64(1))
	want := `{"jsonrpc":"2.0","id":3,"result":{}}` + "\n" + `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"two","result":{}}]` + "\n"
	if out.String() != want {
		t.Fatalf("wrote %q, want %q", out.String(), want)
	}
	if _, err := c.Read(context.Background()); err != io.EOF {
		t.Fatalf("Read with every request answered: %v, want EOF", err)
	}
}

// TestStreamEndOfInputWaitsForAnswers reads requests up to the end of
// input, or up to End: Read returns EOF once each is answered, once a
// Write has failed, or once the connection is closed, and not before; a
// subscriptions/listen is not waited for.
func TestStreamEndOfInputWaitsForAnswers(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"a"}
{"jsonrpc":"2.0","method":"n"}
{"jsonrpc":"2.0","id":"listen","method":"subscriptions/listen"}
{"jsonrpc":"2.0","id":2,"method":"b"}
`
	respond := func(t *testing.T, c sdk.Connection, id float64) error {
		i, _ := jsonrpc.MakeID(id)
		return c.Write(context.Background(), &jsonrpc.Response{ID: i, Result: json.RawMessage(`{}`)})
	}
	// readAllThen reads the four messages, waits for the end on a
	// goroutine and calls then.
	readAllThen := func(t *testing.T, c sdk.Connection, then func()) <-chan error {
		for range 4 {
			if _, err := c.Read(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		end := make(chan error, 1)
		go func() {
			_, err := c.Read(context.Background())
			end <- err
		}()
		then()
		return end
	}
	readAll := func(t *testing.T, c sdk.Connection) <-chan error { return readAllThen(t, c, func() {}) }
	pending := func(t *testing.T, end <-chan error) {
		t.Helper()
		select {
		case err := <-end:
			t.Fatalf("Read returned %v with a request unanswered", err)
		default:
		}
	}
	waitEOF := func(t *testing.T, end <-chan error) {
		t.Helper()
		select {
		case err := <-end:
			if err != io.EOF {
				t.Fatalf("Read at the end: %v, want EOF", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Read still waiting 10s after the last answer")
		}
	}
	for _, r := range []string{"goroutine", "pipe"} {
		t.Run("answered/"+r, func(t *testing.T) {
			var reader io.ReadCloser = &chunks{left: []string{in}}
			if r == "pipe" {
				pr, pw, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				pw.WriteString(in)
				pw.Close()
				reader = pr
			}
			c := connect(t, &mcp.StreamTransport{Reader: reader})
			end := readAll(t, c)
			respond(t, c, 2)
			pending(t, end)
			respond(t, c, 1)
			waitEOF(t, end)
		})
	}
	// End ends an input that goes on, read on Read's goroutine (a pipe)
	// or on the connection's (an io.Pipe).
	for _, r := range []string{"pipe", "io.Pipe"} {
		t.Run("End/"+r, func(t *testing.T) {
			var reader io.ReadCloser
			var writer io.WriteCloser
			if r == "pipe" {
				pr, pw, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				reader, writer = pr, pw
			} else {
				reader, writer = io.Pipe()
			}
			defer writer.Close()
			go io.WriteString(writer, in)
			end := make(chan struct{})
			c := connect(t, &mcp.StreamTransport{Reader: reader, End: end})
			ended := readAllThen(t, c, func() { close(end) })
			respond(t, c, 1)
			respond(t, c, 2)
			waitEOF(t, ended)
		})
	}
	t.Run("write failed", func(t *testing.T) {
		c := connect(t, &mcp.StreamTransport{Reader: &chunks{left: []string{in}}, Writer: failing{}})
		end := readAll(t, c)
		if err := respond(t, c, 2); err == nil {
			t.Fatal("a Write to a failing writer succeeded")
		}
		waitEOF(t, end)
	})
	t.Run("closed", func(t *testing.T) {
		c := connect(t, &mcp.StreamTransport{Reader: &chunks{left: []string{in}}})
		end := readAll(t, c)
		c.Close()
		waitEOF(t, end)
	})
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }
func (failing) Close() error              { return nil }

func TestStreamBatchRefused(t *testing.T) {
	for _, tc := range []struct{ batch, err string }{
		{`[]`, "jsonrpc batch: empty"},
		{`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":1,"method":"b"}]`, "jsonrpc batch: id 1 given twice"},
		{`[{"jsonrpc":"2.0","id":1,"method":"a"},3]`, "jsonrpc message: 3 is not an object"},
	} {
		c := connect(t, &mcp.StreamTransport{Reader: &chunks{left: []string{tc.batch + "\n"}}})
		if _, err := c.Read(context.Background()); err == nil || err.Error() != tc.err {
			t.Errorf("%s: %v, want %s", tc.batch, err, tc.err)
		}
	}
}

// TestStreamClientOfSDKServer is a StreamTransport client of a server on
// the SDK's own IOTransport, for both protocol revisions: the other
// direction of the server tests, whose clients are the SDK's.
func TestStreamClientOfSDKServer(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			toServer, fromClient, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			fromServer, toClient, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			srv := sdk.NewServer(&sdk.Implementation{Name: "sdk", Version: "1"}, nil)
			srv.AddTool(&sdk.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(req.Params.Arguments)}}}, nil
			})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- srv.Run(ctx, &sdk.IOTransport{Reader: toServer, Writer: toClient}) }()
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.StreamTransport{Reader: fromServer, Writer: fromClient}, &sdk.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Errorf("negotiated %s, want %s", got, version)
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"s": "<&>"}})
			if err != nil || text(res) != `{"s":"<&>"}` {
				t.Errorf("echo: %v %q", err, text(res))
			}
			cs.Close()
			cancel()
			<-done
		})
	}
}
