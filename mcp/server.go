package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shelter-sh/shelter/internal/jsonquote"
	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

// Options configure a [Server]. Kernel is required; every other zero
// value is stated at its field.
type Options struct {
	Kernel *kernel.Kernel
	// Session is what each new shell session is made with (its directory,
	// variables, tools of its own).
	Session kernel.SessionOptions
	// Expose names the families of tools listed; empty means all.
	Expose []Family
	// Default makes a call without a session use one default session, as
	// over stdio; otherwise such a call starts a new session, as over
	// HTTP, and every result names its handle in its text too.
	Default bool
	// Yield is the yield_ms a bash call gets when it gives none; zero
	// means calls never yield.
	Yield time.Duration
	// SessionTTL closes a session idle that long; zero means never.
	// The default session never expires.
	SessionTTL time.Duration
	// MaxSessions bounds the sessions open at once; zero means no bound.
	MaxSessions int
	// Progress is the interval of progress notifications while a call
	// runs, to a request that carries a progress token; zero means 15 s.
	Progress time.Duration
	// Version is the server's version in the initialize answer.
	Version string
}

// Server is an MCP server over a kernel: it lists [Defs] as tools and
// runs each call in a shell session named by the call's session
// argument. Sessions are the server's, not the transport's, so one
// Server serves stdio ([Server.Run]) or any number of HTTP clients
// ([Server.Handler]) alike. It is safe for concurrent use.
type Server struct {
	opts Options
	mcp  *sdk.Server
	defs []Def
	text bool // results name their session in the text block

	table sessionTable

	ctx    context.Context // ends with Close: every call's context derives from it
	cancel context.CancelFunc
}

// New builds a server and registers its tools.
func New(opts Options) (*Server, error) {
	if opts.Kernel == nil {
		return nil, fmt.Errorf("mcp: Options.Kernel is nil")
	}
	if opts.Progress == 0 {
		opts.Progress = 15 * time.Second
	}
	tools := append(opts.Kernel.Tools(), opts.Session.Tools...)
	defs, err := Defs(tools, DefOptions{Expose: opts.Expose, Config: opts.Kernel.Config(), Sessions: true, Default: opts.Default, Yield: opts.Yield})
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, defs: defs, text: !opts.Default}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.table.init(s)
	version := opts.Version
	if version == "" {
		version = "devel"
	}
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: "shelter", Version: version}, &sdk.ServerOptions{
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	for i := range s.defs {
		d := &s.defs[i]
		s.mcp.AddTool(MCPTool(*d, true), s.handler(d))
	}
	return s, nil
}

// MCP is the SDK server, for transports of the embedder's choice.
func (s *Server) MCP() *sdk.Server { return s.mcp }

// Defs are the tools the server lists, sorted by wire name.
func (s *Server) Defs() []Def { return s.defs }

// Run serves one client over t until the client goes or ctx ends. On
// stdio, t is a [StreamTransport] over os.Stdin and os.Stdout: at the end
// of its input every request read is answered before Run returns nil.
// The SDK's own stdio transports end the calls in flight there and drop
// their answers.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	return s.mcp.Run(ctx, t)
}

// Sessions is the number of shell sessions open.
func (s *Server) Sessions() int { return s.table.len() }

// Drain refuses new sessions from now on; running calls and existing
// sessions go on.
func (s *Server) Drain() { s.table.drain() }

// Wait waits until no call is running, or ctx ends; after [Server.Drain]
// it is how long the server goes on. It returns ctx's error if ctx ends
// first.
func (s *Server) Wait(ctx context.Context) error { return s.table.wait(ctx) }

// Close cancels every running call (status 130) and closes every
// session. The server refuses calls afterwards.
func (s *Server) Close() error {
	s.table.drain()
	s.cancel()
	s.table.closeAll()
	return nil
}

// call is one tools/call, its arguments split from its session.
type call struct {
	args   map[string]json.RawMessage
	handle string
}

func (s *Server) handler(d *Def) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		growStack(0)
		owner := ownerOf(req.Extra)
		c, line := splitArgs(d.Title, req.Params.Arguments)
		if line != "" {
			return s.refusal(line, s.table.named(owner, c.handle)), nil
		}
		if d.closer {
			return s.closeSession(owner, c.handle), nil
		}
		e, line := s.table.acquire(owner, c.handle)
		if line != "" {
			// A closed, expired or made-up handle is not echoed back as
			// if it could be passed again.
			return s.refusal(line, s.table.named(owner, c.handle)), nil
		}
		defer s.table.release(e)
		ctx, stop := s.table.callContext(e, ctx)
		defer stop()
		if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
			defer s.progress(ctx, req.Session, tok)()
		}
		res, line, closed := s.run(ctx, d, e.sess, c.args)
		if line != "" {
			handle := e.handle
			if closed {
				handle = ""
			}
			return s.refusal(line, handle), nil
		}
		return s.result(res, e.handle), nil
	}
}

// growStack grows the stack of the goroutine the SDK runs a call on, a
// new one for each request, at once to what a call needs (32 KB), while
// only the SDK's few frames are on it: the call would otherwise grow it
// step by step deep in the kernel, copying every frame at each step.
//
//go:noinline
func growStack(i int) byte {
	var pad [16 << 10]byte
	pad[i] = 1
	return pad[len(pad)-1-i]
}

// run runs a call of d in sess; line is a refusal of its arguments, or,
// with closed, of the session, which ended.
func (s *Server) run(ctx context.Context, d *Def, sess *kernel.Session, args map[string]json.RawMessage) (res kernel.Result, line string, closed bool) {
	opts := kernel.RunOptions{Yield: s.opts.Yield}
	var err error
	switch {
	case d.bash:
		var in bashInput
		if line := in.parse(args); line != "" {
			return res, line, false
		}
		opts.Stdin = in.stdin
		if in.timeout != nil {
			opts.Timeout = *in.timeout
			if opts.Timeout == 0 {
				opts.Timeout = -1
			}
		}
		if in.yield != nil {
			opts.Yield = *in.yield
		}
		res, err = sess.Run(ctx, in.command, opts)
	case d.family == FamilyHarness:
		input, _ := json.Marshal(args)
		res, err = sess.RunArgv(ctx, []string{d.tool.Name(), "--json", string(input)}, opts)
	case d.family == FamilyWrapped:
		input, _ := json.Marshal(args)
		words, werr := d.tool.(*wrapped.Command).WordsJSON(d.verb.Name(), input)
		if werr != nil {
			return res, werr.Error(), false
		}
		res, err = sess.RunArgv(ctx, append(append([]string{}, d.words...), words...), opts)
	}
	if err != nil {
		return res, "shelter: " + strings.TrimPrefix(err.Error(), "shelter: ") + "; call without a session to start a new one", true
	}
	return res, "", false
}

// progress sends a notification every Progress while the call runs; the
// returned func stops it.
func (s *Server) progress(ctx context.Context, ss *sdk.ServerSession, token any) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		start := time.Now()
		t := time.NewTicker(s.opts.Progress)
		defer t.Stop()
		n := 0
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				n++
				ss.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
					ProgressToken: token, Progress: float64(n),
					Message: fmt.Sprintf("running for %s", time.Since(start).Round(time.Second)),
				})
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

func (s *Server) closeSession(owner, handle string) *sdk.CallToolResult {
	if line := s.table.close(owner, handle); line != "" {
		return s.refusal(line, "")
	}
	// The handle is dead now: the result names no session.
	return s.result(kernel.Result{Stdout: "session closed\n", StdoutBytes: 15}, "")
}

// refusal is a call refused before anything ran: status 2, the line on
// stderr. handle is the session the call was to run in, "" when that
// session is closed, expired or was never made.
func (s *Server) refusal(line, handle string) *sdk.CallToolResult {
	line += "\n"
	return s.result(kernel.Result{ExitCode: 2, Rejected: true, Stderr: line, StderrBytes: int64(len(line))}, handle)
}

// result is a Result as MCP content: the Result and its session as
// structured content, and one text block for clients that read text. A
// yielded call is no error: it has not ended, and its text says so.
func (s *Server) result(res kernel.Result, handle string) *sdk.CallToolResult {
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: s.textBlock(res, handle)}},
		StructuredContent: structured(res, handle),
		IsError:           !res.Yielded && res.ExitCode != 0 || res.Rejected,
	}
}

// structured is the Result's JSON with a session field.
func structured(res kernel.Result, handle string) json.RawMessage {
	// MarshalJSON itself, not json.Marshal, which would copy and compact
	// what it returns: it ends in '}'.
	b, err := res.MarshalJSON()
	if err != nil {
		return nil
	}
	b = jsonquote.Append(append(b[:len(b)-1], `,"session":`...), handle)
	return append(b, '}')
}

// textBlock is stdout, a stderr section when there is stderr, a line for
// each note of a known gap the script used, then the exit code, or for a yielded call the job to wait for and no status, and
// the session's handle, to pass next, when the transport has no session
// of its own.
func (s *Server) textBlock(res kernel.Result, handle string) string {
	var b strings.Builder
	b.WriteString(res.Stdout)
	newline := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
	}
	if res.Stderr != "" {
		newline()
		b.WriteString("--- stderr ---\n")
		b.WriteString(res.Stderr)
	}
	for _, is := range res.Issues {
		if is.Severity == kernel.SeverityNote {
			newline()
			b.WriteString(kernel.IssueLine(is))
		}
	}
	newline()
	switch {
	case res.Yielded && len(res.Jobs) > 0:
		j := res.Jobs[len(res.Jobs)-1]
		fmt.Fprintf(&b, "still running as job %%%d; collect with wait %%%d (its output goes on in %s)", j.ID, j.ID, j.Log)
	case res.Yielded:
		b.WriteString("still running")
	default:
		b.WriteString("exit code: ")
		b.WriteString(strconv.Itoa(res.ExitCode))
	}
	switch {
	case !s.text || handle == "":
	case res.Rejected:
		fmt.Fprintf(&b, "\nsession: %s", handle)
	default:
		fmt.Fprintf(&b, "\nsession: %s (pass it as session to go on in this shell)", handle)
	}
	return b.String()
}
