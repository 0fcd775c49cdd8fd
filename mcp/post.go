package mcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// newProtocol is the first protocol revision whose requests carry their
// own metadata and no session (the SDK's SEP-2575 support).
const newProtocol = "2026-07-28"

// postHandler serves the one request that matters for speed, a POST of
// one tools/call, itself, and hands every other request to the SDK's
// streamable HTTP handler (next), which answers it in stateless mode.
//
// For that POST the SDK's handler runs nine JSON decoders, each new and
// with a buffer of 32 KiB (the body twice over, its _meta, the tool's
// name, the tool's input schema), before the server's own dispatch
// decodes it again: 288 KB of garbage a call (docs/performance.md,
// "Serving"). postHandler
// reads it once and checks what the SDK's handler checks (method,
// headers, protocol version, the _meta a 2026-07-28 request carries, the
// Mcp-Method and Mcp-Name headers), then runs the request through the
// same sdk.Server on a connection of one request, as the SDK's handler
// does, and writes the answer as the SDK's handler does: an SSE stream of
// the request's notifications and its response, or, on 2026-07-28, a
// protocol error as plain JSON with the HTTP status the SDK gives it. A
// request it would answer otherwise than the SDK, it does not take.
type postHandler struct {
	s    *Server
	next http.Handler
	// localhost is the SDK's DNS rebinding protection: a request that
	// reached a loopback address under another host name is refused.
	localhost bool
	// versions are the protocol revisions the server supports.
	versions []string
}

func (h *postHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	version, body, ok := h.take(r)
	if body != nil {
		// What was read goes back for the SDK's handler to read.
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	if !ok {
		h.next.ServeHTTP(w, r)
		return
	}
	msg, err := decodeMessage(body)
	req, isReq := msg.(*jsonrpc.Request)
	if err != nil || !isReq || !h.fits(r, req, version) {
		h.next.ServeHTTP(w, r)
		return
	}
	h.serve(w, r, req, version)
}

// take reads the body of a request the fast path may serve: a POST of
// JSON that accepts SSE, with a supported protocol version in its
// header, which the SDK would not refuse for its host, and a body of a
// known length under the SDK's bound. body is what it read, if anything.
func (h *postHandler) take(r *http.Request) (version string, body []byte, ok bool) {
	version = r.Header.Get("Mcp-Protocol-Version")
	switch {
	case r.Method != http.MethodPost,
		!slices.Contains(h.versions, version),
		!isJSON(r.Header.Get("Content-Type")),
		!acceptsBoth(r.Header.Values("Accept")),
		len(r.Header.Values("Last-Event-ID")) > 0,
		r.ContentLength <= 0 || r.ContentLength > sdk.DefaultMaxRequestBodyBytes,
		h.localhost && !localHost(r):
		return "", nil, false
	}
	body = make([]byte, r.ContentLength)
	n, err := io.ReadFull(r.Body, body)
	body = body[:n]
	return version, body, err == nil
}

// fits reports whether req is one tools/call the fast path answers as
// the SDK's handler would: for 2026-07-28, with the protocol version of
// its _meta and its Mcp-Method and Mcp-Name headers matching the request;
// before it, with no protocol version in its _meta.
func (h *postHandler) fits(r *http.Request, req *jsonrpc.Request, version string) bool {
	if req.Method != "tools/call" || !req.IsCall() || len(req.Params) == 0 {
		return false
	}
	var name, meta []byte
	if members(req.Params, func(key string, value []byte) {
		switch key {
		case "name":
			name = value
		case "_meta":
			meta = value
		}
	}) != nil {
		return false
	}
	var metaVersion []byte
	if len(meta) > 0 && meta[0] == '{' {
		members(meta, func(key string, value []byte) {
			if key == sdk.MetaKeyProtocolVersion {
				metaVersion = value
			}
		})
	}
	if version < newProtocol {
		return metaVersion == nil
	}
	v, ok := unquote(metaVersion)
	if !ok || v != version || r.Header.Get("Mcp-Method") != req.Method {
		return false
	}
	n, ok := unquote(name)
	return ok && n != "" && r.Header.Get("Mcp-Name") == n
}

// serve runs req through the server on a connection of its own, as the
// SDK's stateless handler does, and writes what it sends.
func (h *postHandler) serve(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request, version string) {
	req.Extra = &sdk.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header}
	c := &postConn{req: req, w: w, version: version, answered: make(chan struct{}), closed: make(chan struct{})}
	// A 2026-07-28 client that goes away cancels its call, as the SDK's
	// handler does with PropagateRequestCancellation: the connection's
	// input ends, which cancels what it runs.
	if version >= newProtocol {
		c.gone = r.Context().Done()
	}
	state := &sdk.ServerSessionState{}
	if version < newProtocol {
		// What the SDK's handler makes up for a session that never
		// initialized.
		state.InitializeParams = &sdk.InitializeParams{ProtocolVersion: version}
		state.InitializedParams = &sdk.InitializedParams{}
		state.LogLevel = "info"
	}
	h.head(w)
	ss, err := h.s.mcp.Connect(r.Context(), c, &sdk.ServerSessionOptions{State: state})
	if err != nil {
		http.Error(w, "failed connection", http.StatusInternalServerError)
		return
	}
	select {
	case <-c.answered:
	case <-r.Context().Done():
	}
	c.finish()
	// Close waits for the call to return, as after the SDK's handler.
	ss.Close()
}

// head sets the headers of an SSE answer, as the SDK's handler does.
func (h *postHandler) head(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Connection", "keep-alive")
}

// postConn is the connection of one request: the server reads the
// request, then nothing until it has answered; what it writes goes to
// the HTTP answer while the request is being served.
type postConn struct {
	req     *jsonrpc.Request
	version string
	gone    <-chan struct{} // the client went away; nil when it does not cancel

	mu       sync.Mutex
	w        http.ResponseWriter // nil once the request is served
	read     bool
	answered chan struct{} // closed when the response is written

	closeOnce sync.Once
	closed    chan struct{}
}

func (c *postConn) Connect(context.Context) (sdk.Connection, error) { return c, nil }

func (c *postConn) SessionID() string { return "" }

func (c *postConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	c.mu.Lock()
	first := !c.read
	c.read = true
	c.mu.Unlock()
	if first {
		return c.req, nil
	}
	select {
	case <-c.answered:
	case <-c.gone:
	case <-c.closed:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return nil, io.EOF
}

var errServed = errors.New("mcp: the request was served; nothing more can be written to its answer")

// Write writes a notification, or the request's response, as an SSE
// event, as the SDK's handler does; on 2026-07-28, a response that is a
// protocol error goes as plain JSON with its HTTP status. A request to
// the client is refused: a stateless server cannot be answered.
func (c *postConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.w == nil {
		return errServed
	}
	resp, isResp := msg.(*jsonrpc.Response)
	switch {
	case isResp && resp.ID != c.req.ID:
		return errServed
	case !isResp && msg.(*jsonrpc.Request).IsCall():
		return errors.New("mcp: a stateless server cannot send requests to the client")
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	if isResp {
		defer close(c.answered)
		if status := errorStatus(resp, c.version); status != 0 {
			c.w.Header().Set("Content-Type", "application/json")
			c.w.WriteHeader(status)
			_, err := c.w.Write(data)
			c.w = nil
			return err
		}
	}
	b := make([]byte, 0, len("event: message\ndata: \n\n")+len(data))
	b = append(b, "event: message\ndata: "...)
	b = append(append(b, data...), "\n\n"...)
	_, err = c.w.Write(b)
	http.NewResponseController(c.w).Flush()
	if isResp {
		c.w = nil
	}
	return err
}

// finish ends the writes to the HTTP answer: the request is served.
func (c *postConn) finish() {
	c.mu.Lock()
	c.w = nil
	c.mu.Unlock()
}

func (c *postConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// errorStatus is the HTTP status the SDK's handler answers a protocol
// error of revision 2026-07-28 with; 0 for any other response.
func errorStatus(resp *jsonrpc.Response, version string) int {
	var jerr *jsonrpc.Error
	if version < newProtocol || resp.Error == nil || !errors.As(resp.Error, &jerr) {
		return 0
	}
	switch jerr.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, sdk.CodeUnsupportedProtocolVersion, sdk.CodeMissingRequiredClientCapabilities:
		return http.StatusBadRequest
	}
	return 0
}

// isJSON reports whether a Content-Type is application/json.
func isJSON(contentType string) bool {
	t, _, err := mime.ParseMediaType(contentType)
	return err == nil && t == "application/json"
}

// acceptsBoth reports whether Accept takes both JSON and SSE, as the
// SDK requires.
func acceptsBoth(values []string) bool {
	var json, sse bool
	for _, v := range values {
		for raw := range strings.SplitSeq(v, ",") {
			base, _, _ := strings.Cut(raw, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				json = true
			case "text/event-stream", "text/*":
				sse = true
			case "*/*":
				json, sse = true, true
			}
		}
	}
	return json && sse
}

// localHost reports whether the SDK's DNS rebinding protection lets r
// through: it came to an address that is not loopback, or under a
// loopback host name.
func localHost(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || addr == nil || !loopback(addr.String()) {
		return true
	}
	return loopback(r.Host)
}

// loopback reports whether a host, with or without a port, is
// localhost or a loopback address.
func loopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.Trim(hostport, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
