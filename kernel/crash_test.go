package kernel

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/static"
)

// crashCases are scripts bare mvdan/sh panics on, each with the line the
// static pass refuses it with.
var crashCases = []struct{ src, line string }{
	{"(( a[i++]++ ))", "shelter: line 1:4: arithmetic cannot write to an array element: 'a[i++]++'; write 'a[i++]=$(( a[i++] + 1 ))'"},
	{"a=(1); (( x + --a[0] ))", "shelter: line 1:15: arithmetic cannot write to an array element: '--a[0]'; write 'a[0]=$(( a[0] - 1 ))'"},
	{"(( x = a[0]++ ))", "shelter: line 1:8: arithmetic cannot write to an array element: 'a[0]++'; write 'a[0]=$(( a[0] + 1 ))'"},
	{"echo $(( a[1] = 7 ))", "shelter: line 1:10: arithmetic cannot write to an array element: 'a[1] = 7'; write 'a[1]=$(( 7 ))'"},
	{"let a[0]++", "shelter: line 1:5: arithmetic cannot write to an array element: 'a[0]++'; write 'a[0]=$(( a[0] + 1 ))'"},
	{"for (( a[0]=0; a[0]<2; a[0]++ )); do :; done", "shelter: line 1:8: arithmetic cannot write to an array element: 'a[0] = 0'; write 'a[0]=$(( 0 ))'"},
	{"echo ${x:$(( b[0] <<= 1 ))}", "shelter: line 1:14: arithmetic cannot write to an array element: 'b[0] <<= 1'; write 'b[0]=$(( b[0] << (1) ))'"},
	{"declare -A A=(1 2 3)", "shelter: line 1:15: A is an associative array: its element '1' needs a key; write '[key]=1'"},
	{"declare -Ag A=([k]=v 2)", "shelter: line 1:22: A is an associative array: its element '2' needs a key; write '[key]=2'"},
	{"f() { local -A A=([-1]=x); }; f", "shelter: line 1:20: A is an associative array, and the key '-1' is arithmetic; quote the key: '[\"-1\"]=…'"},
	{"declare -A x -r A+=(1)", "shelter: line 1:21: A is an associative array: its element '1' needs a key; write '[key]=1'"},
	{"A=([\"k\"]=v [a+1]=w)", "shelter: line 1:13: A is an associative array, and the key 'a+1' is arithmetic; quote the key: '[\"a+1\"]=…'"},
	{"declare -A a; echo \"${a[a+1]}\"", "shelter: line 1:21: a is an associative array, and its key 'a+1' is arithmetic; quote the key: '${a[\"a+1\"]}'"},
	{"declare -A a; echo ${#a[-1]} ${a[(k)]:-d}", "shelter: line 1:20: a is an associative array, and its key '-1' is arithmetic; quote the key: '${a[\"-1\"]}'"},
	{"typeset -A a; (( a[k+1] ))", "shelter: line 1:18: a is an associative array, and its key 'k+1' is arithmetic; quote the key: '${a[\"k+1\"]}'"},
	{"[[ -v '' ]]", "shelter: line 1:4: '-v' needs the name of a variable, not ''"},
	{"[ -R '' ]", "shelter: line 1:1: [: '-R' needs the name of a variable, not ''"},
	{"unset -v ''", "shelter: line 1:1: unset: '' is not a variable name"},
	{"[ a = b = c ]", "shelter: line 1:1: [: '==' cannot compare the result of a comparison or a group; write one test per comparison, joined by && or ||"},
	{"test '(' a ')' != b", "shelter: line 1:1: test: '!=' cannot compare the result of a comparison or a group; write one test per comparison, joined by && or ||"},
	{"test -n a = b", "shelter: line 1:1: test: '==' cannot compare the result of a comparison or a group; write one test per comparison, joined by && or ||"},
	{"nameref r=; echo $r", "shelter: line 1:9: a name reference needs the name of a variable: 'nameref -n r=VAR'"},
}

// nearMisses are scripts beside the crash cases that mvdan/sh runs.
var nearMisses = []string{
	"(( x++ )); (( x += 2 )); echo $(( y = 7 )); let x++ 'z=1'",
	"a[0]=$(( a[0]+1 )); (( a[0] )); echo $(( a[1] + a[0] )) ${a[i+1]} ${a[-1]}",
	"for (( i=0; i<2; i++ )); do :; done",
	"declare -A A=([k]=v [\"a+1\"]=w); echo ${A[k]} ${A[\"a+1\"]} ${A[$k]} ${A[@]} ${#A[*]}",
	"declare -A a; a[k]=3; echo ${a[k]}; a[k+1]=4; A+=([k+1]=v)",
	"declare -ga G=(1 2 3)",
	"declare -A x -a A=(1 2)",
	"declare -A A; A=(1 2 3)",
	"a=(1 2 3); echo ${a[1+1]}",
	"[[ -v x ]]; [ -v x ]; test -n a -a b = c; [ ! a = b ]; [ a = b -o c != d ]",
	"unset x; unset -f ''",
	"test; [ ]; [ ! ]; test -n",
	"declare -n r=x; echo $r",
}

func TestCrashRefusals(t *testing.T) {
	for _, tc := range crashCases {
		if !panicsInMvdan(t, tc.src) {
			t.Errorf("%q: does not panic in mvdan/sh; no need to refuse it", tc.src)
		}
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(tc.src), "")
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		found := static.Crashes(f, nil)
		if len(found) == 0 {
			t.Errorf("%q: not refused", tc.src)
			continue
		}
		if got := IssueLine(unsupported(found[0])); got != tc.line {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, got, tc.line)
		}
		if got, _ := crashRefusal(tc.src, nil); got != tc.line {
			t.Errorf("crashRefusal(%q):\n got %s\nwant %s", tc.src, got, tc.line)
		}
	}
	for _, src := range nearMisses {
		if panicsInMvdan(t, src) {
			t.Errorf("%q: panics in mvdan/sh", src)
		}
		if line, ok := crashRefusal(src, nil); ok {
			t.Errorf("%q: refused: %s", src, line)
		}
	}
}

// panicsInMvdan runs src in a bare mvdan/sh runner, no handlers of ours.
func panicsInMvdan(t *testing.T, src string) (panicked bool) {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	r, err := interp.New(interp.StdIO(nil, nil, nil), interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc {
		return func(context.Context, []string) error { return nil }
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if p := recover(); p != nil {
			panicked = true
			t.Logf("%q panics: %v", src, fmt.Sprint(p))
		}
	}()
	r.Run(context.Background(), f)
	return false
}

// TestCrashRefusedByRun: Run refuses each crash case before anything
// runs, in a pipeline stage too, where a panic would be in a goroutine
// no one recovers.
func TestCrashRefusedByRun(t *testing.T) {
	s := launchSession(t, Config{})
	for _, tc := range crashCases {
		for _, src := range []string{tc.src, "echo ran; echo | { " + tc.src + "; }"} {
			res, err := s.Run(context.Background(), src, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Rejected || res.ExitCode != 2 || res.Stdout != "" {
				t.Errorf("%q: not refused: %+v", src, res)
			}
		}
		res, _ := s.Run(context.Background(), tc.src, RunOptions{})
		if first, _, _ := strings.Cut(res.Stderr, "\n"); first != tc.line {
			t.Errorf("%q: stderr %q, want it to start with %q", tc.src, res.Stderr, tc.line)
		}
	}
	for _, src := range nearMisses {
		// A session of its own: a near miss may make a name associative.
		res, err := launchSession(t, Config{}).Run(context.Background(), src, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Rejected {
			t.Errorf("%q: refused: %s", src, res.Stderr)
		}
	}
}

// TestCrashSessionAssoc: an associative array declared by an earlier
// call is known to the static pass of the next.
func TestCrashSessionAssoc(t *testing.T) {
	s := launchSession(t, Config{})
	if res, _ := s.Run(context.Background(), "declare -A M=([k]=v)", RunOptions{}); res.ExitCode != 0 {
		t.Fatalf("declare: %+v", res)
	}
	res, _ := s.Run(context.Background(), "echo ${M[k-1]}", RunOptions{})
	want := "shelter: line 1:6: M is an associative array, and its key 'k-1' is arithmetic; quote the key: '${M[\"k-1\"]}'\n"
	if !res.Rejected || res.Stderr != want {
		t.Errorf("stderr %q, want %q", res.Stderr, want)
	}
}

// TestCrashAtRunTime: what only run time shows, eval's and source's
// text, trap strings and expanded builtin arguments, ends the command
// with the refusal, not the process. It needs the call handler to call
// crashRefusal and static.BuiltinRefusal, and Run's parse step, eval and source
// to call nestingRefusal.
func TestCrashAtRunTime(t *testing.T) {
	s := launchSession(t, Config{})
	// Scripts too deep for the parser would end the test binary: they
	// run only once a script as deep as the parser survives is refused.
	probe := strings.Repeat("( ", 2000) + "echo" + strings.Repeat(" )", 2000)
	if res, _ := s.Run(context.Background(), probe, RunOptions{}); res.Rejected {
		tc := strings.Repeat("( ", 1<<20) + "echo deep" + strings.Repeat(" )", 1<<20)
		res, _ := s.Run(context.Background(), tc, RunOptions{})
		if want := "shelter: line 1:2001: the script nests deeper than 1000 levels"; !res.Rejected || !strings.HasPrefix(res.Stderr, want) {
			t.Errorf("a script 1M deep: stderr %q, want %q…", res.Stderr, want)
		}
	} else {
		t.Error("a script 2,000 deep is not refused: Run's parse step does not call nestingRefusal")
	}
	deep := `o="( "; c=" )"; for i in $(seq 11); do o=$o$o; c=$c$c; done; `
	if res, _ := s.Run(context.Background(), deep+`eval "$o echo deep $c"`, RunOptions{}); strings.Contains(res.Stderr, "nests deeper than 1000 levels") {
		deep = `o="( "; c=" )"; for i in $(seq 20); do o=$o$o; c=$c$c; done; `
		res, _ := s.Run(context.Background(), deep+`eval "$o echo deep $c"`, RunOptions{})
		if res.ExitCode == 0 || !strings.Contains(res.Stderr, "nests deeper than 1000 levels") {
			t.Errorf("eval 1M deep: exit %d, stderr %q", res.ExitCode, res.Stderr)
		}
	} else {
		t.Errorf("eval 2,048 deep: not refused (stderr %q): eval does not call crashRefusal", res.Stderr)
	}
	for _, tc := range []struct{ src, stderr string }{
		{`x='(( a[0]++ ))'; eval "$x"`, "arithmetic cannot write to an array element: 'a[0]++'"},
		{`x='(( a[0]++ ))'; echo | eval "$x"`, "arithmetic cannot write to an array element: 'a[0]++'"},
		{`echo '(( a[0]++ ))' > f.sh; source f.sh`, "arithmetic cannot write to an array element: 'a[0]++'"},
		{`e=; [ -v "$e" ]`, "[: '-v' needs the name of a variable, not ''"},
		{`e=; echo | unset "$e"`, "unset: '' is not a variable name"},
		{`x==; test a $x b $x c`, "test: '==' cannot compare the result of a comparison"},
	} {
		res, err := s.Run(context.Background(), tc.src, RunOptions{Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode == 0 || !strings.Contains(res.Stderr, tc.stderr) {
			t.Errorf("%.60q: exit %d, stderr %q, want it to say %q", tc.src, res.ExitCode, res.Stderr, tc.stderr)
		}
	}
}
