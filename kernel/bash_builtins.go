package kernel

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/bashfmt"
	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// The builtins shelter answers itself instead of mvdan/sh's, for bash's
// behaviour: mvdan's lack flags (printf's precision and -v, read's -d -n
// -t…), write in pieces, or ignore a closed pipe. Each runs in the call
// handler, where the interpreter waits: it does its own I/O and hands back
// an argv for the interpreter to run — `:` or the internal status command
// once it wrote its output whole (wrote), or an eval of the assignments it
// makes, so that they land in the caller's scope, locals included.

// bashBuiltin is a replaced builtin: args as the call handler got them
// (args[0] is the name), the argv the interpreter runs instead.
type bashBuiltin func(s *Session, ctx context.Context, hc interp.HandlerContext, args []string) []string

// replacement is the builtin shelter answers in place of mvdan/sh's
// name; nil for none. A switch, as every command asks: a map's lookup
// hashed the name each time.
func replacement(name string) bashBuiltin {
	switch name {
	case "echo":
		return (*Session).echoCall
	case "printf":
		return (*Session).printfCall
	case "read":
		return (*Session).readCall
	case "mapfile", "readarray":
		return (*Session).mapfileCall
	case "cd":
		return (*Session).cdCall
	case "pwd":
		return (*Session).pwdCall
	case cdWord:
		return mvdanCd
	case "dirs":
		return (*Session).dirsCall
	case "pushd":
		return (*Session).pushdCall
	case "popd":
		return (*Session).popdCall
	case "umask":
		return (*Session).umaskCall
	case "ulimit":
		return (*Session).ulimitCall
	case "trap":
		return (*Session).trapBuiltin
	case trapWord:
		return mvdanTrap
	case "shift":
		return (*Session).shiftBuiltin
	case shiftWord:
		return mvdanShift
	case "return":
		return (*Session).returnBuiltin
	case returnWord:
		return mvdanReturn
	case "eval":
		return (*Session).evalBuiltin
	case "declare", "typeset":
		return (*Session).declareCall
	case "export":
		return (*Session).exportCall
	case "readonly":
		return (*Session).readonlyCall
	case "unset":
		return (*Session).unsetCall
	case "type":
		return (*Session).typeCall
	case "enable":
		return (*Session).enableCall
	case "set":
		return (*Session).setCall
	case "shopt":
		return (*Session).shoptCall
	}
	return nil
}

// echoCall writes echo's output whole, in the call handler: the shell's
// echo writes a line in several pieces, and pipeline stages run
// concurrently and share stderr and the result's stdout, so a line could
// be cut by another stage's.
func (s *Session) echoCall(ctx context.Context, hc interp.HandlerContext, args []string) []string {
	buf := echoBuffers.Get().(*[]byte)
	out := bashfmt.AppendEcho((*buf)[:0], args[1:])
	next := wroteArgv(hc, s.writeBytes(ctx, hc, "echo", out), 0)
	if cap(out) <= maxEchoBuffer {
		*buf = out[:0]
		echoBuffers.Put(buf)
	}
	return next
}

// echoBuffers are echo's output buffers, kept from one echo to the next:
// an echo in a loop would allocate one per line. A buffer that grew past
// maxEchoBuffer is let go.
var echoBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxEchoBuffer = 64 << 10

// wrote writes a builtin's output whole from the call handler and gives
// the argv that ends the command with status: a command the interpreter
// answers at once, as the exec handler would cost a second handler call.
func (s *Session) wrote(ctx context.Context, hc interp.HandlerContext, name, out string, status int) []string {
	return wroteArgv(hc, s.writeOut(ctx, hc, name, out), status)
}

// wroteArgv is wrote's argv once the write gave the status written
// (writeOut's).
func wroteArgv(hc interp.HandlerContext, written, status int) []string {
	if written == sigpipeStatus {
		return []string{shast.CmdSigpipe}
	} else if written != 0 {
		status = written
	}
	if r := mvdanpriv.HandlerRunner(hc); status == 0 && r != nil && r.Funcs[":"] == nil {
		return colonArgv
	}
	return statusArgv(status)
}

// colonArgv is `:`, shared: the interpreter does not change the argv a
// call handler gives it.
var colonArgv = []string{":"}

// replacedBuiltin answers args when shelter replaces that builtin; a
// function of the name wins unless bypass (builtin NAME, command NAME).
func (s *Session) replacedBuiltin(ctx context.Context, args []string, bypass bool) ([]string, bool) {
	c := command{hc: interp.HandlerCtx(ctx)}
	if !bypass {
		c.st = s.callOf(ctx)
	}
	return s.replaced(ctx, &c, args, bypass)
}

// replaced is replacedBuiltin for the call handler, which looked c up.
func (s *Session) replaced(ctx context.Context, c *command, args []string, bypass bool) ([]string, bool) {
	b := replacement(args[0])
	if b == nil || !bypass && c.st.hasFunc(args[0]) {
		return nil, false
	}
	return b(s, ctx, c.hc, args), true
}

// builtinCall answers `builtin NAME ARGS`: shelter's own job control for
// kill, jobs and wait, shelter's replacements, mvdan's for the rest.
func (s *Session) builtinCall(ctx context.Context, c *command, args []string) ([]string, bool) {
	rest := args[1:]
	if len(rest) == 0 {
		return nil, false
	}
	if next, ok := s.replaced(ctx, c, rest, true); ok {
		return next, true
	}
	if s.tools[rest[0]] != nil && interp.IsBuiltin(rest[0]) {
		out := slices.Clone(rest)
		out[0] = shast.InternalPrefix + rest[0]
		return out, true
	}
	return nil, false
}

// assignArgv is the argv that makes the assignments (shell source, each
// `NAME=quoted` or `NAME=(quoted...)`) in the caller's scope, then exits
// with status.
func assignArgv(hc interp.HandlerContext, assigns []string, status int) []string {
	if len(assigns) == 0 {
		return statusArgv(status)
	}
	src := strings.Join(assigns, "; ")
	if status != 0 {
		src += "; " + shast.Quote(shast.StatusWord) + " " + strconv.Itoa(status)
	}
	return quietEval(hc, src)
}

// statusWordArgv answers the status word.
func statusWordArgv(args []string) ([]string, bool) {
	if args[0] != shast.StatusWord || len(args) != 2 {
		return nil, false
	}
	n, _ := strconv.Atoi(args[1])
	return statusArgv(n), true
}

// assignScalar is the source that sets name (NAME or NAME[SUBSCRIPT]).
func assignScalar(name, value string) string {
	return name + "=" + shast.Quote(value)
}

func assignArray(name string, values []string) string {
	var b strings.Builder
	b.WriteString(name + "=(")
	for i, v := range values {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(shast.Quote(v))
	}
	b.WriteByte(')')
	return b.String()
}

// safeSubscript is what an array subscript of printf -v or read may hold:
// an index or simple arithmetic, nothing the eval would expand.
var safeSubscript = lazyRegexp(`^[A-Za-z0-9_ +*/%-]+$`)

// validTarget checks a variable name a builtin assigns to; elem allows
// NAME[SUBSCRIPT].
func validTarget(name string, elem bool) bool {
	if syntax.ValidName(name) {
		return true
	}
	if !elem || !strings.HasSuffix(name, "]") {
		return false
	}
	base, sub, ok := strings.Cut(name[:len(name)-1], "[")
	return ok && syntax.ValidName(base) && safeSubscript().MatchString(sub)
}

// invalidIdentifier is bash's line for a bad variable name.
func invalidIdentifier(cmd, name string) string {
	return fmt.Sprintf("%s: '%s': not a valid identifier\n", cmd, name)
}

// flagArgs splits bash-style builtin flags: single-letter flags, clustered
// (-rs), those in withValue taking the rest of the word or the next one.
// It stops at --, at "-" alone and at the first operand.
type flagArgs struct {
	flags  []flagArg
	rest   []string
	bad    string // an unknown flag, with its dash
	needed string // a flag given without its value
}

type flagArg struct {
	name  byte
	value string
}

func parseFlags(args []string, plain, withValue string) flagArgs {
	var fa flagArgs
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		args = args[1:]
		for i := 1; i < len(a); i++ {
			c := a[i]
			switch {
			case strings.IndexByte(withValue, c) >= 0:
				v := a[i+1:]
				if v == "" {
					if len(args) == 0 {
						fa.needed = "-" + string(c)
						return fa
					}
					v, args = args[0], args[1:]
				}
				fa.flags = append(fa.flags, flagArg{c, v})
				i = len(a)
			case strings.IndexByte(plain, c) >= 0:
				fa.flags = append(fa.flags, flagArg{name: c})
			default:
				fa.bad = "-" + string(c)
				return fa
			}
		}
	}
	fa.rest = args
	return fa
}

// allowedFlags lists a builtin's flags for a refusal.
func allowedFlags(plain, withValue string) []string {
	var out []string
	for _, c := range plain + withValue {
		out = append(out, "-"+string(c))
	}
	return out
}

// refuse prints a refusal line and gives the status argv.
func refuse(hc interp.HandlerContext, line string) []string {
	fmt.Fprintln(hc.Stderr, line)
	return statusArgv(2)
}

// flagRefusal is the line for a flag parse that failed.
func flagRefusal(cmd string, fa flagArgs, plain, withValue string) string {
	if fa.needed != "" {
		return fmt.Sprintf("%s: flag '%s' needs a value", cmd, fa.needed)
	}
	return fmt.Sprintf("%s: unknown flag '%s'; allowed: %s", cmd, fa.bad, Pool(allowedFlags(plain, withValue)))
}

// handlerEnv is the variables of the shell running ctx's command; ok is
// false when ctx is not a handler's (a tool's own goroutine, say).
func handlerEnv(ctx context.Context) (env expand.Environ, ok bool) {
	defer func() {
		if recover() != nil {
			env, ok = nil, false
		}
	}()
	return interp.HandlerCtx(ctx).Env, true
}

const printfUsage = "printf: usage: printf [-v var] format [arguments]"

// printfCall answers printf: it formats, then assigns (-v) or writes.
func (s *Session) printfCall(ctx context.Context, hc interp.HandlerContext, args []string) []string {
	fa := parseFlags(args[1:], "", "v")
	if fa.bad != "" || fa.needed != "" {
		return refuse(hc, flagRefusal("printf", fa, "", "v"))
	}
	if len(fa.rest) == 0 {
		fmt.Fprintln(hc.Stderr, printfUsage)
		return statusArgv(2)
	}
	if len(fa.flags) == 0 {
		out, errs, status := bashfmt.Printf(fa.rest[0], fa.rest[1:], zoneOf(hc))
		io.WriteString(hc.Stderr, errs)
		return s.wrote(ctx, hc, "printf", out, status)
	}
	target := fa.flags[len(fa.flags)-1].value
	if !validTarget(target, true) {
		fmt.Fprintf(hc.Stderr, "printf: `%s': not a valid identifier\n", target)
		return statusArgv(2)
	}
	out, errs, status := bashfmt.Printf(fa.rest[0], fa.rest[1:], zoneOf(hc))
	io.WriteString(hc.Stderr, errs)
	return assignArgv(hc, []string{assignScalar(target, out)}, status)
}

// zoneOf is the time zone the command's TZ names, the process's otherwise.
func zoneOf(hc interp.HandlerContext) *time.Location {
	tz := hc.Env.Get("TZ")
	if !tz.IsSet() {
		return time.Local
	}
	name := strings.TrimPrefix(tz.String(), ":")
	if name == "" || name == "UTC0" {
		return time.UTC
	}
	if loc, err := time.LoadLocation(name); err == nil {
		return loc
	}
	return time.UTC
}
