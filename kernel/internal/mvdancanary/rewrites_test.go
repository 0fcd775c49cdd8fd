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
	Code:   "kernel/script.go: sessionEnviron",
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
