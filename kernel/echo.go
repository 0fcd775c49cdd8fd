package kernel

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// The shell's echo and printf write a line in several pieces; pipeline
// stages run concurrently and share stderr and the result's stdout, so a
// line could be cut by another stage's. shelter answers both itself,
// building the whole output first and writing it once. The behaviour is
// mvdan/sh's own.

// wholeWriteBuiltin reports whether name is answered by writeEcho or
// writePrintf; a function of that name wins.
func wholeWriteBuiltin(name string, st *callState) bool {
	return (name == "echo" || name == "printf") && !st.hasFunc(name)
}

func writeEcho(w io.Writer, args []string) error {
	newline, escapes := true, false
flags:
	for len(args) > 0 {
		switch args[0] {
		case "-n":
			newline = false
		case "-e":
			escapes = true
		case "-E":
		default:
			break flags
		}
		args = args[1:]
	}
	var b strings.Builder
	for i, arg := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if escapes {
			arg, _, _ = expand.Format(nil, arg, nil)
		}
		b.WriteString(arg)
	}
	if newline {
		b.WriteByte('\n')
	}
	io.WriteString(w, b.String())
	return nil
}

func writePrintf(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, "usage: printf format [arguments]\n")
		return interp.ExitStatus(2)
	}
	format, args := args[0], args[1:]
	var b strings.Builder
	for {
		s, n, err := expand.Format(nil, format, args)
		if err != nil {
			io.WriteString(stdout, b.String())
			fmt.Fprintf(stderr, "%v\n", err)
			return interp.ExitStatus(1)
		}
		b.WriteString(s)
		args = args[n:]
		if n == 0 || len(args) == 0 {
			break
		}
	}
	io.WriteString(stdout, b.String())
	return nil
}

func (st *callState) hasFunc(name string) bool {
	return st != nil && slices.Contains(st.funcs, name)
}
