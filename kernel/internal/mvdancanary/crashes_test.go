package mvdancanary

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// crashCanaries justify the refusals of what crashes mvdan/sh: a panic,
// which a pipeline stage or a background job runs where nobody can
// recover it, or a stack overflow, which no recover catches.
var crashCanaries = []canary{{
	Name:   "arith-increment-element",
	Bug:    "(( a[0]++ )) panics",
	Gap:    "arith-write-element",
	Code:   "kernel/internal/static/crash.go: CrashCheck.Visit",
	Script: `a=(1 2); (( a[0]++ )); echo "${a[0]}"`,
	Bash:   "2\n",
	Mvdan:  "panic: variable name must not be empty",
}, {
	Name:   "arith-assign-element",
	Bug:    "$(( a[1] = 7 )) panics",
	Gap:    "arith-write-element",
	Code:   "kernel/internal/static/crash.go: CrashCheck.Visit",
	Script: `a=(1 2); echo $(( a[1] = 7 ))`,
	Bash:   "7\n",
	Mvdan:  "panic: variable name must not be empty",
}, {
	Name:   "assoc-element-without-key",
	Bug:    "an associative array's element without a key panics",
	Gap:    "assoc-keys",
	Code:   "kernel/internal/static/crash.go: assocElems",
	Script: `declare -A A=(1 2 3); echo "${#A[@]}"`,
	Bash:   "2\n",
	Mvdan:  "panic: interface conversion: syntax.ArithmExpr is nil, not *syntax.Word",
}, {
	Name:   "assoc-arithmetic-key",
	Bug:    "an associative array's element with an arithmetic key panics",
	Gap:    "assoc-keys",
	Code:   "kernel/internal/static/crash.go: assocElems",
	Script: `declare -A A=([k+1]=v); echo "${#A[@]}"`,
	Bash:   "1\n",
	Mvdan:  "panic: interface conversion: syntax.ArithmExpr is *syntax.BinaryArithm, not *syntax.Word",
}, {
	Name:   "assoc-arithmetic-subscript",
	Bug:    "${A[k+1]} of an associative array panics",
	Gap:    "assoc-keys",
	Code:   "kernel/internal/static/crash.go: CrashCheck.Visit",
	Script: `declare -A A=([k]=1); echo "${A[k+1]}."`,
	Bash:   ".\n",
	Mvdan:  "panic: interface conversion: syntax.ArithmExpr is *syntax.BinaryArithm, not *syntax.Word",
}, {
	Name:   "test-empty-name",
	Bug:    "[[ -v '' ]] panics",
	Gap:    "empty-variable-name",
	Code:   "kernel/internal/static/crash.go: CrashCheck.Visit",
	Script: `[[ -v '' ]]; echo "status $?"`,
	Bash:   "status 1\n",
	Mvdan:  "panic: variable name must not be empty",
}, {
	Name:   "classic-test-empty-name",
	Bug:    "[ -v '' ] panics",
	Gap:    "empty-variable-name",
	Code:   "kernel/internal/static/classictest.go: classicTestRefusal",
	Script: `[ -v '' ]; echo "status $?"`,
	Bash:   "status 1\n",
	Mvdan:  "panic: variable name must not be empty",
}, {
	Name:   "unset-empty-name",
	Bug:    "unset '' panics",
	Gap:    "empty-variable-name",
	Code:   "kernel/internal/static/crash.go: BuiltinRefusal",
	Script: `unset ''; echo "status $?"`,
	Bash:   "status 0\n",
	Mvdan:  "panic: variable name must not be empty",
}, {
	Name:   "nameref-empty-target",
	Bug:    "a name reference to '' panics when used",
	Gap:    "empty-variable-name",
	Code:   "kernel/internal/static/crash.go: declIssues",
	Script: `declare -n r='' 2>/dev/null; echo "r=$r"`,
	Bash:   "r=\n",
	Mvdan:  "panic: variable name must not be empty",
}, {
	Name:   "test-compares-comparison",
	Bug:    "[ a = b = c ] panics",
	Gap:    "test-compares-comparison",
	Code:   "kernel/internal/static/classictest.go: classicTestRefusal",
	Script: `[ a = b = c ] 2>/dev/null; echo "status $?"`,
	Bash:   "status 2\n",
	Mvdan:  "panic: interface conversion: syntax.TestExpr is *syntax.BinaryTest, not *syntax.Word",
}, {
	Name:  "parse-nesting",
	Bug:   "the parser overflows the stack on deep nesting",
	Gap:   "parse-nesting",
	Code:  "kernel/validate.go: nestingRefusal",
	run:   runChild,
	Bash:  "error\n",
	Mvdan: "fatal error: stack overflow\n",
}, {
	Name:  "call-depth",
	Bug:   "unbounded recursion of functions overflows the stack",
	Gap:   "call-depth",
	Code:  "kernel/internal/budget/depth.go: Budget.DeepStack",
	run:   runChild,
	Bash:  "error\n",
	Mvdan: "fatal error: stack overflow\n",
}}

// A stack overflow ends the process: the canaries that cause one run in
// a child, this test binary run again with childVar naming the canary.
const childVar = "MVDANCANARY_CHILD"

// childStack is the child's stack limit: lower than Go's default of
// 1 GB, as a host may set it (debug.SetMaxStack), so that the child
// overflows in a second, not in gigabytes. A limit mvdan/sh may add to
// its nesting or its calls shows here when it stops them before 32 MB
// (some 8,500 arithmetic parentheses, 4,000 calls of a function).
const childStack = 32 << 20

// children are what the children run, by canary: each prints "error"
// when mvdan/sh returns an error, and something else when it succeeds.
var children = map[string]func() string{
	"parse-nesting": func() string {
		const depth = 100_000
		src := "echo $((" + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + "))"
		if _, err := syntax.NewParser().Parse(strings.NewReader(src), ""); err != nil {
			return "error"
		}
		return "parsed"
	},
	"call-depth": func() string {
		f, err := syntax.NewParser().Parse(strings.NewReader("f() { f; }; f"), "")
		if err != nil {
			return "parse error: " + err.Error()
		}
		r, err := interp.New(interp.StdIO(nil, nil, nil))
		if err != nil {
			return err.Error()
		}
		if err := r.Run(context.Background(), f); err != nil {
			return "error"
		}
		return "ran"
	},
}

func TestMain(m *testing.M) {
	if name := os.Getenv(childVar); name != "" {
		debug.SetMaxStack(childStack)
		fmt.Println(children[name]())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runChild runs c in a child: what it printed, or the fatal error that
// ended it.
func runChild(t *testing.T, c canary, _ string) string {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childVar+"="+c.Name)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		for line := range strings.Lines(stderr.String()) {
			if strings.HasPrefix(line, "fatal error: ") {
				return line
			}
		}
		return fmt.Sprintf("child: %v\n", err)
	}
	return stdout.String()
}
