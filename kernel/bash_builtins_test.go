package kernel_test

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// bashBuiltinCases are scripts whose stdout and status must be bash's.
var bashBuiltinCases = []string{
	// printf
	`printf "%d|%d\n" 1 x 3`,
	`printf "%d\n" 12abc " 12" 0x1f 010 -0x10 +5 "'a" "'é"`,
	`printf "%5.2f|%-8.3s|%6.4s|%-10s|\n" 3.14159 abcdef abcdef x`,
	`printf "%*d|%-*d|%.*f\n" 5 1 4 2 2 3.14159`,
	`printf "%i %u %o %#o %#x %X %+d % d %05d %-5d|\n" 10 10 8 8 255 255 3 3 42 42`,
	`printf "%f %.3e %g %G %E %F\n" 3.14159 31415.9 0.0001 1e20 1 2`,
	`printf "%.0f %.0f %.0f %.3f\n" 0.5 1.5 2.5 2.0005`,
	`printf "%#.3g|%#g|%g|%g|%.10g\n" 1 123456 1234567 0.00001234 0.1`,
	`printf "%a %a %A\n" 1 0.1 3.5`,
	`printf "%c%c|%5c|\n" héllo "" x`,
	`printf "%b|\n" '\101\0101\x41' 'a\cb' c`,
	`printf "\101\0101\x4g\u00e9\q\n"`,
	`printf "%q\n" "a b" "" "a'b" $'\n\t' "~x" "#x" "x#" "a,b" 'é'`,
	`printf "%s-%s\n" 1 2 3; printf "x\n" a b; printf "%s\n"`,
	`printf "%x %u\n" -1 -5`,
	`printf "%d\n" 99999999999999999999`,
	`printf "%z\n" 1`,
	`printf "abc%"`,
	`printf "%5%|\n"`,
	`TZ=UTC printf "%(%Y-%m-%d %H:%M:%S %a %b %j %e %p %I)T|%10(%Y)T|\n" 86400 0`,
	`printf -v x "%05.1f" 3.14159; echo "[$x]"`,
	`printf -v 'a[3]' "%s" v; echo "${a[3]}"`,
	`f() { local x; printf -v x "%s" in; echo "$x"; }; x=out; f; echo "$x"`,
	`printf -v x "%d" abc; echo "rc=$? [$x]"`,
	`printf -v "a b" x; echo rc=$?`,
	`printf; echo rc=$?`,
	`printf -- "-%s\n" 1`,
	// echo
	`echo -n -e 'a\tb'; echo; echo -neE 'a\tb'; echo`,
	`echo -x a; echo -n- a; echo - a; echo -- a; echo -e -n a; echo`,
	`echo -e 'a\cb' c; echo next`,
	`echo -e '\0101|\101|\x41|\u00e9|\U0001F600|\e|\q|' | od -c`,
	// read
	`IFS=: read a <<< "x:"; echo "[$a]"; IFS=: read a <<< "x::"; echo "[$a]"`,
	`IFS=: read a b <<< "x:y::"; echo "[$a][$b]"`,
	`IFS=" :" read a b c <<< "x :: y"; echo "[$a][$b][$c]"`,
	`read a b <<< "  one   two   three  "; echo "[$a][$b]"`,
	`read <<< "  one  two  "; echo "[$REPLY]"`,
	`read -r a b <<< 'x\ y z\'; echo "[$a][$b]"`,
	`read a b <<< 'x\ y z'; echo "[$a][$b] rc=$?"`,
	`printf 'a\\\nb c\n' | { read x y; echo "[$x][$y]"; }`,
	`printf 'abc' | { read x; echo "rc=$? [$x]"; }`,
	`printf 'abcdef' | { read -n 3 x; echo "rc=$? [$x]"; read y; echo "[$y]"; }`,
	`printf 'a\nbcdef' | { read -N 3 x; echo "rc=$? [$x]"; }`,
	`printf 'a b c d' | { read -a arr; echo "rc=$? ${#arr[@]} ${arr[3]}"; }`,
	`printf 'a:b;c' | { read -d ';' x; echo "rc=$? [$x]"; read y; echo "[$y]"; }`,
	`IFS=, read -a arr <<< ",a,,b,"; echo "${#arr[@]} ${arr[*]}"`,
	`printf 'é1234' | { read -n 2 x; echo "[$x]"; }`,
	`(sleep 2; echo late) | { read -t 0.2 x; echo "rc=$? [$x]"; }`,
	`read -t 0 x < /dev/null; echo "rc=$?"`,
	`read 1x <<< a; echo rc=$?`,
	`read -t abc x <<< "abc"; echo "rc=$?"`,
	`f() { local v; read v <<< inner; echo "$v"; }; v=outer; f; echo "$v"`,
	`{ read a; read b; } <<< $'one\ntwo'; echo "$a $b"`,
	`printf 'l1\nl2\n' > f; { read a; cat; } < f`,
	// mapfile
	`printf 'a\nb\nc' | { mapfile -t arr; echo "${#arr[@]} [${arr[2]}]"; }`,
	`printf 'a\nb\nc\nd\n' | { mapfile -t -n 2 -s 1 arr; echo "${#arr[@]} [${arr[*]}]"; }`,
	`printf 'a;b;c' | { readarray -d ';' -t arr; echo "${#arr[@]} [${arr[*]}]"; }`,
	`arr=(x y z); printf 'a\nb\n' | { mapfile -t -O 1 arr; echo "${#arr[@]} [${arr[*]}]"; }`,
	`printf '1\n2\n' | { mapfile; echo "${MAPFILE[*]}" | od -c; }`,
	// kill, wait, jobs
	`kill -l`,
	`kill -l 9 137 KILL sigterm 0 200; echo rc=$?`,
	`wait %3; echo rc=$?; wait 12345; echo rc=$?; wait -n; echo rc=$?`,
	// The job wait -n reports ends 0.2 s in: one that had ended before
	// wait -n began, bash would have reported already (a loaded
	// machine's bash printed rc=0 for `(exit 3) &`).
	`sleep 0.6 >/dev/null & (sleep 0.2; exit 3) & wait -n; echo rc=$?; builtin kill -l 15; command kill -l 2`,
	// echo and printf, answered in the call handler, whatever : is
	`:() { echo colon; }; echo hi; echo rc=$?; printf '%s\n' a; echo rc=$?; printf '%d\n' z; echo rc=$?`,
	`echo() { builtin echo "f:$*"; }; echo a; command echo b; builtin echo c`,
	`echo -n a; echo -e 'b\tc'; echo -; echo -- x; echo; printf ''; echo rc=$?`,
	// echo's buffers, kept from one echo to the next: a line longer than
	// what is kept, lines after it, lines of concurrent pipeline stages
	`x=$(printf '%070000d' 0); echo "$x" | wc -c; echo a; echo "$x$x" | wc -c; echo b`,
	`for i in 1 2 3; do echo "a$i"; done | { echo "b"; cat; } | sort | tr -d '\n'; echo`,
	`x=$(echo one; echo two); echo "$x|$(echo -n three)"`,
	// a writer on a closed pipe
	`while true; do echo x; done | head -1`,
	`set -o pipefail; while :; do printf 'y\n'; done | head -1; echo $?`,
}

func TestBuiltinsAsBash(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	for _, script := range bashBuiltinCases {
		dir := t.TempDir()
		s := newSession(t, kernel.Config{}, kernel.SessionOptions{Dir: dir})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := s.Run(ctx, script, kernel.RunOptions{})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		cmd := exec.Command(bash, "-c", script)
		cmd.Dir = t.TempDir()
		cmd.Env = []string{"LANG=C.UTF-8", "PATH=/usr/local/bin:/usr/bin:/bin", "TZ=UTC"}
		cmd.Stdout = &out
		status := 0
		if err := cmd.Run(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			status = ee.ExitCode()
		}
		if res.Stdout != out.String() || res.ExitCode != status {
			t.Errorf("%s\n bash:    status %d stdout %q\n shelter: status %d stdout %q stderr %q",
				script, status, out.String(), res.ExitCode, res.Stdout, strings.TrimSpace(res.Stderr))
		}
	}
}

func TestReadEndsWithTheCall(t *testing.T) {
	t.Parallel()
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	start := time.Now()
	res, err := s.Run(context.Background(), `echo start; (sleep 30) | read y`, kernel.RunOptions{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "start\n" || res.ExitCode != 124 || !res.TimedOut {
		t.Errorf("read from a silent pipe: %+v", res)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %s", took)
	}
}

func TestBuiltinRefusals(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	for _, c := range []struct{ script, line string }{
		{"read -z x", "read: unknown flag '-z'; allowed: -N, -a, -d, -n, -p, -r, -s, -t, -u"},
		{"mapfile -C f arr", "mapfile: flag '-C' (a callback) is not supported; allowed: -O, -d, -n, -s, -t, -u"},
		{"printf -x", "printf: unknown flag '-x'; allowed: -v"},
	} {
		res := run(t, s, c.script)
		if res.ExitCode != 2 || res.Stderr != c.line+"\n" {
			t.Errorf("%s: exit %d stderr %q, want 2 %q", c.script, res.ExitCode, res.Stderr, c.line)
		}
	}
}
