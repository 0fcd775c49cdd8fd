package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path"
	"strings"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdSed = &command{
	name:     "sed",
	usage:    "[OPTION]... {SCRIPT-if-no--e-or--f} [FILE]...",
	about:    "Edit each FILE (or standard input) as a stream with a sed script, Go's RE2 standing in for POSIX regular expressions (no backreferences in patterns).",
	operands: "the script (unless -e or -f gives it), then the input files; - is standard input",
	flags: []flag{
		{short: 'n', long: "quiet", about: "print only what the script prints"},
		{long: "silent", about: "same as --quiet"},
		{short: 'e', long: "expression", arg: "SCRIPT", about: "add SCRIPT to the commands (repeatable)"},
		{short: 'f', long: "file", arg: "FILE", about: "add the commands of FILE"},
		{short: 'E', long: "regexp-extended", about: "use extended regular expressions"},
		{short: 'r', about: "same as -E"},
		{short: 'i', long: "in-place", about: "edit files in place (no backup suffix)"},
		{short: 's', long: "separate", about: "treat files as separate streams"},
		{short: 'z', long: "null-data", about: "separate lines by NUL bytes"},
		{long: "sandbox", about: "refuse e, r and w (they are never supported)"},
	},
	run: runSed,
}

func runSed(ctx context.Context, c *kernel.Call, a *args) error {
	var script strings.Builder
	var pieces []sedPiece
	num := 0
	for _, g := range a.order {
		switch g.key {
		case "expression":
			num++
			pieces = append(pieces, sedPiece{start: script.Len(), num: num})
			script.WriteString(g.value)
			script.WriteByte('\n')
		case "file":
			f, err := openInput(ctx, c, g.value)
			if err != nil {
				failf(c, "couldn't open file %s: %s", g.value, sedReason(err))
				return status(4)
			}
			data, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				failf(c, "couldn't read %s: %s", g.value, sedReason(err))
				return status(4)
			}
			pieces = append(pieces, sedPiece{start: script.Len(), file: g.value})
			script.Write(data)
			if len(data) > 0 && data[len(data)-1] != '\n' {
				script.WriteByte('\n')
			}
		}
	}
	operands := a.operands
	if len(pieces) == 0 {
		if len(operands) == 0 {
			fmt.Fprintf(c.Stderr, "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...\nTry 'sed --help' for more information.\n")
			return status(1)
		}
		pieces = []sedPiece{{num: 1}}
		script.WriteString(operands[0])
		operands = operands[1:]
	}
	text := script.String()
	quiet := a.has("quiet") || a.has("silent")
	if strings.HasPrefix(text, "#n\n") || text == "#n" {
		quiet = true
	}
	cmds, err := sedParse(text, pieces, a.has("regexp-extended") || a.has("r"))
	if err != nil {
		var ref *kernel.Refusal
		if errors.As(err, &ref) {
			return ref
		}
		failf(c, "%s", err)
		var se *sedScriptError
		if errors.As(err, &se) && se.status != 0 {
			return status(se.status)
		}
		return status(1)
	}
	r := &sedRun{ctx: ctx, c: c, cmds: cmds, quiet: quiet, delim: '\n'}
	if a.has("null-data") {
		r.delim = 0
	}
	for _, cmd := range cmds {
		if cmd.a1 != nil && cmd.a1.kind == sedZero {
			cmd.active = true
		}
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	stdout := &sedOut{w: bufio.NewWriterSize(c.Stdout, 64<<10), delim: r.delim}
	r.out = stdout
	switch {
	case a.has("in-place"):
		for _, name := range operands {
			if r.quit {
				break
			}
			r.editInPlace(name)
		}
	case a.has("separate"):
		for _, name := range operands {
			if r.quit {
				break
			}
			r.runInput(newSedInput(r, []string{name}))
		}
	default:
		r.runInput(newSedInput(r, operands))
	}
	if err := stdout.w.Flush(); err != nil || stdout.failed {
		return status(4)
	}
	if r.exitCode != 0 {
		return status(r.exitCode)
	}
	return status(r.status)
}

// editInPlace runs the script over one file, writing a temporary file
// beside it that then replaces it with the original's mode.
func (r *sedRun) editInPlace(name string) {
	op := r.c.Opener()
	fi, err := op.Stat(name)
	if err != nil {
		failf(r.c, "can't read %s: %s", name, sedReason(err))
		r.status = max(r.status, 2)
		return
	}
	if !fi.Mode().IsRegular() {
		failf(r.c, "couldn't edit %s: not a regular file", name)
		r.status = 4
		return
	}
	dir := path.Dir(name)
	var tmp string
	var f io.ReadWriteCloser
	for range 10 {
		tmp = path.Join(dir, fmt.Sprintf("sed%06d", rand.IntN(1000000)))
		f, err = op.OpenFile(r.ctx, tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil || !errors.Is(err, os.ErrExist) {
			break
		}
	}
	if err != nil {
		failf(r.c, "couldn't open temporary file %s: %s", tmp, sedReason(err))
		r.status = 4
		return
	}
	saved := r.out
	out := &sedOut{w: bufio.NewWriterSize(f, 64<<10), delim: r.delim}
	r.out = out
	r.runInput(newSedInput(r, []string{name}))
	r.out = saved
	ferr := out.w.Flush()
	cerr := f.Close()
	if ferr != nil || cerr != nil || out.failed {
		op.Remove(tmp)
		failf(r.c, "couldn't write %s: %s", tmp, sedReason(errors.Join(ferr, cerr)))
		r.status = 4
		return
	}
	if err := op.Chmod(tmp, fi.Mode().Perm()); err != nil {
		op.Remove(tmp)
		failf(r.c, "couldn't set mode of %s: %s", tmp, sedReason(err))
		r.status = 4
		return
	}
	if err := op.Rename(tmp, name); err != nil {
		op.Remove(tmp)
		failf(r.c, "cannot rename %s: %s", tmp, sedReason(err))
		r.status = 4
	}
}
