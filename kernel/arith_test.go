package kernel

import (
	"context"
	"strings"
	"testing"
)

// TestArithmErrorsEnd runs arithmetic errors through a session: an
// expansion's error ends the (sub)shell with status 1, as in bash; a
// command's ((…)) fails that command only.
func TestArithmErrorsEnd(t *testing.T) {
	k, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(SessionOptions{Dir: t.TempDir(), DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct {
		script, stdout string
		exit           int
		stderr         string // a line of stderr; "" for none
	}{
		{`echo $((1/0)); echo "status $?"`, "", 1, `1 / 0: division by 0 (error token is "0")`},
		{`( echo $((1/0)) ); echo "status $?"`, "status 1\n", 0, `1 / 0: division by 0 (error token is "0")`},
		{`x=0; f() { echo $((7%x)); echo no; }; f; echo no`, "", 1, `7 % x: division by 0 (error token is "x")`},
		{`n=-1; echo $((2**n))`, "", 1, `2 ** n: exponent less than 0 (error token is "n")`},
		{`echo $((09))`, "", 1, `09: value too great for base (error token is "09")`},
		{`x=2; echo $((8/x)) $((2**x))`, "4 4\n", 0, ""},
		{`(( 1/0 )); echo "next $?"`, "next 1\n", 0, "division by zero"},
		{`let 'a = 3 * 4'; echo $a`, "12\n", 0, ""},
	} {
		res, err := s.Run(context.Background(), tc.script, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stdout != tc.stdout || res.ExitCode != tc.exit {
			t.Errorf("%s: stdout %q, exit %d; want %q, %d", tc.script, res.Stdout, res.ExitCode, tc.stdout, tc.exit)
		}
		if got := strings.TrimSuffix(res.Stderr, "\n"); got != tc.stderr {
			t.Errorf("%s: stderr %q, want %q", tc.script, got, tc.stderr)
		}
	}
}
