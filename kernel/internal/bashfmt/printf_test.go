package bashfmt_test

import (
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel/internal/bashfmt"
)

// The rows are bash 5.2's output for the same printf; package kernel's
// bash diff corpus holds many more, run against bash itself.
func TestPrintf(t *testing.T) {
	for _, tc := range []struct {
		format string
		args   []string
		out    string
		errs   string
		status int
	}{
		{"%5.2f|%-8.3s|%q|%x|%#o|%b|%c\n", []string{"3.14159", "abcdef", "a b", "255", "8", `a\tb`, "héllo"},
			" 3.14|abc     |a\\ b|ff|010|a\tb|h\n", "", 0},
		{"%d|%d\n", []string{"1", "x", "3"}, "1|0\n3|0\n", "printf: x: invalid number\n", 1},
		{"%s-%s\n", []string{"1", "2", "3"}, "1-2\n3-\n", "", 0},
		{"%(%Y-%m-%d %H:%M:%S)T\n", []string{"86400"}, "1970-01-02 00:00:00\n", "", 0},
		{`a\cb%s`, []string{"c"}, `a\cbc`, "", 0},
		{"%b|%s", []string{`x\cy`, "z"}, "x", "", 0},
	} {
		out, errs, status := bashfmt.Printf(tc.format, tc.args, time.UTC)
		if out != tc.out || errs != tc.errs || status != tc.status {
			t.Errorf("printf %q %q = %q, %q, %d; want %q, %q, %d", tc.format, tc.args, out, errs, status, tc.out, tc.errs, tc.status)
		}
	}
}

func TestAppendEcho(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"a", "b"}, "a b\n"},
		{[]string{"-n", "a"}, "a"},
		{[]string{"-e", `a\tb\cc`, "d"}, "a\tb"},
		{[]string{"-x", "a"}, "-x a\n"},
	} {
		if got := string(bashfmt.AppendEcho([]byte("p:"), tc.args, false)); got != "p:"+tc.want {
			t.Errorf("echo %q = %q, want %q", tc.args, got, "p:"+tc.want)
		}
	}
}
