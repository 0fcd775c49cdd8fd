package mvdancanary

// parseCanaries justify the refusals that say bash would have parsed a
// script mvdan/sh's parser refuses: each parses in bash and fails to
// parse here.
var parseCanaries = []canary{{
	Name:   "parse-list-element-append",
	Bug:    "the parser refuses [k]+=v in an array's list",
	Gap:    "list-element-append",
	Code:   "kernel/internal/static/parsegap.go: parseGaps",
	Script: `x=([2]+=7); echo "${x[2]}"`,
	Bash:   "7\n",
	Mvdan:  "parse error: script:1:4: `[x]` must be followed by `=`",
}, {
	Name:   "parse-arith-assign-operand",
	Bug:    "the parser refuses an assignment to what is not a plain name in arithmetic",
	Gap:    "arith-assign-operand",
	Code:   "kernel/internal/static/parsegap.go: parseGaps",
	Script: `( echo $((1 ? 2 : x+=2)) ) 2>/dev/null; echo "status $?"`,
	Bash:   "status 1\n",
	Mvdan:  "parse error: script:1:20: `+=` must follow a name",
}, {
	Name:   "parse-case-toggle",
	Bug:    "the parser refuses ${v~} and ${v~~}",
	Gap:    "case-toggle",
	Code:   "kernel/internal/static/parsegap.go: parseGaps",
	Script: `v=HeLLo; echo ${v~~} ${v~}`,
	Bash:   "hEllO heLLo\n",
	Mvdan:  "parse error: script:1:18: not a valid parameter expansion operator: `~`",
}, {
	Name:   "parse-arith-incomplete",
	Bug:    "the parser refuses an incomplete arithmetic expression that bash fails only when it runs",
	Gap:    "arith-incomplete",
	Code:   "kernel/internal/static/parsegap.go: parseGaps",
	Script: `( echo $((1 +)) ) 2>/dev/null; echo "status $?"`,
	Bash:   "status 1\n",
	Mvdan:  "parse error: script:1:13: `+` must be followed by an expression",
}, {
	Name:   "parse-arith-decimal",
	Bug:    "the parser refuses a decimal number in arithmetic, which bash fails only when it runs",
	Gap:    "arith-decimal",
	Code:   "kernel/internal/static/parsegap.go: parseGaps",
	Script: `( echo $((1.5)) ) 2>/dev/null; echo "status $?"`,
	Bash:   "status 1\n",
	Mvdan:  "parse error: script:1:12: floating point arithmetic is a zsh feature; tried parsing as bash",
}, {
	Name:   "parse-bang-default",
	Bug:    "the parser refuses ${!-word}",
	Gap:    "bang-default",
	Code:   "kernel/internal/static/parsegap.go: parseGaps",
	Script: `echo "[${!-none}]"`,
	Bash:   "[none]\n",
	Mvdan:  "parse error: script:1:12: `-` cannot be followed by a word",
}, {
	Name:   "parse-assoc-key-space",
	Bug:    "the parser refuses an unquoted key with a space in a subscript",
	Gap:    "assoc-key-space",
	Code:   "kernel/internal/static/parsegap.go: parseGaps",
	Script: `declare -A m=([a b]=1); echo "${m[a b]}"`,
	Bash:   "1\n",
	Mvdan:  "parse error: script:1:18: not a valid arithmetic operator: `b`",
}, {
	Name:   "parse-let-without-argument",
	Bug:    "the parser refuses let without an expression",
	Gap:    "let-without-argument",
	Code:   "kernel/internal/static/parsegap.go: parseGaps",
	Script: `{ let; } 2>/dev/null; echo "status $?"`,
	Bash:   "status 1\n",
	Mvdan:  "parse error: script:1:3: `let` must be followed by an expression",
}, {
	Name:   "parse-let-redirection",
	Bug:    "the parser reads a redirection after let's arguments as arithmetic",
	Gap:    "let-redirection",
	Code:   "kernel/internal/static/parsegap.go: parseGaps",
	Script: `let x=1 2>/dev/null; echo "x=$x"`,
	Bash:   "x=1\n",
	Mvdan:  "parse error: script:1:11: `/` must follow an expression",
}}
