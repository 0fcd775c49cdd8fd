package bashcompat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/internal/refusal"
)

const (
	mapfilePlain     = "t"
	mapfileWithValue = "dnOsu"
)

// mapfileCall answers mapfile and readarray as bash 5.2 does, callbacks
// (-C, -c) aside.
func mapfileCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	name := args[0]
	fa := parseFlags(args[1:], mapfilePlain+"Cc", mapfileWithValue)
	if fa.bad != "" || fa.needed != "" {
		return refuse(hc, flagRefusal(name, fa, mapfilePlain, mapfileWithValue))
	}
	var (
		trim        bool
		delim       byte = '\n'
		count, skip int
		origin                = -1
		input       io.Reader = hc.Stdin
	)
	for _, f := range fa.flags {
		number := func() (int, bool) {
			n, err := strconv.Atoi(f.value)
			if err != nil || n < 0 {
				fmt.Fprintf(hc.Stderr, "%s: %s: invalid %s\n", name, f.value, map[byte]string{'n': "line count", 'O': "array origin", 's': "line count"}[f.name])
				return 0, false
			}
			return n, true
		}
		var ok = true
		switch f.name {
		case 'C', 'c':
			return refuse(hc, refusal.Line(name, fmt.Sprintf("flag '-%c' (a callback) is not supported", f.name), allowedFlags(mapfilePlain, mapfileWithValue)))
		case 't':
			trim = true
		case 'd':
			delim = 0
			if f.value != "" {
				delim = f.value[0]
			}
		case 'n':
			count, ok = number()
		case 'O':
			origin, ok = number()
		case 's':
			skip, ok = number()
		case 'u':
			in, found := fdInput(sh, hc, name, f.value)
			if !found {
				return StatusArgv(1)
			}
			if in != nil {
				defer in.Close()
				input = in
			}
		}
		if !ok {
			return StatusArgv(1)
		}
	}
	array := "MAPFILE"
	switch len(fa.rest) {
	case 0:
	case 1:
		array = fa.rest[0]
	default:
		return refuse(hc, fmt.Sprintf("%s: one array name only; got %d", name, len(fa.rest)))
	}
	if !validTarget(array, false) {
		fmt.Fprintf(hc.Stderr, "%s: `%s': not a valid identifier\n", name, array)
		return StatusArgv(1)
	}
	in := newInputReader(ctx, sh, input, 0)
	var lines []string
	status := 0
	for count == 0 || len(lines) < count {
		line, _, err := readRecord(in, delim, -1, false, true)
		if err == nil && !trim {
			line = append(line, delim)
		}
		if len(line) == 0 && err != nil {
			if ctx.Err() != nil {
				in.close()
				return StatusArgv(1)
			}
			break
		}
		if errors.Is(err, errReadTooLong) {
			fmt.Fprintf(hc.Stderr, "%s: input longer than %d bytes without a delimiter; stopped there\n", name, MaxReadBytes)
			status = 1
			break
		}
		if skip > 0 {
			skip--
		} else {
			lines = append(lines, string(line))
		}
		if err != nil {
			break
		}
	}
	in.close()
	if origin < 0 {
		return assignArgv(sh, hc, []string{assignArray(array, lines)}, status)
	}
	var assigns []string
	for i, l := range lines {
		assigns = append(assigns, assignScalar(fmt.Sprintf("%s[%d]", array, origin+i), l))
	}
	if len(assigns) == 0 {
		return StatusArgv(status)
	}
	return assignArgv(sh, hc, assigns, status)
}
