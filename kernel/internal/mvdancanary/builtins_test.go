package mvdancanary

import (
	"os"
	"strconv"
	"testing"

	"mvdan.cc/sh/v3/interp"
)

// builtinCanaries justify the builtins shelter answers in place of
// mvdan/sh's.
var builtinCanaries = []canary{{
	Name:   "printf-precision",
	Bug:    "printf has no precision",
	Gap:    "printf-formats",
	Code:   "kernel/internal/bashfmt/printf.go: Printf",
	Script: `printf '%.2s|\n' abc; echo "status $?"`,
	Bash:   "ab|\nstatus 0\n",
	Mvdan:  "status 1\n",
}, {
	Name:   "printf-star-width",
	Bug:    "printf takes no * width",
	Gap:    "printf-formats",
	Code:   "kernel/internal/bashfmt/printf.go: Printf",
	Script: `printf '%*d|\n' 3 7; echo "status $?"`,
	Bash:   "  7|\nstatus 0\n",
	Mvdan:  "status 1\n",
}, {
	Name:   "printf-float",
	Bug:    "printf has no %f, %e or %g",
	Gap:    "printf-formats",
	Code:   "kernel/internal/bashfmt/printf.go: Printf",
	Script: `printf '%f %e %g\n' 1 1 0.5; echo "status $?"`,
	Bash:   "1.000000 1.000000e+00 0.5\nstatus 0\n",
	Mvdan:  "status 1\n",
}, {
	Name:   "printf-quote",
	Bug:    "printf has no %q",
	Gap:    "printf-formats",
	Code:   "kernel/internal/bashfmt/quote.go: quote",
	Script: `printf '%q\n' 'a b'; echo "status $?"`,
	Bash:   "a\\ b\nstatus 0\n",
	Mvdan:  "status 1\n",
}, {
	Name:   "printf-time",
	Bug:    "printf has no %(fmt)T",
	Gap:    "printf-formats",
	Code:   "kernel/internal/bashfmt/strftime.go: strftime",
	Script: `printf '%(%Y)T\n' 86400; echo "status $?"`,
	Bash:   "1970\nstatus 0\n",
	Mvdan:  "status 1\n",
}, {
	Name:   "printf-assign",
	Bug:    "printf has no -v",
	Gap:    "printf-formats",
	Code:   "kernel/internal/bashcompat/printf.go: printfCall",
	Script: `printf -v v %s hi; echo "v=$v"`,
	Bash:   "v=hi\n",
	Mvdan:  "-vv=\n",
}, {
	Name:   "read-delimiter",
	Bug:    "read has no -d",
	Gap:    "read-flags",
	Code:   "kernel/internal/bashcompat/read.go: readCall",
	Script: `read -d , x <<< a,b; echo "x=$x"`,
	Bash:   "x=a\n",
	Mvdan:  "x=\n",
}, {
	Name:   "read-count",
	Bug:    "read has no -n or -N",
	Gap:    "read-flags",
	Code:   "kernel/internal/bashcompat/read.go: readCall",
	Script: `read -n 2 x <<< abcd; read -N 3 y <<< abcd; echo "x=$x y=$y"`,
	Bash:   "x=ab y=abc\n",
	Mvdan:  "x= y=\n",
}, {
	Name:   "read-timeout",
	Bug:    "read has no -t",
	Gap:    "read-flags",
	Code:   "kernel/internal/bashcompat/read.go: readCall",
	Script: `read -t 5 x <<< ab; echo "x=$x"`,
	Bash:   "x=ab\n",
	Mvdan:  "x=\n",
}, {
	Name:   "read-descriptor",
	Bug:    "read has no -u",
	Gap:    "read-flags",
	Code:   "kernel/internal/bashcompat/read.go: readCall",
	Script: `read -u 0 x <<< ab; echo "x=$x"`,
	Bash:   "x=ab\n",
	Mvdan:  "x=\n",
}, {
	Name:   "read-prompt",
	Bug:    "read -p prints its prompt when the input is no terminal",
	Gap:    "read-flags",
	Code:   "kernel/internal/bashcompat/read.go: readCall",
	Script: `read -p 'p> ' x <<< ab 2>&1; echo "x=$x"`,
	Bash:   "x=ab\n",
	Mvdan:  "p> x=ab\n",
}, {
	Name:   "mapfile-skip-count",
	Bug:    "mapfile has no -s or -n",
	Gap:    "mapfile-flags",
	Code:   "kernel/internal/bashcompat/mapfile.go: mapfileCall",
	Script: `mapfile -s 1 -n 1 -t a <<< $'x\ny\nz'; echo "${a[*]}"`,
	Bash:   "y\n",
	Mvdan:  "\n",
}, {
	Name:   "mapfile-origin",
	Bug:    "mapfile has no -O",
	Gap:    "mapfile-flags",
	Code:   "kernel/internal/bashcompat/mapfile.go: mapfileCall",
	Script: `a=(p q); mapfile -O 2 -t a <<< x; echo "${a[*]}"`,
	Bash:   "p q x\n",
	Mvdan:  "p q\n",
}, {
	Name:   "echo-flag-word",
	Bug:    "echo takes no word of several flags such as -neE",
	Gap:    "echo-escapes",
	Code:   "kernel/internal/bashfmt/echo.go: AppendEcho",
	Script: `echo -neE 'a\tb'; echo`,
	Bash:   "a\\tb\n",
	Mvdan:  "-neE a\\tb\n\n",
}, {
	Name:   "echo-octal",
	Bug:    "echo -e reads \\0101 as \\010 and a 1",
	Gap:    "echo-escapes",
	Code:   "kernel/internal/bashfmt/escape.go: expandEscapes",
	Script: `echo -e 'a\0101'`,
	Bash:   "aA\n",
	Mvdan:  "a\b1\n",
}, {
	Name:   "echo-stop",
	Bug:    "echo -e does not stop at \\c",
	Gap:    "echo-escapes",
	Code:   "kernel/internal/bashfmt/echo.go: AppendEcho",
	Script: `echo -e 'a\cb'; echo`,
	Bash:   "a\n",
	Mvdan:  "a\\cb\n\n",
}, {
	Name:  "echo-in-pieces",
	Bug:   "echo writes a line in several pieces",
	Gap:   "echo-in-pieces",
	Code:  "kernel/internal/bashcompat/echo.go: echoCall",
	run:   runEchoWrites,
	Bash:  "[\"a b c\\n\"]\n",
	Mvdan: "[\"a\" \" \" \"b\" \" \" \"c\" \"\\n\"]\n",
}, {
	Name:  "builtin-broken-pipe",
	Bug:   "a builtin that writes to a closed pipe succeeds",
	Gap:   "builtin-broken-pipe",
	Code:  "kernel/internal/bashcompat/write.go: writeOut",
	run:   runBrokenPipe,
	Bash:  "echo 1 printf 1\n",
	Mvdan: "echo 0 printf 0\n",
}, {
	Name:   "cd-physical",
	Bug:    "cd has no -P or -L",
	Gap:    "cd-flags",
	Code:   "kernel/internal/bashcompat/dirs.go: cdCall",
	Script: `cd -P / 2>/dev/null; echo "status $?"`,
	Bash:   "status 0\n",
	Mvdan:  "status 2\n",
}, {
	Name:   "cd-empty",
	Bug:    "cd '' fails",
	Gap:    "cd-flags",
	Code:   "kernel/internal/bashcompat/dirs.go: cdCall",
	Script: `cd '' 2>/dev/null; echo "status $?"`,
	Bash:   "status 0\n",
	Mvdan:  "status 1\n",
}, {
	Name:   "dirstack-after-cd",
	Bug:    "${DIRSTACK[0]} does not follow cd",
	Gap:    "directory-stack",
	Code:   "kernel/internal/shast/internal.go: DirStackVar",
	Script: `cd /; [[ ${DIRSTACK[0]} == / ]] && echo follows || echo stale`,
	Bash:   "follows\n",
	Mvdan:  "stale\n",
}, {
	Name:   "dirs-verbose",
	Bug:    "dirs has no -v",
	Gap:    "directory-stack",
	Code:   "kernel/internal/bashcompat/dirs.go: dirsCall",
	Script: `pushd /usr >/dev/null; pushd / >/dev/null; x=$(dirs -v); echo "${x//$HOME/HOME}"`,
	Bash:   " 0  /\n 1  /usr\n 2  ~\n",
	Mvdan:  "/ /usr HOME\n",
}, {
	Name:   "pushd-rotate",
	Bug:    "pushd takes no +N",
	Gap:    "directory-stack",
	Code:   "kernel/internal/bashcompat/dirs.go: pushdCall",
	Script: `pushd /usr >/dev/null; pushd / >/dev/null; pushd +1 >/dev/null 2>&1; pwd`,
	Bash:   "/usr\n",
	Mvdan:  "/\n",
}, {
	Name:   "popd-index",
	Bug:    "popd takes no +N",
	Gap:    "directory-stack",
	Code:   "kernel/internal/bashcompat/dirs.go: popdCall",
	Script: `pushd /usr >/dev/null; pushd / >/dev/null; popd +1 >/dev/null 2>&1; x=$(dirs); echo "${x//$HOME/HOME}"`,
	Bash:   "/ ~\n",
	Mvdan:  "/ /usr HOME\n",
}, {
	Name:   "umask",
	Bug:    "umask is an unsupported builtin",
	Gap:    "unsupported-builtins",
	Code:   "kernel/internal/bashcompat/umask.go: umaskCall",
	Script: `umask 027 2>&1; umask`,
	Bash:   "0027\n",
	Mvdan:  "umask: unsupported builtin\n[exit 2]",
}, {
	Name:   "ulimit",
	Bug:    "ulimit is an unsupported builtin",
	Gap:    "unsupported-builtins",
	Code:   "kernel/internal/bashcompat/ulimit.go: ulimitCall",
	Script: `ulimit -n 256 2>&1; ulimit -n`,
	Bash:   "256\n",
	Mvdan:  "ulimit: unsupported builtin\n[exit 2]",
}, {
	Name:   "job-builtins",
	Bug:    "kill and jobs are unsupported builtins that no exec handler sees",
	Gap:    "unsupported-builtins",
	Code:   "kernel/exec.go: Session.callHandler",
	Script: `kill -l 9 2>&1; jobs 2>&1; echo "status $?"`,
	Bash:   "KILL\nstatus 0\n",
	Mvdan:  "kill: unsupported builtin\njobs: unsupported builtin\nstatus 2\n",
}, {
	Name:   "enable",
	Bug:    "enable is an unsupported builtin",
	Gap:    "unsupported-builtins",
	Code:   "kernel/internal/bashcompat/type.go: enableCall",
	Script: `enable 2>&1 | head -n 1`,
	Bash:   "enable .\n",
	Mvdan:  "enable: unsupported builtin\n",
}, {
	Name:   "trap-signal",
	Bug:    "trap refuses every condition but EXIT and ERR",
	Gap:    "trap",
	Code:   "kernel/internal/bashcompat/traps.go: trapBuiltin",
	Script: `trap 'echo usr1' USR1 2>/dev/null; echo "status $?"`,
	Bash:   "status 0\n",
	Mvdan:  "status 2\n",
}, {
	Name:   "trap-number",
	Bug:    "trap takes no signal number, not even 0 for EXIT",
	Gap:    "trap",
	Code:   "kernel/internal/bashcompat/traps.go: trapBuiltin",
	Script: `trap 'echo bye' 0 2>/dev/null; echo "status $?"`,
	Bash:   "status 0\nbye\n",
	Mvdan:  "status 2\n",
}, {
	Name:   "trap-print",
	Bug:    "trap has no -p",
	Gap:    "trap",
	Code:   "kernel/internal/bashcompat/traps.go: listTraps",
	Script: `trap 'echo e' EXIT; trap -p EXIT 2>/dev/null; echo "status $?"`,
	Bash:   "trap -- 'echo e' EXIT\nstatus 0\ne\n",
	Mvdan:  "status 2\ne\n",
}, {
	Name:   "trap-list-quoting",
	Bug:    "trap lists an action in Go's quoting",
	Gap:    "trap",
	Code:   "kernel/internal/bashcompat/traps.go: trapLine",
	Script: `trap 'echo "x"' ERR; trap`,
	Bash:   "trap -- 'echo \"x\"' ERR\n",
	Mvdan:  "trap -- \"echo \\\"x\\\"\" ERR\n",
}, {
	Name:   "shift-past-end",
	Bug:    "shift past the last parameter succeeds",
	Gap:    "control-statuses",
	Code:   "kernel/internal/bashcompat/control.go: shiftBuiltin",
	Script: `set -- a; shift 3; echo "status $? left $#"`,
	Bash:   "status 1 left 1\n",
	Mvdan:  "status 0 left 0\n",
}, {
	Name:   "return-last-status",
	Bug:    "a bare return returns 0, not the last command's status",
	Gap:    "control-statuses",
	Code:   "kernel/internal/bashcompat/control.go: returnBuiltin",
	Script: `f() { false; return; }; f; echo "status $?"`,
	Bash:   "status 1\n",
	Mvdan:  "status 0\n",
}, {
	Name:   "return-outside-function",
	Bug:    "return outside a function fails with 1, not 2",
	Gap:    "control-statuses",
	Code:   "kernel/internal/bashcompat/control.go: returnBuiltin",
	Script: `return 2>/dev/null; echo "status $?"`,
	Bash:   "status 2\n",
	Mvdan:  "status 1\n",
}, {
	Name:   "eval-parse-error",
	Bug:    "eval of text that does not parse fails with 1, not 2",
	Gap:    "control-statuses",
	Code:   "kernel/internal/bashcompat/control.go: evalBuiltin",
	Script: `eval 'if' 2>/dev/null; echo "status $?"`,
	Bash:   "status 2\n",
	Mvdan:  "status 1\n",
}, {
	Name:   "declare-functions",
	Bug:    "declare has no -F",
	Gap:    "declare-listings",
	Code:   "kernel/internal/bashcompat/declare.go: declareCall",
	Script: `f() { :; }; declare -F 2>/dev/null; echo "status $?"`,
	Bash:   "declare -f f\nstatus 0\n",
	Mvdan:  "status 2\n",
}, {
	Name:   "declare-print-quoting",
	Bug:    "declare -p leaves $ unescaped in double quotes",
	Gap:    "declare-listings",
	Code:   "kernel/internal/bashcompat/declare.go: declareLine",
	Script: `v='a "q" $b'; declare -p v`,
	Bash:   "declare -- v=\"a \\\"q\\\" \\$b\"\n",
	Mvdan:  "declare -- v=\"a \\\"q\\\" $b\"\n",
}, {
	Name:   "export-print",
	Bug:    "export -p lists nothing",
	Gap:    "declare-listings",
	Code:   "kernel/internal/bashcompat/declare.go: exportCall",
	Script: `export V=1; export -p | grep -x 'declare -x V="1"' || echo missing`,
	Bash:   "declare -x V=\"1\"\n",
	Mvdan:  "missing\n",
}, {
	Name:   "readonly-print",
	Bug:    "readonly -p lists nothing",
	Gap:    "declare-listings",
	Code:   "kernel/internal/bashcompat/declare.go: readonlyCall",
	Script: `readonly R=1; readonly -p | grep -x 'declare -r R="1"' || echo missing`,
	Bash:   "declare -r R=\"1\"\n",
	Mvdan:  "missing\n",
}, {
	Name:   "declare-function-text",
	Bug:    "declare -f prints a function otherwise than bash",
	Gap:    "declare-listings",
	Code:   "kernel/internal/bashcompat/funcprint.go: funcText",
	Script: `f() { echo hi; }; declare -f f`,
	Bash:   "f () \n{ \n    echo hi\n}\n",
	Mvdan:  "f()\n{ echo hi; }\n",
}, {
	Name:   "unexport",
	Bug:    "export -n and declare +x leave the variable exported",
	Gap:    "unexport",
	Code:   "kernel/internal/bashcompat/declare.go: unexport",
	Script: `export V=1 W=1; export -n V; declare +x W 2>/dev/null; env | grep -c '^[VW]=' || :`,
	Bash:   "0\n",
	Mvdan:  "2\n",
}, {
	Name:   "unset-readonly",
	Bug:    "unset of a readonly variable succeeds",
	Gap:    "unset-readonly",
	Code:   "kernel/internal/bashcompat/declare.go: unsetCall",
	Script: `readonly r=1; unset r 2>/dev/null; echo "status $?"`,
	Bash:   "status 1\n",
	Mvdan:  "status 0\n",
}, {
	Name:   "type-flags",
	Bug:    "type has no -a or -f",
	Gap:    "type-and-command",
	Code:   "kernel/internal/bashcompat/type.go: typeCall",
	Script: `type -f echo 2>&1; echo "status $?"`,
	Bash:   "echo is a shell builtin\nstatus 0\n",
	Mvdan:  "type: NOT IMPLEMENTED\nstatus 3\n",
}, {
	Name:   "type-builtin-list",
	Bug:    "type calls newgrp a builtin",
	Gap:    "type-and-command",
	Code:   "kernel/internal/bashcompat/type.go: bashBuiltinNames",
	Env:    []string{"PATH=/nonexistent"},
	Script: `type -t newgrp || echo none`,
	Bash:   "none\n",
	Mvdan:  "builtin\n",
}, {
	Name:   "command-flags",
	Bug:    "command has no -V or -p",
	Gap:    "type-and-command",
	Code:   "kernel/internal/bashcompat/type.go: Command",
	Script: `command -V echo 2>/dev/null; command -p echo hi 2>/dev/null; echo "status $?"`,
	Bash:   "echo is a shell builtin\nhi\nstatus 0\n",
	Mvdan:  "status 2\n",
}, {
	Name:   "set-errtrace",
	Bug:    "set refuses -E and -T",
	Gap:    "set-and-shopt",
	Code:   "kernel/internal/bashcompat/options.go: setCall",
	Script: `set -E 2>/dev/null; echo "status $?"`,
	Bash:   "status 0\n",
	Mvdan:  "status 2\n",
}, {
	Name:   "shopt-options",
	Bug:    "shopt refuses inherit_errexit, lastpipe and interactive shells' options",
	Gap:    "set-and-shopt",
	Code:   "kernel/internal/bashcompat/options.go: shoptCall",
	Script: `shopt -s inherit_errexit lastpipe histappend 2>/dev/null; echo "status $?"`,
	Bash:   "status 0\n",
	Mvdan:  "status 1\n",
}, {
	Name:   "declaration-as-call",
	Bug:    "a declaration builtin run as a call ignores its arguments",
	Gap:    "declaration-as-call",
	Code:   "kernel/internal/bashcompat/declare.go: declClause",
	Script: `a=1 export b=2; x=declare; $x c=3; command readonly d=4; echo "[$b][$c][$d]"`,
	Bash:   "[2][3][4]\n",
	Mvdan:  "[][][]\n",
}, {
	Name:   "local-as-call",
	Bug:    "local run as a call is an unsupported builtin",
	Gap:    "declaration-as-call",
	Code:   "kernel/internal/bashcompat/declare.go: localCall",
	Script: `f() { x=local; $x y=1 2>/dev/null; echo "[$y]"; }; y=0; f`,
	Bash:   "[1]\n",
	Mvdan:  "[0]\n",
}, {
	Name:   "let-expanded-argument",
	Bug:    "let reads an expanded argument as a number, not an expression",
	Gap:    "let-at-run-time",
	Code:   "kernel/internal/bashcompat/let.go: letCall",
	Script: `x=5; let "a = $x * 2"; echo "a=$a"`,
	Bash:   "a=10\n",
	Mvdan:  "a=\n",
}, {
	Name:   "let-array-element",
	Bug:    "let cannot assign an array element",
	Gap:    "let-at-run-time",
	Code:   "kernel/internal/bashcompat/let.go: elementAssign",
	Script: `let 'a[1]=5'; echo "[${a[1]}]"`,
	Bash:   "[5]\n",
	Mvdan:  "[]\n",
}, {
	Name:   "let-bad-constant",
	Bug:    "let takes a constant bash rejects",
	Gap:    "let-at-run-time",
	Code:   "kernel/internal/rewrite/let.go: letGuarded",
	Script: `{ let x=08; } 2>/dev/null; echo "status $? [$x]"`,
	Bash:   "status 1 []\n",
	Mvdan:  "status 1 [0]\n",
}, {
	Name:   "builtin-dashdash",
	Bug:    "builtin takes -- for the name of a builtin",
	Gap:    "builtin-dashdash",
	Code:   "kernel/bashcompat.go: Session.builtinCall",
	Script: `builtin -- true 2>/dev/null; echo "status $?"`,
	Bash:   "status 0\n",
	Mvdan:  "status 1\n",
}, {
	Name:   "shopt-query",
	Bug:    "shopt has no -q or -p, and a name's status is 0 when the option is off",
	Gap:    "set-and-shopt",
	Code:   "kernel/internal/bashcompat/options.go: shoptCall",
	Script: `shopt -q nullglob 2>/dev/null; echo "q $?"; shopt nullglob >/dev/null; echo "name $?"`,
	Bash:   "q 1\nname 1\n",
	Mvdan:  "q 2\nname 0\n",
}, {
	Name:   "set-o-listing",
	Bug:    "set -o lists only mvdan/sh's options, without bash's padding",
	Gap:    "set-and-shopt",
	Code:   "kernel/internal/bashcompat/options.go: listSetOptions",
	Script: `set -o | head -2`,
	Bash:   "allexport      \toff\nbraceexpand    \ton\n",
	Mvdan:  "allexport\toff\nerrexit\toff\n",
}, {
	Name:   "caller",
	Bug:    "caller is no builtin",
	Gap:    "call-stack",
	Code:   "kernel/internal/bashcompat/callstack.go: callerCall",
	Script: `f() { caller 2>/dev/null; echo "status $?"; }; f`,
	Bash:   "1 NULL\nstatus 0\n",
	Mvdan:  "status 2\n",
}, {
	Name:   "last-argument",
	Bug:    "$_ is never set",
	Gap:    "last-argument",
	Code:   "kernel/special.go: setUnderscore",
	Script: `echo a b >/dev/null; echo "[$_]"`,
	Bash:   "[b]\n",
	Mvdan:  "[]\n",
}, {
	Name:   "err-trap-lineno",
	Bug:    "$LINENO in an ERR trap is the line within the trap's text",
	Gap:    "trap-line-and-command",
	Code:   "kernel/internal/bashcompat/errtrap.go: errTrapAction",
	Script: "trap 'echo \"line $LINENO\"' ERR\ntrue\nfalse\ntrue",
	Bash:   "line 3\n",
	Mvdan:  "line 1\n",
}, {
	Name:   "bash-command",
	Bug:    "BASH_COMMAND is never set",
	Gap:    "trap-line-and-command",
	Code:   "kernel/special.go: traceCommand",
	Script: `trap 'echo "[$BASH_COMMAND]"' EXIT; true`,
	Bash:   "[true]\n",
	Mvdan:  "[]\n",
}}

// runEchoWrites lists the writes of one echo.
func runEchoWrites(t *testing.T, _ canary, dir string) string {
	var out syncBuffer
	runScript(t, bareRunner(t, dir, interp.StdIO(nil, &out, &out)), "echo a b c")
	return quoteAll(out.writes) + "\n"
}

// runBrokenPipe writes with echo and printf to a pipe nobody reads.
func runBrokenPipe(t *testing.T, _ canary, dir string) string {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pr.Close()
	defer pw.Close()
	var errOut syncBuffer
	runScript(t, bareRunner(t, dir, interp.StdIO(nil, pw, &errOut)), `echo x; s=$?; printf x; echo "echo $s printf $?" >&2`)
	return errOut.String()
}

func quote(s string) string { return strconv.Quote(s) }

func quoteAll(ss []string) string {
	out := "["
	for i, s := range ss {
		if i > 0 {
			out += " "
		}
		out += quote(s)
	}
	return out + "]"
}
