package bashcompat

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/pattern"
)

// ExtglobCall answers shast.CmdExtglob, which the extglob rewrite puts
// before a statement (docs/mvdan.md, "Extglob"):
//
//	CmdExtglob STATUS VAR glob PATTERN          VAR=(the files PATTERN names)
//	CmdExtglob STATUS VAR OP VALUE PATTERN [STRING]  VAR=${VALUE OP PATTERN [/STRING]}
//
// OP is # ## % %% / // /# or /%. The command keeps STATUS, $? before it,
// as its own, unless set -e is on, where a failing status would end the
// shell.
func ExtglobCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	if len(args) < 5 {
		return StatusArgv(2)
	}
	status, _ := strconv.Atoi(args[1])
	if p := sh.Option(hc, "errexit"); p != nil && *p {
		status = 0
	}
	name, op := args[2], args[3]
	on := func(opt string) bool { p := sh.Option(hc, opt); return p != nil && *p }
	if op == "glob" {
		// Without extglob, bash would not have parsed the word.
		var files []string
		if !on("noglob") {
			files = globFiles(ctx, sh, hc, args[4], on("dotglob"), matchMode{nocase: on("nocaseglob"), ext: true})
		}
		if len(files) == 0 && !on("noglob") && HeldOption(hc.Env, "failglob") {
			fmt.Fprintf(hc.Stderr, "no match: %s\n", unescapePattern(args[4]))
			return []string{"exit", "1"} // a non-interactive bash ends there
		}
		if len(files) == 0 && (!on("nullglob") || on("noglob")) {
			files = []string{unescapePattern(args[4])}
		}
		return assignArgv(sh, hc, []string{assignArray(name, files)}, status)
	}
	if len(args) < 6 {
		return StatusArgv(2)
	}
	value, pat, repl := args[4], args[5], ""
	if len(args) > 6 {
		repl = args[6]
	}
	m := matchMode{nocase: HeldOption(hc.Env, "nocasematch"), ext: on("extglob")}
	return assignArgv(sh, hc, []string{assignScalar(name, patternOp(op, value, pat, repl, m))}, status)
}

// patternOp is ${value OP pat} (OP # ## % %%) or ${value OP pat/repl}
// (OP / // /# /%), as bash computes it with extglob on.
func patternOp(op, value, pat, repl string, m matchMode) string {
	match := func(s string) bool { return extMatch(pat, s, m) }
	switch op {
	case "#":
		for k := 0; k <= len(value); k++ {
			if match(value[:k]) {
				return value[k:]
			}
		}
	case "##":
		for k := len(value); k >= 0; k-- {
			if match(value[:k]) {
				return value[k:]
			}
		}
	case "%":
		for k := len(value); k >= 0; k-- {
			if match(value[k:]) {
				return value[:k]
			}
		}
	case "%%":
		for k := 0; k <= len(value); k++ {
			if match(value[k:]) {
				return value[:k]
			}
		}
	case "/#":
		for k := len(value); k >= 0; k-- {
			if match(value[:k]) {
				return repl + value[k:]
			}
		}
	case "/%":
		for k := 0; k <= len(value); k++ {
			if match(value[k:]) {
				return value[:k] + repl
			}
		}
	case "/", "//":
		if re := replaceRegexp(pat, m); re != nil {
			n := -1
			if op == "/" {
				n = 1
			}
			var b strings.Builder
			last := 0
			for _, loc := range re.FindAllStringIndex(value, n) {
				if loc[0] == loc[1] {
					continue // bash replaces no empty match
				}
				b.WriteString(value[last:loc[0]])
				b.WriteString(repl)
				last = loc[1]
			}
			b.WriteString(value[last:])
			return b.String()
		}
		var b strings.Builder
		i := 0
		for i < len(value) {
			end := -1
			for j := len(value); j > i; j-- {
				if match(value[i:j]) {
					end = j
					break
				}
			}
			if end < 0 {
				b.WriteByte(value[i])
				i++
				continue
			}
			b.WriteString(repl)
			i = end
			if op == "/" {
				b.WriteString(value[i:])
				return b.String()
			}
		}
		return b.String()
	}
	return value
}

// globFiles is what pathname expansion of pattern gives in hc's working
// directory, sorted; nothing when no file matches.
func globFiles(ctx context.Context, sh Shell, hc interp.HandlerContext, pattern string, dotglob bool, m matchMode) []string {
	dirOnly := strings.HasSuffix(pattern, "/")
	comps := strings.Split(strings.TrimRight(pattern, "/"), "/")
	matches := []string{""}
	if strings.HasPrefix(pattern, "/") {
		matches, comps = []string{"/"}, comps[1:]
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(hc.Dir, p)
	}
	join := func(dir, name string) string {
		if dir == "" {
			return name
		}
		if strings.HasSuffix(dir, "/") {
			return dir + name
		}
		return dir + "/" + name
	}
	for i, comp := range comps {
		last := i == len(comps)-1
		var next []string
		for _, dir := range matches {
			if !hasGlobMeta(comp) {
				name := join(dir, unescapePattern(comp))
				if _, err := sh.ReadDir(ctx, abs(name)); err == nil || last && exists(ctx, sh, abs(name)) {
					next = append(next, name)
				}
				continue
			}
			d := dir
			if d == "" {
				d = "."
			}
			entries, err := sh.ReadDir(ctx, abs(d))
			if err != nil {
				continue
			}
			for _, e := range entries {
				n := e.Name()
				if n == "." || n == ".." || n[0] == '.' && !dotglob && !explicitDot(comp) {
					continue
				}
				if !extMatch(comp, n, m) {
					continue
				}
				p := join(dir, n)
				if !last || dirOnly {
					if _, err := sh.ReadDir(ctx, abs(p)); err != nil {
						continue
					}
				}
				next = append(next, p)
			}
		}
		matches = next
	}
	if dirOnly {
		for i := range matches {
			matches[i] += "/"
		}
	}
	slices.Sort(matches)
	return matches
}

// exists reports whether the file name exists: it is an entry of its
// directory.
func exists(ctx context.Context, sh Shell, name string) bool {
	entries, err := sh.ReadDir(ctx, filepath.Dir(name))
	if err != nil {
		return false
	}
	base := filepath.Base(name)
	return slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == base })
}

// explicitDot reports whether a pattern names dotfiles itself: it begins
// with a dot, or with a group (but !(…)) of which a pattern does.
func explicitDot(pat string) bool {
	if strings.HasPrefix(pat, ".") {
		return true
	}
	op, alts, _, ok := extGroup(pat)
	if !ok || op == '!' {
		return false
	}
	return slices.ContainsFunc(alts, explicitDot)
}

func hasGlobMeta(pat string) bool {
	return strings.ContainsAny(pat, "*?[") || hasExtGroupIn(pat)
}

func hasExtGroupIn(pat string) bool {
	for i := 0; i+1 < len(pat); i++ {
		if pat[i+1] == '(' && strings.IndexByte("?*+@!", pat[i]) >= 0 {
			return true
		}
	}
	return false
}

// unescapePattern is pat with the backslashes that quote a character
// taken out: the word as bash leaves it when nothing matches.
func unescapePattern(pat string) string {
	if !strings.Contains(pat, `\`) {
		return pat
	}
	var b strings.Builder
	for i := 0; i < len(pat); i++ {
		if pat[i] == '\\' && i+1 < len(pat) {
			i++
		}
		b.WriteByte(pat[i])
	}
	return b.String()
}

// GlobArgs expands the arguments of shast.CmdGlobCall that begin with
// marker (rewrite.GlobMarker): each pattern becomes the files it names,
// as bash's pathname expansion gives them, or stays as written, or goes
// (shopt nullglob). ok is false, the line said on stderr, when shopt
// failglob is on and a pattern names no file: a non-interactive bash then
// runs nothing more and its shell (or subshell) exits with status 1.
func GlobArgs(ctx context.Context, sh Shell, hc interp.HandlerContext, marker string, args []string) (out []string, ok bool) {
	on := func(opt string) bool { p := sh.Option(hc, opt); return p != nil && *p }
	out = make([]string, 0, len(args))
	for _, a := range args {
		pat, marked := strings.CutPrefix(a, marker)
		if !marked {
			out = append(out, a)
			continue
		}
		if on("noglob") {
			out = append(out, unescapePattern(pat))
			continue
		}
		files := globFiles(ctx, sh, hc, pat, on("dotglob"), matchMode{nocase: on("nocaseglob"), ext: on("extglob")})
		switch {
		case len(files) > 0:
			out = append(out, files...)
		case HeldOption(hc.Env, "failglob"):
			fmt.Fprintf(hc.Stderr, "no match: %s\n", unescapePattern(pat))
			return nil, false
		case !on("nullglob"):
			out = append(out, unescapePattern(pat))
		}
	}
	return out, true
}

// replaceRegexp is pat as a leftmost-longest regexp, for the replacements,
// which backtracking would make cubic in the value's length; nil when
// mvdan/sh's translation does not take pat (a !(…) group).
func replaceRegexp(pat string, m matchMode) *regexp.Regexp {
	var mode pattern.Mode
	if m.ext {
		mode |= pattern.ExtendedOperators
	}
	if m.nocase {
		mode |= pattern.NoGlobCase
	}
	expr, err := pattern.Regexp(pat, mode)
	if err != nil {
		return nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil
	}
	re.Longest()
	return re
}
