package mcp

import (
	"bufio"
	"bytes"
	"crypto/subtle"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves the server over streamable HTTP in the SDK's stateless
// mode, so that clients of every protocol revision are served; shell
// sessions are the handles of the session argument. GET /healthz answers
// 200 while the server is not draining, 503 after. With tokens, every
// other request must carry `Authorization: Bearer TOKEN` with one of
// them, or gets 401; a session is bound to the token that made it.
func (s *Server) Handler(tokens []string) http.Handler {
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp }, &sdk.StreamableHTTPOptions{
		Stateless: true,
		// A 2026-07-28 client that goes away cancels its call.
		PropagateRequestCancellation: true,
		// Clients reach a sandbox's server by a name of the platform's.
		DisableLocalhostProtection: len(tokens) > 0,
	})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if s.table.isDraining() {
			http.Error(w, "draining: the server is shutting down and starts no new session", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok\n")
	})
	mux.Handle("/", requireToken(tokens, s.fastPath(mcpHandler, len(tokens) == 0)))
	return mux
}

// fastPath is next with a POST of one tools/call served by a
// [postHandler], unless a tool binds an argument to a header; localhost
// is whether next refuses a loopback request under another host name.
func (s *Server) fastPath(next http.Handler, localhost bool) http.Handler {
	if s.paramHeaders() {
		return next
	}
	return &postHandler{s: s, next: next, localhost: localhost, versions: sdk.SupportedProtocolVersions()}
}

// paramHeaders reports whether a tool's input schema may bind an
// argument to a header (x-mcp-header), which the SDK's handler checks
// and the fast path does not.
func (s *Server) paramHeaders() bool {
	for _, d := range s.defs {
		if bytes.Contains(d.InputSchema, []byte("x-mcp-header")) {
			return true
		}
	}
	return false
}

func requireToken(tokens []string, next http.Handler) http.Handler {
	if len(tokens) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		valid := 0
		for _, t := range tokens {
			valid |= subtle.ConstantTimeCompare([]byte(got), []byte(t))
		}
		if !ok || valid == 0 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "shelter: missing or wrong bearer token; send Authorization: Bearer TOKEN with a token of --token-file", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ReadTokens reads a token file: one token a line, blank lines and
// lines starting with # skipped. A file with no token is an error.
func ReadTokens(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--token-file: %w", err)
	}
	var tokens []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			tokens = append(tokens, line)
		}
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("--token-file %s: no token in the file; put one token a line", file)
	}
	return tokens, nil
}

// IsLoopback reports whether addr (host:port) binds a loopback address
// only: localhost, 127.0.0.0/8 or ::1. An empty host binds every
// address, so it is not.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
