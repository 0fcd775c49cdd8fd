package kernel

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"
)

// dirs, pushd and popd as bash has them. The stack lives in an array,
// dirStackVar (element 0 is the working directory), so that a subshell's
// pushd stays in the subshell and the stack survives from one call to the
// next with the other variables. mvdan/sh answers $DIRSTACK itself, from
// a stack of its own that shelter's builtins cannot reach, so the script
// preparation renames the expansions of DIRSTACK to dirStackVar
// (renameDirStack).
const dirStackVar = "SHELTER_DIRSTACK"

// dirStack is the stack, top first: the working directory, then
// DIRSTACK[1:].
func dirStack(hc interp.HandlerContext) []string {
	stack := []string{hc.Dir}
	if v := hc.Env.Get(dirStackVar); v.IsSet() && len(v.List) > 1 {
		stack = append(stack, v.List[1:]...)
	}
	return stack
}

// stackIndex reads +N (from the top) or -N (from the bottom).
func stackIndex(arg string, size int) (int, bool) {
	if len(arg) < 2 || arg[0] != '+' && arg[0] != '-' {
		return 0, false
	}
	n, err := strconv.Atoi(arg[1:])
	if err != nil || n < 0 || n >= size {
		return -1, true
	}
	if arg[0] == '-' {
		n = size - 1 - n
	}
	return n, true
}

func isStackIndex(arg string) bool {
	if len(arg) < 2 || arg[0] != '+' && arg[0] != '-' {
		return false
	}
	_, err := strconv.Atoi(arg[1:])
	return err == nil
}

// tildeDir writes dir with $HOME as ~, as dirs shows it without -l.
func tildeDir(hc interp.HandlerContext, dir string) string {
	home := hc.Env.Get("HOME").String()
	if home == "" || home == "/" {
		return dir
	}
	if dir == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(dir, home+"/"); ok {
		return "~/" + rest
	}
	return dir
}

func (s *Session) dirsCall(_ context.Context, hc interp.HandlerContext, args []string) []string {
	stack := dirStack(hc)
	var clear, long, perLine, numbered bool
	index := -1
	for _, a := range args[1:] {
		if isStackIndex(a) {
			n, _ := stackIndex(a, len(stack))
			if n < 0 {
				fmt.Fprintf(hc.Stderr, "dirs: %s: directory stack index out of range\n", a)
				return statusArgv(1)
			}
			index = n
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			fmt.Fprintf(hc.Stderr, "dirs: %s: invalid option\ndirs: usage: dirs [-clpv] [+N] [-N]\n", a)
			return statusArgv(2)
		}
		for _, c := range a[1:] {
			switch c {
			case 'c':
				clear = true
			case 'l':
				long = true
			case 'p':
				perLine = true
			case 'v':
				perLine, numbered = true, true
			default:
				fmt.Fprintf(hc.Stderr, "dirs: -%c: invalid option\ndirs: usage: dirs [-clpv] [+N] [-N]\n", c)
				return statusArgv(2)
			}
		}
	}
	if clear {
		return assignArgv([]string{assignArray(dirStackVar, stack[:1])}, 0)
	}
	show := func(d string) string {
		if long {
			return d
		}
		return tildeDir(hc, d)
	}
	var b strings.Builder
	switch {
	case index >= 0:
		b.WriteString(show(stack[index]) + "\n")
	case numbered:
		for i, d := range stack {
			fmt.Fprintf(&b, "%2d  %s\n", i, show(d))
		}
	default:
		sep := " "
		if perLine {
			sep = "\n"
		}
		for i, d := range stack {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(show(d))
		}
		b.WriteString("\n")
	}
	return printArgv(b.String())
}

// dirsArgs splits pushd's and popd's words: -n, one +N/-N or directory.
func dirsArgs(cmd string, hc interp.HandlerContext, args []string) (noCD bool, operand string, ok bool) {
	for i, a := range args {
		switch {
		case a == "--":
			if rest := args[i+1:]; len(rest) > 0 {
				operand = rest[0]
			}
			return noCD, operand, true
		case a == "-n":
			noCD = true
		case isStackIndex(a) || a == "-" || len(a) == 0 || a[0] != '-':
			if operand != "" {
				fmt.Fprintf(hc.Stderr, "%s: too many arguments\n", cmd)
				return false, "", false
			}
			operand = a
		default:
			fmt.Fprintf(hc.Stderr, "%s: %s: invalid option\n", cmd, a)
			return false, "", false
		}
	}
	return noCD, operand, true
}

// changeStack hands the interpreter the cd (unless noCD) and the new
// DIRSTACK, and prints the stack as dirs does when the cd worked.
func changeStack(hc interp.HandlerContext, stack []string, cd bool) []string {
	src := assignArray(dirStackVar, stack)
	if cd {
		src = "builtin cd " + quoteWord(stack[0]) + " && " + src
	}
	var show []string
	for _, d := range stack {
		show = append(show, tildeDir(hc, d))
	}
	src += " && builtin printf '%s\\n' " + quoteWord(strings.Join(show, " "))
	return []string{"eval", src}
}

func (s *Session) pushdCall(_ context.Context, hc interp.HandlerContext, args []string) []string {
	noCD, operand, ok := dirsArgs("pushd", hc, args[1:])
	if !ok {
		return statusArgv(2)
	}
	stack := dirStack(hc)
	switch {
	case operand == "":
		if len(stack) < 2 {
			fmt.Fprintln(hc.Stderr, "pushd: no other directory")
			return statusArgv(1)
		}
		stack[0], stack[1] = stack[1], stack[0]
	case isStackIndex(operand):
		n, _ := stackIndex(operand, len(stack))
		if n < 0 {
			fmt.Fprintf(hc.Stderr, "pushd: %s: directory stack index out of range\n", operand)
			return statusArgv(1)
		}
		stack = append(stack[n:], stack[:n]...)
	default:
		dir := operand
		if dir == "-" {
			dir = hc.Env.Get("OLDPWD").String()
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(hc.Dir, dir)
		}
		dir = filepath.Clean(dir)
		if noCD {
			stack = append([]string{stack[0], dir}, stack[1:]...)
			break
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			msg := "No such file or directory"
			if err == nil {
				msg = "Not a directory"
			}
			fmt.Fprintf(hc.Stderr, "pushd: %s: %s\n", operand, msg)
			return statusArgv(1)
		}
		stack = append([]string{dir}, stack...)
	}
	return changeStack(hc, stack, !noCD)
}

func (s *Session) popdCall(_ context.Context, hc interp.HandlerContext, args []string) []string {
	noCD, operand, ok := dirsArgs("popd", hc, args[1:])
	if !ok {
		return statusArgv(2)
	}
	if operand != "" && !isStackIndex(operand) {
		fmt.Fprintf(hc.Stderr, "popd: %s: invalid argument\n", operand)
		return statusArgv(2)
	}
	stack := dirStack(hc)
	if len(stack) < 2 {
		fmt.Fprintln(hc.Stderr, "popd: directory stack empty")
		return statusArgv(1)
	}
	n := 0
	if noCD {
		n = 1
	}
	if operand != "" {
		n, _ = stackIndex(operand, len(stack))
		if n < 0 {
			fmt.Fprintf(hc.Stderr, "popd: %s: directory stack index out of range\n", operand)
			return statusArgv(1)
		}
	}
	stack = append(stack[:n:n], stack[n+1:]...)
	return changeStack(hc, stack, n == 0 && !noCD)
}
