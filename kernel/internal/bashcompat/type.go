package bashcompat

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// type and command -v -V -p as bash 5.2 has them. A name means, in bash's
// order: a keyword, a function, a session tool (a tool hides the builtin
// and the program of its name), a builtin — bash's list, not mvdan/sh's —
// and the files of that name on the session's PATH. An alias comes
// first, under `shopt -s expand_aliases` only, as in a non-interactive
// bash.

// bashBuiltinNames is bash 5.2's `compgen -b`: what type and command call a
// builtin. mvdan/sh's own list differs (it has newgrp, lacks let's
// siblings).
var bashBuiltinNames = []string{
	".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd",
	"command", "compgen", "complete", "compopt", "continue", "declare", "dirs",
	"disown", "echo", "enable", "eval", "exec", "exit", "export", "false", "fc",
	"fg", "getopts", "hash", "help", "history", "jobs", "kill", "let", "local",
	"logout", "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray",
	"readonly", "return", "set", "shift", "shopt", "source", "suspend", "test",
	"times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias",
	"unset", "wait",
}

// bashKeywords is bash 5.2's `compgen -k`.
var bashKeywords = []string{
	"if", "then", "else", "elif", "fi", "case", "esac", "for", "select",
	"while", "until", "do", "done", "in", "function", "time", "{", "}", "!",
	"[[", "]]", "coproc",
}

// standardPath is where command -p looks: what confstr(_CS_PATH) gives
// bash on glibc.
const standardPath = "/bin:/usr/bin"

// meaningKind is what a name is to the shell.
type meaningKind int

const (
	meansKeyword meaningKind = iota
	meansFunction
	meansTool
	meansBuiltin
	meansFile
	meansAlias
)

// meaning is one thing a name resolves to.
type meaning struct {
	kind  meaningKind
	path  string       // meansFile
	body  *syntax.Stmt // meansFunction
	tool  string       // meansTool: its kind
	alias string       // meansAlias: its value
}

// lookupOptions are describe_command's flags in bash.
type lookupOptions struct {
	all       bool   // -a: every meaning, not the first
	noFuncs   bool   // -f
	forcePath bool   // -P: files only
	path      string // PATH to search
}

// meanings is what name resolves to, first the one that runs.
func meanings(sh Shell, hc interp.HandlerContext, name string, o lookupOptions) []meaning {
	var out []meaning
	if !o.forcePath {
		if value, ok := sh.Alias(hc, name); ok {
			out = append(out, meaning{kind: meansAlias, alias: value})
		}
		if slices.Contains(bashKeywords, name) {
			out = append(out, meaning{kind: meansKeyword})
		}
		if body := sh.Funcs(hc)[name]; body != nil && !o.noFuncs {
			out = append(out, meaning{kind: meansFunction, body: body})
		}
		if kind, ok := sh.ToolKind(name); ok {
			// A tool hides the builtin and the files of its name.
			return append(out, meaning{kind: meansTool, tool: kind})
		}
		if slices.Contains(bashBuiltinNames, name) {
			out = append(out, meaning{kind: meansBuiltin})
		}
		if len(out) > 0 && !o.all {
			return out[:1]
		}
	} else if _, ok := sh.ToolKind(name); ok {
		return nil
	}
	for _, p := range runnableFiles(sh, hc.Dir, o.path, name, o.all) {
		out = append(out, meaning{kind: meansFile, path: p})
	}
	if len(out) > 0 && !o.all {
		return out[:1]
	}
	return out
}

// runnableFiles is where name is found as a program the session may run:
// on path, or, when the session's policy denies programs from PATH, the
// allowed program it resolved to when the kernel was built.
func runnableFiles(sh Shell, dir, path, name string, all bool) []string {
	if sh.PathPrograms() {
		return pathFiles(dir, path, name, all)
	}
	if p, ok := sh.AllowedProgram(filepath.Base(name)); ok && (name == filepath.Base(name) || filepath.Clean(filepath.Join(dir, name)) == p) {
		return []string{p}
	}
	return nil
}

// pathFiles is where name is found as an executable file: itself when it
// holds a slash, else on path (the first match, or all).
func pathFiles(dir, path, name string, all bool) []string {
	if strings.Contains(name, "/") {
		if isExecutable(dir, name) {
			return []string{name}
		}
		return nil
	}
	var out []string
	for _, d := range filepath.SplitList(path) {
		p := filepath.Join(d, name)
		if !isExecutable(dir, p) || slices.Contains(out, p) {
			continue
		}
		out = append(out, p)
		if !all {
			break
		}
	}
	return out
}

func isExecutable(dir, p string) bool {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// typeOutput is one kind of type's output.
type typeOutput int

const (
	describeLong  typeOutput = iota // type: "ls is /bin/ls", command -V
	describeKind                    // type -t
	describePath                    // type -p, -P
	describeShort                   // command -v
)

// describe writes what name means as out asks; found is false when it
// means nothing.
func describe(sh Shell, b *strings.Builder, name string, ms []meaning, out typeOutput) {
	for _, m := range ms {
		switch out {
		case describeKind:
			b.WriteString([]string{"keyword", "function", "builtin", "builtin", "file", "alias"}[m.kind] + "\n")
		case describePath:
			if m.kind == meansFile {
				b.WriteString(m.path + "\n")
			}
		case describeShort:
			switch m.kind {
			case meansFile:
				b.WriteString(m.path + "\n")
			case meansAlias:
				b.WriteString("alias " + name + "='" + strings.ReplaceAll(m.alias, "'", `'\''`) + "'\n")
			default:
				b.WriteString(name + "\n")
			}
		default:
			switch m.kind {
			case meansKeyword:
				b.WriteString(name + " is a shell keyword\n")
			case meansFunction:
				b.WriteString(name + " is a function\n" + funcText(name, m.body, false) + "\n")
			case meansTool:
				b.WriteString(name + " is a shelter " + kindNoun(m.tool) + "\n")
			case meansBuiltin:
				b.WriteString(name + " is a shell builtin\n")
			case meansFile:
				b.WriteString(name + " is " + m.path + "\n")
			case meansAlias:
				b.WriteString(name + " is aliased to `" + m.alias + "'\n")
			}
		}
	}
}

// kindNoun names a tool's kind (Shell.ToolKind) in type's output.
func kindNoun(kind string) string {
	switch kind {
	case "wrapped":
		return "wrapped command"
	case "harness":
		return "harness tool"
	}
	return "builtin"
}

const typeFlags = "afptP"

func typeCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	fa := parseFlags(args[1:], typeFlags, "")
	if fa.bad != "" {
		return refuse(hc, flagRefusal("type", fa, typeFlags, ""))
	}
	o := lookupOptions{path: hc.Env.Get("PATH").String()}
	out := describeLong
	for _, f := range fa.flags {
		switch f.name {
		case 'a':
			o.all = true
		case 'f':
			o.noFuncs = true
		case 't':
			out = describeKind
		case 'p':
			out = describePath
		case 'P':
			out, o.forcePath = describePath, true
		}
	}
	var b, errs strings.Builder
	status := 0
	for _, name := range fa.rest {
		ms := meanings(sh, hc, name, o)
		if len(ms) == 0 || out == describePath && ms[0].kind == meansTool {
			// A tool has no path to print.
			status = 1
		}
		if len(ms) == 0 && out == describeLong {
			errs.WriteString("type: " + name + ": not found\n")
		}
		describe(sh, &b, name, ms, out)
	}
	hc.Stderr.Write([]byte(errs.String()))
	return wrote(ctx, sh, hc, "type", b.String(), status)
}

const commandFlags = "pvV"

// Command answers `command` with a flag: -v and -V describe names as
// type does, -p runs a name with the standard PATH. Plain `command NAME`
// stays the interpreter's (it runs NAME, functions skipped).
func Command(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	fa := parseFlags(args[1:], commandFlags, "")
	if fa.bad != "" {
		return refuse(hc, flagRefusal("command", fa, commandFlags, ""))
	}
	o := lookupOptions{path: hc.Env.Get("PATH").String()}
	out := describeLong
	show, std := false, false
	for _, f := range fa.flags {
		switch f.name {
		case 'p':
			o.path, std = standardPath, true
		case 'v':
			out, show = describeShort, true
		case 'V':
			out, show = describeLong, true
		}
	}
	if len(fa.rest) == 0 {
		return StatusArgv(0)
	}
	if !show && std {
		return commandRun(ctx, sh, hc, fa.rest)
	}
	if !show {
		return append([]string{"command"}, fa.rest...)
	}
	var b, errs strings.Builder
	found := false
	for _, name := range fa.rest {
		ms := meanings(sh, hc, name, o)
		if len(ms) == 0 {
			if out == describeLong {
				errs.WriteString("command: " + name + ": not found\n")
			}
			continue
		}
		found = true
		describe(sh, &b, name, ms, out)
	}
	hc.Stderr.Write([]byte(errs.String()))
	if !found {
		return wrote(ctx, sh, hc, "command", b.String(), 1)
	}
	return wrote(ctx, sh, hc, "command", b.String(), 0)
}

// commandRun is `command -p NAME ARGS`: NAME runs, functions skipped, a
// program found on standardPath rather than on the session's PATH.
func commandRun(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	name := args[0]
	if b := Lookup(name); b != nil {
		return b(ctx, sh, hc, args)
	}
	if _, ok := sh.ToolKind(name); ok {
		out := slices.Clone(args)
		out[0] = shast.InternalPrefix + name
		return out
	}
	if interp.IsBuiltin(name) {
		return append([]string{"command"}, args...)
	}
	if found := pathFiles(hc.Dir, standardPath, name, false); len(found) > 0 {
		return append([]string{"command", found[0]}, args[1:]...)
	}
	return append([]string{"command"}, args...)
}

// enableCall lists the builtins as bash's enable does (enable, -a, -p);
// turning one off or on is not supported.
func enableCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	fa := parseFlags(args[1:], "ap", "")
	if fa.bad != "" || len(fa.rest) > 0 {
		return refuse(hc, "enable: only lists the builtins (enable, enable -a, enable -p); they cannot be turned off or on")
	}
	var b strings.Builder
	for _, n := range bashBuiltinNames {
		b.WriteString("enable " + n + "\n")
	}
	return wrote(ctx, sh, hc, "enable", b.String(), 0)
}
