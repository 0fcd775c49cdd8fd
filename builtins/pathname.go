package builtins

import (
	"bufio"
	"context"
	"strings"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdBasename = &command{
	name:     "basename",
	usage:    "NAME [SUFFIX] | OPTION... NAME...",
	about:    "Print NAME with any leading directory components removed, and a trailing SUFFIX if given.",
	operands: "names, then (without -a or -s) an optional suffix",
	flags: []flag{
		{short: 'a', long: "multiple", about: "support multiple arguments and treat each as a NAME"},
		{short: 's', long: "suffix", arg: "SUFFIX", about: "remove a trailing SUFFIX; implies -a"},
		{short: 'z', long: "zero", about: "end each output line with NUL, not newline"},
	},
	run: runBasename,
}

var cmdDirname = &command{
	name:     "dirname",
	usage:    "[OPTION] NAME...",
	about:    "Print each NAME with its last non-slash component and trailing slashes removed ('.' when NAME has no slash).",
	operands: "names",
	flags: []flag{
		{short: 'z', long: "zero", about: "end each output line with NUL, not newline"},
	},
	run: runDirname,
}

func runBasename(_ context.Context, c *kernel.Call, a *args) error {
	names := a.operands
	suffix := a.value("suffix", "")
	multiple := a.has("multiple") || a.has("suffix")
	if len(names) == 0 {
		return pathnameTry(c, "missing operand")
	}
	if !multiple {
		switch len(names) {
		case 1:
		case 2:
			suffix = names[1]
			names = names[:1]
		default:
			return pathnameTry(c, "extra operand '"+names[2]+"'")
		}
	}
	end := byte('\n')
	if a.has("zero") {
		end = 0
	}
	w := bufio.NewWriter(c.Stdout)
	for _, name := range names {
		w.WriteString(basenameOf(name, suffix))
		w.WriteByte(end)
	}
	if err := w.Flush(); err != nil {
		return status(1)
	}
	return nil
}

func runDirname(_ context.Context, c *kernel.Call, a *args) error {
	if len(a.operands) == 0 {
		return pathnameTry(c, "missing operand")
	}
	end := byte('\n')
	if a.has("zero") {
		end = 0
	}
	w := bufio.NewWriter(c.Stdout)
	for _, name := range a.operands {
		w.WriteString(dirnameOf(name))
		w.WriteByte(end)
	}
	if err := w.Flush(); err != nil {
		return status(1)
	}
	return nil
}

// pathnameTry prints GNU's two lines for a bad command line: the problem,
// then where help is.
func pathnameTry(c *kernel.Call, problem string) error {
	failf(c, "%s", problem)
	c.Stderr.Write([]byte("Try '" + c.Args[0] + " --help' for more information.\n"))
	return status(1)
}

// basenameOf is name's last component (trailing slashes ignored; "/" for
// a name of slashes only) without suffix, unless suffix is all of it.
func basenameOf(name, suffix string) string {
	trimmed := strings.TrimRight(name, "/")
	if trimmed == "" {
		if name == "" {
			return ""
		}
		return "/"
	}
	base := trimmed[strings.LastIndexByte(trimmed, '/')+1:]
	if suffix != "" && base != suffix && strings.HasSuffix(base, suffix) {
		base = base[:len(base)-len(suffix)]
	}
	return base
}

// dirnameOf is name without its last component and the slashes before
// and after it: "." for a name without a slash, "/" for one at the root.
func dirnameOf(name string) string {
	s := strings.TrimRight(name, "/")
	if s == "" {
		if name == "" {
			return "."
		}
		return "/"
	}
	i := strings.LastIndexByte(s, '/')
	if i < 0 {
		return "."
	}
	s = strings.TrimRight(s[:i+1], "/")
	if s == "" {
		return "/"
	}
	return s
}
