package bashcompat

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/bashfmt"
)

const printfUsage = "printf: usage: printf [-v var] format [arguments]"

// printfCall answers printf: it formats, then assigns (-v) or writes.
func printfCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	fa := parseFlags(args[1:], "", "v")
	if fa.bad != "" || fa.needed != "" {
		return refuse(hc, flagRefusal("printf", fa, "", "v"))
	}
	if len(fa.rest) == 0 {
		fmt.Fprintln(hc.Stderr, printfUsage)
		return StatusArgv(2)
	}
	if len(fa.flags) == 0 {
		out, errs, status := bashfmt.Printf(fa.rest[0], fa.rest[1:], zoneOf(hc))
		io.WriteString(hc.Stderr, errs)
		return wrote(ctx, sh, hc, "printf", out, status)
	}
	target := fa.flags[len(fa.flags)-1].value
	if !validTarget(target, true) {
		fmt.Fprintf(hc.Stderr, "printf: `%s': not a valid identifier\n", target)
		return StatusArgv(2)
	}
	out, errs, status := bashfmt.Printf(fa.rest[0], fa.rest[1:], zoneOf(hc))
	io.WriteString(hc.Stderr, errs)
	src, ok := assignTarget(hc.Env, target, out)
	if !ok {
		fmt.Fprintf(hc.Stderr, "printf: `%s': not a valid identifier\n", target)
		return StatusArgv(2)
	}
	return assignArgv(sh, hc, []string{src}, status)
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
