package mvdancanary

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// rewriteCanaries justify the rewrites of a script before its run.
var rewriteCanaries = []canary{{
	Name:   "for-loop-status",
	Bug:    "a for (( )) loop ends after an iteration whose body failed",
	Gap:    "for-loop-status",
	Code:   "kernel/internal/rewrite/loop.go: loopRewrite",
	Script: `for ((i = 0; i < 3; i++)); do [[ $i == 1 ]] && echo one; done; echo "status $?"`,
	Bash:   "one\nstatus 1\n",
	Mvdan:  "status 1\n",
}, {
	Name:   "break-in-nested-list",
	Bug:    "after a break in a list nested in a loop's body, the rest of that list runs",
	Gap:    "break-in-nested-list",
	Code:   "kernel/internal/rewrite/exits.go: guardLoopExits",
	Script: `for x in a stop b; do if true; then [ "$x" = stop ] && break; echo "$x"; fi; done`,
	Bash:   "a\n",
	Mvdan:  "a\nstop\n",
}, {
	Name:   "regex-quoted-part",
	Bug:    "a quoted part of a [[ =~ ]] regex is a regex",
	Gap:    "regex-quoted-part",
	Code:   "kernel/internal/rewrite/regex.go: quoteRegexLiterals",
	Script: `[[ abc =~ "a.c" ]] && echo regex || echo literal`,
	Bash:   "literal\n",
	Mvdan:  "regex\n",
}, {
	Name:   "assignment-backslash",
	Bug:    "an assignment's value keeps its quoting backslashes",
	Gap:    "assignment-backslash",
	Code:   "kernel/internal/rewrite/assign.go: unescapeAssignValue",
	Script: `x=a\ b; echo "$x"`,
	Bash:   "a b\n",
	Mvdan:  "a\\ b\n",
}, {
	Name:   "arith-division-by-zero",
	Bug:    "a division by zero in $(( )) does not end the shell",
	Gap:    "arith-expansion-errors",
	Code:   "kernel/internal/rewrite/arith.go: guardExpr",
	Script: `echo $((1 / 0)); echo after`,
	Bash:   "[exit 1]",
	Mvdan:  "after\n",
}, {
	Name:   "arith-negative-exponent",
	Bug:    "a negative exponent in $(( )) does not end the shell",
	Gap:    "arith-expansion-errors",
	Code:   "kernel/internal/rewrite/arith.go: guardOperand",
	Script: `echo $((2 ** -1)); echo after`,
	Bash:   "[exit 1]",
	Mvdan:  "after\n",
}, {
	Name:   "arith-bad-constant",
	Bug:    "an invalid constant such as 09 in $(( )) is 0",
	Gap:    "arith-expansion-errors",
	Code:   "kernel/internal/rewrite/arith.go: badConstant",
	Script: `echo $((09)); echo after`,
	Bash:   "[exit 1]",
	Mvdan:  "0\nafter\n",
}, {
	Name:   "let-quoted-expression",
	Bug:    "let reads a quoted expression as one word",
	Gap:    "let-quoted-expression",
	Code:   "kernel/internal/rewrite/arith.go: quotedArithm",
	Script: `let 'a = 3 * 4'; echo "a=$a"`,
	Bash:   "a=12\n",
	Mvdan:  "a=\n",
}, {
	Name:   "test-integer-operands",
	Bug:    "the operands of [[ -eq ]] are not arithmetic",
	Gap:    "test-integer-operands",
	Code:   "kernel/internal/rewrite/arith.go: arithOperand",
	Script: `x=4 n=x; [[ x+1 -eq 5 ]] && echo sum; [[ $n -eq 4 ]] && echo name; :`,
	Bash:   "sum\nname\n",
	Mvdan:  "",
}, {
	Name:   "bang-is-no-pid",
	Bug:    "$! is a name such as g1, not a pid",
	Gap:    "background-pid",
	Code:   "kernel/internal/rewrite/background.go: renameBang",
	Script: `true & case $! in *[!0-9]*) echo "$!" ;; *) echo pid ;; esac; wait`,
	Bash:   "pid\n",
	Mvdan:  "g1\n",
}, {
	Name:   "descriptor-above-two",
	Bug:    "a redirection of a descriptor above 2 fails",
	Gap:    "descriptors",
	Code:   "kernel/internal/rewrite/redirect.go: rewriteRedirs",
	Script: `exec 3>f; echo x >&3; exec 3>&-; cat f`,
	Bash:   "x\n",
	Mvdan:  "[exit 1]",
}, {
	Name:   "descriptor-close",
	Bug:    ">&- writes to nowhere instead of closing stdout",
	Gap:    "descriptors",
	Code:   "kernel/fdopen.go: Session.fdPull",
	Script: `echo x >&-; echo "status $?"`,
	Bash:   "status 1\n",
	Mvdan:  "status 0\n",
}, {
	Name:   "noclobber",
	Bug:    "set -C is ignored: > overwrites a file",
	Gap:    "noclobber",
	Code:   "kernel/fdopen.go: Session.clobbers",
	Script: `echo 1 > f; set -C; echo 2 > f; cat f`,
	Bash:   "1\n",
	Mvdan:  "2\n",
}, {
	Name:   "clobber-operator",
	Bug:    ">| is refused",
	Gap:    "open-modes",
	Code:   "kernel/internal/rewrite/redirect.go: markRedirect",
	Script: `echo hi >| f; cat f`,
	Bash:   "hi\n",
	Mvdan:  "[exit 1]",
}, {
	Name:   "read-write-redirection",
	Bug:    "<> is refused",
	Gap:    "open-modes",
	Code:   "kernel/internal/rewrite/redirect.go: markRedirect",
	Script: `echo hi > f; cat <> f`,
	Bash:   "hi\n",
	Mvdan:  "[exit 1]",
}, {
	Name:   "read-file-substitution",
	Bug:    "$(< FILE) glues a path of several parts to the file's content",
	Gap:    "read-file-substitution",
	Code:   "kernel/internal/rewrite/expansion.go: rewriteExpansion",
	Files:  map[string]string{"f": "x"},
	Script: `d=.; echo "$(< "$d/f")"`,
	Bash:   "x\n",
	Mvdan:  "./fx\n",
}, {
	Name:   "exit-trap-status",
	Bug:    "exit in an EXIT trap does not set the shell's status",
	Gap:    "exit-trap-status",
	Code:   "kernel/script.go: Session.endTraps",
	Script: `trap 'exit 3' EXIT; true`,
	Bash:   "[exit 3]",
	Mvdan:  "",
}, {
	Name:   "bash-source",
	Bug:    "BASH_SOURCE is never set",
	Gap:    "bash-source",
	Code:   "kernel/callstack.go: Session.sourceCall",
	Files:  map[string]string{"lib.sh": `echo "source ${BASH_SOURCE[0]-unset}"`},
	Script: `. ./lib.sh`,
	Bash:   "source ./lib.sh\n",
	Mvdan:  "source unset\n",
}, {
	Name:   "process-substitution-pid",
	Bug:    "a process substitution's $! is a name such as g1, not a pid",
	Gap:    "process-substitution-pid",
	Code:   "kernel/internal/rewrite/procsubst.go: markProcSubsts",
	Script: `cat <(exit 3) >/dev/null; case $! in *[!0-9]*|"") echo name ;; *) echo pid ;; esac`,
	Bash:   "pid\n",
	Mvdan:  "name\n",
}, {
	Name:   "process-substitution-unopened",
	Bug:    "a process substitution whose FIFO nothing opens waits for ever, and wait with it",
	Gap:    "process-substitution-unopened",
	Code:   "kernel/procsubst.go: unblockProcSubsts",
	Script: `p=<(true); [ -p "$p" ] && echo waiting || echo gone`,
	Bash:   "gone\n",
	Mvdan:  "waiting\n",
}, {
	Name:   "coproc",
	Bug:    "coproc is an unhandled command node",
	Gap:    "coproc",
	Code:   "kernel/internal/rewrite/refuse.go: refuseCoproc",
	Script: `coproc cat 2>/dev/null; echo "after $?"`,
	Bash:   "after 0\n",
	Mvdan:  "after 1\n",
}, {
	Name:  "process-substitution-stdout",
	Bug:   "a process substitution writes to the stdout the runner had at its first Reset",
	Gap:   "process-substitution-stdout",
	Code:  "kernel/script.go: origWriter",
	run:   runProcSubst,
	Bash:  "first: \"\" later: \"x\\n\"\n",
	Mvdan: "first: \"x\\n\" later: \"\"\n",
}, {
	Name:  "declaration-call-handler",
	Bug:   "declare, export, readonly and local never reach the call handler",
	Gap:   "declaration-call-handler",
	Code:  "kernel/internal/rewrite/decl.go: rewriteDeclQuery",
	run:   runDeclHandler,
	Bash:  "declare export readonly true\n",
	Mvdan: "true\n",
}, {
	Name:   "declaration-prefix",
	Bug:    "a declaration builtin after a prefix assignment declares nothing",
	Gap:    "declaration-prefix",
	Code:   "kernel/internal/rewrite/decl.go: rewriteDeclPrefix",
	Script: `t=foo declare -r t 2>/dev/null; echo "status $? [$t]"`,
	Bash:   "status 0 [foo]\n",
	Mvdan:  "status 2 []\n",
}, {
	Name:   "local-without-value",
	Bug:    "local without a value copies the value it hides",
	Gap:    "local-without-value",
	Code:   "kernel/internal/rewrite/decl.go: rewriteLocalNames",
	Script: `x=1; f() { local x; echo "[${x-unset}]"; }; f`,
	Bash:   "[unset]\n",
	Mvdan:  "[1]\n",
}, {
	Name:   "declare-attributes",
	Bug:    "declare refuses -i, -l and -u",
	Gap:    "declare-attributes",
	Code:   "kernel/internal/rewrite/declattr.go: rewriteDeclAttrs",
	Script: `declare -i n=3+4 2>/dev/null; declare -l l=AB 2>/dev/null; echo "[$n][$l]"`,
	Bash:   "[7][ab]\n",
	Mvdan:  "[][]\n",
}, {
	Name:   "declare-combined-flags",
	Bug:    "a declaration clause takes the first letter of combined flags (-rx) and drops the rest",
	Gap:    "declare-combined-flags",
	Code:   "kernel/internal/rewrite/decl.go: splitDeclFlags",
	Script: `declare -rx y=2; declare -p y`,
	Bash:   "declare -rx y=\"2\"\n",
	Mvdan:  "declare -r y=\"2\"\n",
}, {
	Name:   "declare-attribute-listing",
	Bug:    "declare -r and declare -x with no name list nothing",
	Gap:    "declare-combined-flags",
	Code:   "kernel/internal/rewrite/decl.go: rewriteDeclList",
	Script: `declare -r R=1; declare -r | grep -c ' R='`,
	Bash:   "1\n",
	Mvdan:  "0\n[exit 1]",
}, {
	Name:   "readonly-assignment",
	Bug:    "an assignment to a readonly variable fails and the script goes on",
	Gap:    "readonly-assignment",
	Code:   "kernel/internal/rewrite/readonly.go: guardReadonlyAssigns",
	Script: `readonly x=1; x=2 2>/dev/null; echo "after $x"`,
	Bash:   "[exit 1]",
	Mvdan:  "after 1\n",
}, {
	Name:   "declaration-order",
	Bug:    "a declaration clause assigns each operand before it expands the next",
	Gap:    "declaration-order",
	Code:   "kernel/internal/rewrite/decl.go: rewriteDeclOrder",
	Script: `f() { local a=1 b=$a; echo "[$a][$b]"; }; f`,
	Bash:   "[1][]\n",
	Mvdan:  "[1][1]\n",
}, {
	Name:   "errexit-in-substitution",
	Bug:    "a command substitution keeps set -e",
	Gap:    "errexit-in-substitutions",
	Code:   "kernel/internal/rewrite/errexit.go: SubstErrexit",
	Script: `set -e; x=$(false; echo still); echo "[$x]"`,
	Bash:   "[still]\n",
	Mvdan:  "[exit 1]",
}, {
	Name:   "tilde-after-colon",
	Bug:    "a ~ after a colon in an assignment's value is not expanded",
	Gap:    "tilde-prefixes",
	Code:   "kernel/internal/rewrite/tilde.go: afterColons",
	Script: `HOME=/h; x=a:~/b; echo "$x"`,
	Bash:   "a:/h/b\n",
	Mvdan:  "a:~/b\n",
}, {
	Name:   "tilde-plus-minus",
	Bug:    "~+ and ~- are not expanded",
	Gap:    "tilde-prefixes",
	Code:   "kernel/internal/rewrite/tilde.go: dirPrefix",
	Script: `cd /; echo ~+`,
	Bash:   "/\n",
	Mvdan:  "~+\n",
}, {
	Name:   "tilde-in-quoted-default",
	Bug:    "the ~ of a default inside double quotes is expanded",
	Gap:    "tilde-prefixes",
	Code:   "kernel/internal/rewrite/tilde.go: quoteLeadingTilde",
	Script: `HOME=/h; unset v; echo "${v:-~}"`,
	Bash:   "~\n",
	Mvdan:  "/h\n",
}, {
	Name:   "ansi-c-escapes",
	Bug:    "$'...' leaves \\x{...} and \\cX as written",
	Gap:    "ansi-c-escapes",
	Code:   "kernel/internal/rewrite/ansic.go: decodeANSIC",
	Script: `x=$'\x{41}'; y=$'\cA'; echo "${#x} $x ${#y}"`,
	Bash:   "1 A 1\n",
	Mvdan:  "6 \\x{41} 3\n",
}, {
	Name:   "extglob-no-wildcard",
	Bug:    "a word with an extglob group but no *, ? or [ is not a pathname pattern",
	Gap:    "extglob",
	Code:   "kernel/internal/rewrite/extglob.go: extglobStmt",
	Files:  map[string]string{"a.log": "", "b.log": ""},
	Script: "shopt -s extglob\necho @(a|b).log",
	Bash:   "a.log b.log\n",
	Mvdan:  "@(a|b).log\n",
}, {
	Name:   "extglob-negation-dotfiles",
	Bug:    "!(...) matches files whose names begin with a dot",
	Gap:    "extglob",
	Code:   "kernel/internal/bashcompat/extglob.go: globFiles",
	Files:  map[string]string{".hidden": "", "a.txt": "", "b.log": ""},
	Script: "shopt -s extglob\necho !(*.txt)",
	Bash:   "b.log\n",
	Mvdan:  ".hidden b.log\n",
}, {
	Name:   "extglob-parameter-pattern",
	Bug:    "${v##pattern} and ${v//pattern/s} do not know extglob groups",
	Gap:    "extglob",
	Code:   "kernel/internal/bashcompat/extglob.go: patternOp",
	Script: "shopt -s extglob\nv=aaab; echo ${v##+(a)} ${v//@(a|b)/x}",
	Bash:   "b xxxx\n",
	Mvdan:  "aaab aaab\n",
}, {
	Name:   "nocasematch",
	Bug:    "shopt has no nocasematch: [[ == ]] and case match letters with their case",
	Gap:    "nocasematch",
	Code:   "kernel/internal/rewrite/nocase.go: NoCaseMatch",
	Script: "shopt -s nocasematch 2>/dev/null; [[ ABC == abc ]] && echo dbl; case X in x) echo case;; esac; echo end",
	Bash:   "dbl\ncase\nend\n",
	Mvdan:  "end\n",
}, {
	Name:   "failglob",
	Bug:    "shopt has no failglob: a pattern that names no file stays as written",
	Gap:    "failglob",
	Code:   "kernel/internal/rewrite/failglob.go: FailGlob",
	Script: "shopt -s failglob 2>/dev/null\necho *.none; echo after",
	Bash:   "[exit 1]",
	Mvdan:  "*.none\nafter\n",
}, {
	Name:   "option-variables",
	Bug:    "SHELLOPTS and BASHOPTS are unset",
	Gap:    "option-variables",
	Code:   "kernel/internal/rewrite/expansion.go: rewriteOptionVars",
	Script: `set -e; echo "[$SHELLOPTS]"`,
	Bash:   "[braceexpand:errexit:hashall:interactive-comments]\n",
	Mvdan:  "[]\n",
}, {
	Name:   "call-stack",
	Bug:    "FUNCNAME, BASH_SOURCE and BASH_LINENO are never set",
	Gap:    "call-stack",
	Code:   "kernel/callstack.go: Session.stackCall",
	Script: `f() { echo "${FUNCNAME[0]} ${BASH_SOURCE[0]} ${BASH_LINENO[0]}"; }; f`,
	Bash:   "f environment 1\n",
	Mvdan:  "  \n",
}, {
	Name:   "pipestatus",
	Bug:    "PIPESTATUS is never set",
	Gap:    "pipestatus",
	Code:   "kernel/internal/rewrite/pipestatus.go: notePipelines",
	Script: `false | true; echo "${PIPESTATUS[@]}"`,
	Bash:   "1 0\n",
	Mvdan:  "\n",
}, {
	Name:   "dollar-dash",
	Bug:    "$- holds mvdan/sh's flags alone, sorted",
	Gap:    "special-parameters",
	Code:   "kernel/internal/rewrite/special.go: rewriteFlagsParts",
	Script: `set -e; echo "$-"`,
	Bash:   "ehBc\n",
	Mvdan:  "e\n",
}, {
	Name:   "positional-beyond-nine",
	Bug:    "${10} and beyond expand to nothing",
	Gap:    "special-parameters",
	Code:   "kernel/internal/rewrite/special.go: rewritePositional",
	Script: `set -- 1 2 3 4 5 6 7 8 9 ten; echo "[${10}]"`,
	Bash:   "[ten]\n",
	Mvdan:  "[]\n",
}, {
	Name:   "random-seed",
	Bug:    "RANDOM=N seeds a generator other than bash's",
	Gap:    "special-parameters",
	Code:   "kernel/internal/rewrite/special.go: reseedRandom",
	Script: `RANDOM=42; echo $RANDOM`,
	Bash:   "17772\n",
	Mvdan:  "12322\n",
}, {
	Name:   "subshell-variables",
	Bug:    "BASHPID and BASH_SUBSHELL are never set",
	Gap:    "shell-variables",
	Code:   "kernel/internal/rewrite/special.go: markSubshells",
	Script: `echo "[$BASH_SUBSHELL]"; ( echo "[$BASH_SUBSHELL]" )`,
	Bash:   "[0]\n[1]\n",
	Mvdan:  "[]\n[]\n",
}, {
	Name:   "glued-parameters",
	Bug:    "\"x$@y\" is one word",
	Gap:    "glued-parameters",
	Code:   "kernel/internal/rewrite/glue.go: glueWords",
	Script: `set -- a b; printf '[%s]\n' "x$@y"`,
	Bash:   "[xa]\n[by]\n",
	Mvdan:  "[xa by]\n",
}, {
	Name:   "subshell-array-append",
	Bug:    "name+=value in a subshell appends to the first element of the parent's array",
	Gap:    "subshell-array-append",
	Code:   "kernel/special.go: ownArrays",
	Script: `a=(a b); (a+=X); echo "${a[@]}"`,
	Bash:   "a b\n",
	Mvdan:  "aX b\n",
}}

// syncBuffer is a writer that pipeline stages and a process
// substitution's goroutine may share.
type syncBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes []string
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writes = append(b.writes, string(p))
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// bareRunner is a runner of bare mvdan/sh in dir, with PATH and HOME.
func bareRunner(t *testing.T, dir string, opts ...interp.RunnerOption) *interp.Runner {
	env := interp.Env(expand.ListEnviron(canary{}.env(dir)...))
	r, err := interp.New(append([]interp.RunnerOption{env, interp.Dir(dir)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func runScript(t *testing.T, r *interp.Runner, src string) {
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "script")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	r.Run(ctx, f)
}

// runProcSubst gives the runner a new stdout after its first Reset, as
// a session does for each call, and sees where >(cat) writes.
func runProcSubst(t *testing.T, _ canary, dir string) string {
	var first, later syncBuffer
	r := bareRunner(t, dir, interp.StdIO(nil, &first, &first))
	r.Reset()
	interp.StdIO(nil, &later, &later)(r)
	runScript(t, r, "echo x > >(cat); wait")
	return "first: " + quote(first.String()) + " later: " + quote(later.String()) + "\n"
}

// runDeclHandler lists the commands the call handler sees.
func runDeclHandler(t *testing.T, _ canary, dir string) string {
	var seen []string
	var out syncBuffer
	r := bareRunner(t, dir, interp.StdIO(nil, &out, &out), interp.CallHandler(func(ctx context.Context, args []string) ([]string, error) {
		seen = append(seen, args[0])
		return args, nil
	}))
	runScript(t, r, "declare -p PATH >/dev/null; export -p >/dev/null; readonly -p >/dev/null; true")
	return strings.Join(seen, " ") + "\n"
}
