package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/mcp"
)

// defaultServeOptions are serve's flags when none is given; tools
// --format starts from them too, so that it lists what serve does.
func defaultServeOptions() serveOptions {
	return serveOptions{sessionTTL: 30 * time.Minute, maxSessions: 256, yield: 45 * time.Second, grace: 30 * time.Second}
}

// serveOptions are shelter serve's own flags.
type serveOptions struct {
	http        string
	tokenFile   string
	profileSet  bool // --profile was given
	sessionTTL  time.Duration
	maxSessions int
	expose      []mcp.Family
	yield       time.Duration
	grace       time.Duration
}

const serveUsage = `usage:
  shelter serve [flags]                  an MCP server on stdin/stdout
  shelter serve --http ADDR [flags]      streamable HTTP (stateless) on ADDR

An MCP server (docs/mcp.md): the tools are bash, the harness tools, one
per verb of each wrapped command, and session_close. On stdio the profile
is sandbox: a session runs the declared commands and no program from PATH
(--allow-external NAME lets one), none of its choosing that could reach
the client's pipes; over HTTP it is agent. --profile chooses another: on
stdio, --profile agent lets every program run, with the route to the
client docs/security.md describes. On stdio, a call without a session
runs in the process's one default session; over HTTP it starts a new
session, whose handle its result names. A non-loopback --http needs
--token-file. At the end of stdin every request read is answered, then
the server exits 0. SIGTERM or Ctrl-C drains: /healthz answers 503 and
no new session starts while running calls get --grace; then every
session is closed and the server exits 0. Logs go to stderr.
`

func init() {
	serveFlags := []flagSpec{
		{name: "http", arg: "ADDR", meaning: "serve streamable HTTP on ADDR (127.0.0.1:8765) instead of stdio", verbs: "serve",
			value: func(o *options) value { return &stringFlag{&o.serve.http} }},
		{name: "token-file", arg: "FILE", meaning: "with --http, accept only requests with Authorization: Bearer and a token of FILE (one a line); required off loopback", verbs: "serve",
			value: func(o *options) value { return &stringFlag{&o.serve.tokenFile} }},
		{name: "session-ttl", arg: "DURATION", meaning: "close a session idle that long; 0 never", def: "30m", verbs: "serve",
			value: func(o *options) value { return &serveDuration{o, "--session-ttl", &o.serve.sessionTTL} }},
		{name: "max-sessions", arg: "N", meaning: "at most N sessions at once; 0 no bound", def: "256", verbs: "serve",
			value: func(o *options) value { return &maxSessionsFlag{o} }},
		{name: "expose", arg: "LIST", meaning: "the families of tools listed, comma-separated: bash, harness, wrapped", def: "all", verbs: "serve tools",
			value: func(o *options) value { return &exposeFlag{o} }},
		{name: "yield", arg: "DURATION", meaning: "a bash call's yield_ms when it gives none: past it the call returns and goes on as a job; 0 never", def: "45s", verbs: "serve",
			value: func(o *options) value { return &serveDuration{o, "--yield", &o.serve.yield} }},
		{name: "grace", arg: "DURATION", meaning: "on SIGTERM, how long running calls may go on before they are cancelled", def: "30s", verbs: "serve",
			value: func(o *options) value { return &serveDuration{o, "--grace", &o.serve.grace} }},
		{name: "format", arg: "FORMAT", meaning: "print the tools as an API takes them: mcp, openai or anthropic (docs/mcp.md)", verbs: "tools",
			value: func(o *options) value { return &stringFlag{&o.format} }},
	}
	flagSpecs = append(flagSpecs, serveFlags...)
	// serve's profile is sandbox on stdio, agent over HTTP; tools
	// --format lists what serve on stdio lists.
	for i, f := range flagSpecs {
		if f.name == "profile" && strings.Contains(f.verbs, "serve") {
			serve, tools := f, f
			serve.verbs, serve.def = "serve", "sandbox on stdio, agent with --http"
			tools.verbs, tools.def = "tools", "host; with --format, sandbox, as serve on stdio"
			serve.value = func(o *options) value { return &serveProfileFlag{o} }
			tools.value = serve.value
			for _, v := range []string{"serve", "tools"} {
				flagSpecs[i].verbs = strings.TrimSpace(strings.ReplaceAll(" "+flagSpecs[i].verbs+" ", " "+v+" ", " "))
			}
			flagSpecs = slices.Insert(flagSpecs, i+1, serve, tools)
			break
		}
	}
}

// serveProfile sets serve's default profile, unless --profile gave one:
// sandbox on stdio, agent over HTTP.
func serveProfile(o *options) {
	switch {
	case o.serve.profileSet:
	case o.serve.http == "":
		o.profile = string(kernel.ProfileSandbox)
	default:
		o.profile = string(kernel.ProfileAgent)
	}
}

// newServer is the MCP server of serve's flags; tools --format lists its
// tools.
func newServer(o *options, k *kernel.Kernel, sessOpts kernel.SessionOptions) (*mcp.Server, error) {
	so := o.serve
	return mcp.New(mcp.Options{
		Kernel: k, Session: sessOpts, Expose: so.expose, Default: so.http == "",
		Yield: so.yield, SessionTTL: so.sessionTTL, MaxSessions: so.maxSessions, Version: version(),
	})
}

func runServe(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	o := options{profile: string(kernel.ProfileAgent)}
	o.serve = defaultServeOptions()
	rest, status := o.parse("serve", args, stdout, stderr)
	if status >= 0 {
		return status
	}
	if len(rest) > 0 {
		return refuse(stderr, "shelter serve", "unexpected argument "+refusal.Quote(rest[0]))
	}
	serveProfile(&o)
	so := o.serve
	var tokens []string
	switch {
	case so.http == "" && so.tokenFile != "":
		fmt.Fprintln(stderr, "shelter serve: --token-file goes with --http; stdio has no tokens")
		return 2
	case so.tokenFile != "":
		var err error
		if tokens, err = mcp.ReadTokens(so.tokenFile); err != nil {
			fmt.Fprintf(stderr, "shelter serve: %v\n", err)
			return 2
		}
	case so.http != "" && !mcp.IsLoopback(so.http):
		fmt.Fprintf(stderr, "shelter serve: --http %s is not a loopback address; give --token-file FILE so that only holders of a token reach the shell, or bind 127.0.0.1\n", so.http)
		return 2
	}
	o.serving = true
	k, sessOpts, status := o.kernel(stderr)
	if status != 0 {
		return status
	}
	if os.Getenv("GOGC") == "" {
		// The go-sdk leaves a few hundred KB of short-lived buffers a call
		// (docs/mcp.md): collecting at 400% rather than 100% halves what
		// a call costs, for a few MB more heap. GOGC, when set, decides.
		debug.SetGCPercent(400)
	}
	srv, err := newServer(&o, k, sessOpts)
	if err != nil {
		fmt.Fprintf(stderr, "shelter serve: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if so.http == "" {
		if o.profile != string(kernel.ProfileSandbox) {
			fmt.Fprintf(stderr, "shelter serve: profile %s on stdio: the programs a session runs can reach the client's pipes unless the system keeps them apart (docs/security.md)\n", o.profile)
		}
		return serveStdio(ctx, srv, so, stdin, stdout, stderr)
	}
	return serveHTTP(ctx, srv, so, tokens, stderr)
}

// serveStdio serves on stdin and stdout until the input ends, or ctx
// ends: then no further request is read, those read are answered, and
// the calls running get the grace before they are cancelled.
func serveStdio(ctx context.Context, srv *mcp.Server, so serveOptions, stdin *os.File, stdout, stderr io.Writer) int {
	end, ran := make(chan struct{}), make(chan struct{})
	go func() {
		select {
		case <-ran:
			return
		case <-ctx.Done():
		}
		close(end)
		srv.Drain()
		fmt.Fprintf(stderr, "shelter serve: stopping: no further request is read; the requests read are answered, running calls get --grace %s\n", so.grace)
		grace := time.NewTimer(so.grace)
		defer grace.Stop()
		select {
		case <-ran:
		case <-grace.C:
			fmt.Fprintf(stderr, "shelter serve: --grace %s is over: the calls still running are cancelled\n", so.grace)
			srv.Close()
		}
	}()
	err := srv.Run(context.Background(), &mcp.StreamTransport{Reader: pollableStdin(stdin), Writer: nopCloser{stdout}, End: end})
	close(ran)
	srv.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "shelter serve: %v\n", err)
	}
	return 0
}

// serveHTTP serves until ctx ends, then drains: the listener stays open,
// /healthz answers 503, no new session starts, and the calls running get
// the grace to finish; then the calls left are cancelled, their answers
// go out, every session is closed and serveHTTP returns 0.
func serveHTTP(ctx context.Context, srv *mcp.Server, so serveOptions, tokens []string, stderr io.Writer) int {
	ln, err := net.Listen("tcp", so.http)
	if err != nil {
		fmt.Fprintf(stderr, "shelter serve: --http %s: %v\n", so.http, unwrapOp(err))
		return 2
	}
	hs := &http.Server{Handler: srv.Handler(tokens), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	fmt.Fprintf(stderr, "shelter serve: listening on http://%s\n", ln.Addr())
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "shelter serve: %v\n", err)
		srv.Close()
		return 1
	case <-ctx.Done():
	}
	srv.Drain()
	fmt.Fprintf(stderr, "shelter serve: draining: /healthz answers 503, no new session starts, running calls get --grace %s\n", so.grace)
	graceCtx, cancel := context.WithTimeout(context.Background(), so.grace)
	defer cancel()
	srv.Wait(graceCtx)
	// No call runs, or the grace is over: close the listener and let
	// every request being served finish; past the grace, cancel the
	// calls so that they answer at once.
	shutCtx, shutCancel := context.WithCancel(context.Background())
	defer shutCancel()
	shut := make(chan error, 1)
	go func() { shut <- hs.Shutdown(shutCtx) }()
	select {
	case <-shut:
	case <-graceCtx.Done():
		fmt.Fprintf(stderr, "shelter serve: --grace %s is over: the calls still running are cancelled\n", so.grace)
		srv.Close()
		select {
		case <-shut:
		case <-time.After(answersTimeout):
		}
	}
	shutCancel()
	srv.Close()
	hs.Close()
	return 0
}

// answersTimeout bounds how long the answers of the calls cancelled at
// the end of the grace may take to go out.
const answersTimeout = 10 * time.Second

func unwrapOp(err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Err
	}
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// serveProfileFlag is the --profile of serve and tools, which records
// that it was given: serve's default depends on --http.
type serveProfileFlag struct{ o *options }

func (f *serveProfileFlag) Set(v string) error {
	f.o.profile, f.o.serve.profileSet = v, true
	return nil
}

type serveDuration struct {
	o    *options
	name string
	p    *time.Duration
}

func (f *serveDuration) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return f.o.refuse(f.name, fmt.Sprintf("'%s' is not a duration; write a Go duration such as 30s, 500ms or 2m (0 for none)", v))
	}
	*f.p = d
	return nil
}

type maxSessionsFlag struct{ o *options }

func (f *maxSessionsFlag) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return f.o.refuse("--max-sessions", fmt.Sprintf("'%s' is not a count; write 0 or more (0 for no bound)", v))
	}
	f.o.serve.maxSessions = n
	return nil
}

type exposeFlag struct{ o *options }

func (f *exposeFlag) Set(v string) error {
	var fams []mcp.Family
	for _, name := range strings.Split(v, ",") {
		fam := mcp.Family(strings.TrimSpace(name))
		if !slices.Contains(mcp.Families(), fam) {
			return f.o.refuse("--expose", fmt.Sprintf("unknown family '%s'; allowed: bash, harness, wrapped", name))
		}
		fams = append(fams, fam)
	}
	f.o.serve.expose = fams
	return nil
}
