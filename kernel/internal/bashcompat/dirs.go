package bashcompat

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// dirs, pushd and popd as bash has them. The stack lives in an array,
// shast.DirStackVar, set when the session starts; element 0 is the working
// directory, which pushd, popd and cd (cdCall) keep, so that a subshell's
// pushd stays in the subshell and the stack survives from one call to the
// next with the other variables. mvdan/sh answers $DIRSTACK itself, from
// a stack of its own that shelter's builtins cannot reach, so the script
// preparation renames the expansions of DIRSTACK to shast.DirStackVar
// (package rewrite).

// dirStack is the stack, top first: the working directory, then
// DIRSTACK[1:].
func dirStack(hc interp.HandlerContext) []string {
	stack := []string{hc.Dir}
	if v := hc.Env.Get(shast.DirStackVar); v.IsSet() && len(v.List) > 1 {
		stack = append(stack, v.List[1:]...)
	}
	return stack
}

// cdCall is cd as bash has it: -L (the default) and -P (the directory
// with its symbolic links resolved), then mvdan/sh's cd, after which
// ${DIRSTACK[0]} follows the working directory. A script that unset the
// stack gets mvdan/sh's cd alone.
func cdCall(_ context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	fa := parseFlags(args[1:], "LPe@", "")
	if fa.bad != "" {
		return refuse(hc, flagRefusal("cd", fa, "LPe@", ""))
	}
	if len(fa.rest) > 1 {
		fmt.Fprintln(hc.Stderr, "cd: too many arguments")
		return StatusArgv(1)
	}
	physical := HeldOption(hc.Env, "physical") // set -P
	for _, f := range fa.flags {
		switch f.name {
		case 'L', 'P':
			physical = f.name == 'P'
		}
	}
	target := fa.rest
	if len(target) == 1 && target[0] == "" {
		// bash 5.2 changes to . (OLDPWD is set); with -P it fails.
		if physical {
			fmt.Fprintln(hc.Stderr, "cd: : No such file or directory")
			return StatusArgv(1)
		}
		target = []string{"."}
	}
	if home := hc.Env.Get("HOME").String(); physical && len(target) == 0 && home != "" {
		target = []string{home}
	}
	if physical && len(target) == 1 && target[0] != "-" {
		dir := target[0]
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(hc.Dir, dir)
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			target = []string{real}
		}
	}
	if line, ok := confinedCd(sh, hc, target); ok {
		fmt.Fprintln(hc.Stderr, line)
		return StatusArgv(2)
	}
	if !hc.Env.Get(shast.DirStackVar).IsSet() {
		return append([]string{"builtin", "cd"}, target...)
	}
	var src strings.Builder
	src.WriteString(shast.Quote(cdWord))
	for _, a := range target {
		src.WriteString(" " + shast.Quote(a))
	}
	src.WriteString(" && " + shast.DirStackVar + `[0]="$PWD"`)
	return sh.Eval(hc, src.String())
}

// pwdCall is pwd: -P resolves the links of the working directory through
// the opener, so that a confined session's answer comes from beneath its
// root; the last of -L and -P wins, as in bash. Plain pwd and bad flags
// are mvdan/sh's.
func pwdCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	fa := parseFlags(args[1:], "LP", "")
	if fa.bad != "" || len(fa.flags) == 0 {
		return args
	}
	if fa.flags[len(fa.flags)-1].name == 'L' {
		return wrote(ctx, sh, hc, "pwd", hc.Dir+"\n", 0)
	}
	dir, err := sh.EvalSymlinks(hc.Dir, hc.Dir)
	if err != nil {
		fmt.Fprintf(hc.Stderr, "pwd: %v\n", err)
		return StatusArgv(1)
	}
	return wrote(ctx, sh, hc, "pwd", dir+"\n", 0)
}

// confinedCd refuses, in a confined session, a cd whose directory lies
// outside the root, a symbolic link's target included.
func confinedCd(sh Shell, hc interp.HandlerContext, target []string) (string, bool) {
	dir := hc.Env.Get("HOME").String()
	if len(target) == 1 {
		dir = target[0]
		if dir == "-" {
			dir = hc.Env.Get("OLDPWD").String()
		}
	}
	if dir == "" {
		return "", false
	}
	if err := sh.OutsideRoot(hc.Dir, dir); err != nil {
		return fmt.Sprintf("cd: %s: %v", dir, err), true
	}
	return "", false
}

// cdWord is the command that hands cd's arguments to mvdan/sh's cd.
const cdWord = "\x01shelter:cd"

// mvdanCd is mvdan/sh's cd, which `builtin` reaches whatever function
// takes the name.
func mvdanCd(_ context.Context, _ Shell, _ interp.HandlerContext, args []string) []string {
	return append([]string{"builtin", "cd"}, args[1:]...)
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

// outOfRange is bash's complaint about an index past the stack.
func outOfRange(cmd, arg string, size int) string {
	if size < 2 {
		return cmd + ": directory stack empty"
	}
	return fmt.Sprintf("%s: %s: directory stack index out of range", cmd, arg)
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

func dirsCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	stack := dirStack(hc)
	var clear, long, perLine, numbered bool
	index := -1
	for _, a := range args[1:] {
		if isStackIndex(a) {
			n, _ := stackIndex(a, len(stack))
			if n < 0 {
				fmt.Fprintln(hc.Stderr, outOfRange("dirs", a, len(stack)))
				return StatusArgv(1)
			}
			index = n
			continue
		}
		if len(a) > 1 && (a[0] == '+' || a[0] == '-' && strings.Trim(a[1:], "clpv") != "") {
			fmt.Fprintf(hc.Stderr, "dirs: %s: invalid number\ndirs: usage: dirs [-clpv] [+N] [-N]\n", a)
			return StatusArgv(2)
		}
		if len(a) < 2 || a[0] != '-' {
			fmt.Fprintf(hc.Stderr, "dirs: %s: invalid option\ndirs: usage: dirs [-clpv] [+N] [-N]\n", a)
			return StatusArgv(2)
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
				return StatusArgv(2)
			}
		}
	}
	if clear {
		return assignArgv(sh, hc, []string{assignArray(shast.DirStackVar, stack[:1])}, 0)
	}
	show := func(d string) string {
		if long {
			return d
		}
		return tildeDir(hc, d)
	}
	var b strings.Builder
	switch {
	case index >= 0 && numbered:
		fmt.Fprintf(&b, "%2d  %s\n", index, show(stack[index]))
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
	return wrote(ctx, sh, hc, "dirs", b.String(), 0)
}

// stackOperand is pushd's or popd's word: none, +N/-N, or a directory
// (any word after "--", "-" for $OLDPWD).
type stackOperand struct {
	word    string
	given   bool
	literal bool // after "--": a directory even if it reads +N
}

func (o stackOperand) index() bool { return o.given && !o.literal && isStackIndex(o.word) }

// dirsArgs splits pushd's and popd's words: -n, then +N/-N or a
// directory; of several indexes the last stands, as in bash. A status
// other than 0 says the words were wrong, on stderr.
func dirsArgs(cmd, usage string, hc interp.HandlerContext, args []string) (noCD bool, op stackOperand, status int) {
	for i, a := range args {
		switch {
		case a == "--":
			if rest := args[i+1:]; len(rest) > 0 {
				op = stackOperand{word: rest[0], given: true, literal: true}
			}
			return noCD, op, 0
		case a == "-n":
			noCD = true
		case isStackIndex(a):
			if op.given && !op.index() {
				fmt.Fprintf(hc.Stderr, "%s: too many arguments\n", cmd)
				return false, op, 1
			}
			op = stackOperand{word: a, given: true}
		case a == "-" || len(a) == 0 || a[0] != '-' && a[0] != '+':
			if op.given {
				fmt.Fprintf(hc.Stderr, "%s: too many arguments\n", cmd)
				return false, op, 1
			}
			op = stackOperand{word: a, given: true}
		default:
			fmt.Fprintf(hc.Stderr, "%s: %s: invalid number\n%s: usage: %s\n", cmd, a, cmd, usage)
			return false, op, 2
		}
	}
	return noCD, op, 0
}

// changeStack hands the interpreter the cd (unless noCD) and the new
// DIRSTACK and, when the cd worked and print is set, prints the stack as
// dirs does, after the line before if there is one (`pushd -` prints
// the directory, as `cd -` does).
func changeStack(sh Shell, hc interp.HandlerContext, stack []string, cd, print bool, before string) []string {
	src := assignArray(shast.DirStackVar, stack)
	if cd {
		src = "builtin cd " + shast.Quote(stack[0]) + " && " + src
	}
	if !print {
		return sh.Eval(hc, src)
	}
	var show []string
	for _, d := range stack {
		show = append(show, tildeDir(hc, d))
	}
	out := strings.Join(show, " ")
	if before != "" {
		out = before + "\n" + out
	}
	src += " && builtin printf '%s\\n' " + shast.Quote(out)
	return sh.Eval(hc, src)
}

const (
	pushdUsage = "pushd [-n] [+N | -N | dir]"
	popdUsage  = "popd [-n] [+N | -N]"
)

func pushdCall(_ context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	noCD, op, status := dirsArgs("pushd", pushdUsage, hc, args[1:])
	if status != 0 {
		return StatusArgv(status)
	}
	stack := dirStack(hc)
	before := ""
	switch {
	case !op.given:
		if len(stack) < 2 {
			fmt.Fprintln(hc.Stderr, "pushd: no other directory")
			return StatusArgv(1)
		}
		stack[0], stack[1] = stack[1], stack[0]
	case op.index():
		n, _ := stackIndex(op.word, len(stack))
		if n < 0 {
			fmt.Fprintln(hc.Stderr, outOfRange("pushd", op.word, len(stack)))
			return StatusArgv(1)
		}
		stack = append(stack[n:], stack[:n]...)
		if noCD {
			// bash rotates the stack but stays, and prints nothing.
			return changeStack(sh, hc, stack, false, false, "")
		}
	default:
		dir := op.word
		if dir == "-" {
			dir = hc.Env.Get("OLDPWD").String()
			before = dir
		}
		if noCD {
			// As bash: the word as given, unchecked; a popd reads it
			// from the directory it is in then.
			stack = append([]string{stack[0], dir}, stack[1:]...)
			break
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(hc.Dir, dir)
		}
		dir = filepath.Clean(dir)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			msg := "No such file or directory"
			if err == nil {
				msg = "Not a directory"
			}
			fmt.Fprintf(hc.Stderr, "pushd: %s: %s\n", op.word, msg)
			return StatusArgv(1)
		}
		stack = append([]string{dir}, stack...)
	}
	return changeStack(sh, hc, stack, !noCD, true, before)
}

func popdCall(_ context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	noCD, op, status := dirsArgs("popd", popdUsage, hc, args[1:])
	if status != 0 {
		return StatusArgv(status)
	}
	if op.given && !op.index() {
		fmt.Fprintf(hc.Stderr, "popd: %s: invalid argument\npopd: usage: %s\n", op.word, popdUsage)
		return StatusArgv(2)
	}
	stack := dirStack(hc)
	if len(stack) < 2 {
		fmt.Fprintln(hc.Stderr, "popd: directory stack empty")
		return StatusArgv(1)
	}
	n := 0
	if op.given {
		n, _ = stackIndex(op.word, len(stack))
		if n < 0 {
			fmt.Fprintln(hc.Stderr, outOfRange("popd", op.word, len(stack)))
			return StatusArgv(1)
		}
	}
	if noCD && n == 0 {
		// -n keeps the working directory, so the top it would leave is
		// the entry below it, +0 and the -N of the top as well.
		n = 1
	}
	stack = append(stack[:n:n], stack[n+1:]...)
	return changeStack(sh, hc, stack, n == 0, true, "")
}
