package bashcompat

import (
	"context"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// Builtin is a builtin shelter answers in place of mvdan/sh's. It runs in
// the call handler with args as the handler got them (args[0] is the
// name) and returns the argv the interpreter runs instead.
type Builtin func(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string

// Lookup returns the builtin shelter answers in place of mvdan/sh's name;
// nil for none. A function of the name wins over it, but for `builtin
// NAME` and `command NAME`: the caller decides.
func Lookup(name string) Builtin {
	// A switch, as every command asks: a map's lookup hashed the name
	// each time.
	switch name {
	case "echo":
		return echoCall
	case "printf":
		return printfCall
	case "read":
		return readCall
	case "mapfile", "readarray":
		return mapfileCall
	case "cd":
		return cdCall
	case "pwd":
		return pwdCall
	case cdWord:
		return mvdanCd
	case "dirs":
		return dirsCall
	case "pushd":
		return pushdCall
	case "popd":
		return popdCall
	case "umask":
		return umaskCall
	case "ulimit":
		return ulimitCall
	case "trap":
		return trapBuiltin
	case trapWord:
		return mvdanTrap
	case "shift":
		return shiftBuiltin
	case shiftWord:
		return mvdanShift
	case "return":
		return returnBuiltin
	case returnWord:
		return mvdanReturn
	case "eval":
		return evalBuiltin
	case "declare", "typeset":
		return declareCall
	case "export":
		return exportCall
	case "readonly":
		return readonlyCall
	case "local":
		return localCall
	case "let":
		return letCall
	case "unset":
		return unsetCall
	case "type":
		return typeCall
	case "enable":
		return enableCall
	case "set":
		return setCall
	case "shopt":
		return shoptCall
	case "caller":
		return callerCall
	}
	return nil
}

// StatusArgv is the argv of a command that only exits with status n: the
// internal status command, which the exec handler answers.
func StatusArgv(n int) []string {
	return []string{shast.CmdStatus, strconv.Itoa(n)}
}

// wrote writes a builtin's output whole from the call handler and gives
// the argv that ends the command with status: a command the interpreter
// answers at once, as the exec handler would cost a second handler call.
func wrote(ctx context.Context, sh Shell, hc interp.HandlerContext, name, out string, status int) []string {
	return wroteArgv(sh, hc, writeOut(ctx, sh, hc, name, out), status)
}

// wroteArgv is wrote's argv once the write gave the status written
// (writeOut's).
func wroteArgv(sh Shell, hc interp.HandlerContext, written, status int) []string {
	if written == sigpipeStatus {
		return []string{shast.CmdSigpipe}
	} else if written != 0 {
		status = written
	}
	if r := sh.Runner(hc); status == 0 && r != nil && r.Funcs[":"] == nil {
		return colonArgv
	}
	return StatusArgv(status)
}

// colonArgv is `:`, shared: the interpreter does not change the argv a
// call handler gives it.
var colonArgv = []string{":"}

// assignArgv is the argv that makes the assignments (shell source, each
// `NAME=quoted` or `NAME=(quoted...)`) in the caller's scope, then exits
// with status.
func assignArgv(sh Shell, hc interp.HandlerContext, assigns []string, status int) []string {
	if len(assigns) == 0 {
		return StatusArgv(status)
	}
	src := strings.Join(assigns, "; ")
	if status != 0 {
		src += "; " + shast.Quote(shast.StatusWord) + " " + strconv.Itoa(status)
	}
	return sh.Eval(hc, src)
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
