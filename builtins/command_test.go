package builtins

import (
	"context"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

var echoArgs = &command{
	name:    "args",
	usage:   "[-ab] [-n NUM] [--long] [--value=V] [WORD]...",
	about:   "Print how the flags parsed.",
	numeric: "number",
	flags: []flag{
		{short: 'a', about: "a switch"},
		{short: 'b', long: "bee", about: "a switch with a long name"},
		{short: 'n', long: "number", arg: "NUM", about: "a value"},
		{long: "long", about: "a long switch"},
		{long: "value", arg: "V", about: "a long value"},
	},
	run: func(_ context.Context, c *kernel.Call, a *args) error {
		for _, g := range a.order {
			c.Stdout.Write([]byte(g.key + "=" + g.value + "\n"))
		}
		c.Stdout.Write([]byte("operands: " + strings.Join(a.operands, ",") + "\n"))
		return nil
	},
}

func TestParse(t *testing.T) {
	for _, tc := range []struct{ script, out string }{
		{"args -ab x", "a=\nbee=\noperands: x\n"},
		{"args -an5 x", "a=\nnumber=5\noperands: x\n"},
		{"args -n 5 x -b", "number=5\nbee=\noperands: x\n"},
		{"args --number=7 --bee", "number=7\nbee=\noperands: \n"},
		{"args --num 7 --lo", "number=7\nlong=\noperands: \n"},
		{"args -12 -- -a", "number=12\noperands: -a\n"},
		{"args - x", "operands: -,x\n"},
	} {
		res := run(t, []kernel.Tool{echoArgs}, t.TempDir(), "", tc.script)
		if res.Stdout != tc.out || res.ExitCode != 0 {
			t.Errorf("%s: %q (status %d, %q), want %q", tc.script, res.Stdout, res.ExitCode, res.Stderr, tc.out)
		}
	}
}

func TestParseRefusals(t *testing.T) {
	for _, tc := range []struct{ script, line string }{
		{"args -z", "args: unknown flag '-z'; allowed: -a, -b/--bee, --long, -n/--number, --value\n"},
		{"args --zap", "args: unknown flag '--zap'; allowed: -a, -b/--bee, --long, -n/--number, --value\n"},
		{"args -n", "args: flag '-n' needs a value; allowed: -n NUM\n"},
		{"args --value", "args: flag '--value' needs a value; allowed: --value V\n"},
		{"args --long=1", "args: flag '--long' takes no value; allowed: --long\n"},
	} {
		res := run(t, []kernel.Tool{echoArgs}, t.TempDir(), "", tc.script)
		if res.Stderr != tc.line || res.ExitCode != 2 || res.Stdout != "" {
			t.Errorf("%s: stderr %q status %d, want %q", tc.script, res.Stderr, res.ExitCode, tc.line)
		}
	}
}

func TestHelp(t *testing.T) {
	res := run(t, []kernel.Tool{echoArgs}, t.TempDir(), "", "args --help")
	if res.ExitCode != 0 || !strings.HasPrefix(res.Stdout, "usage: args [-ab]") || !strings.Contains(res.Stdout, "\n  -n, --number NUM  a value\n") {
		t.Errorf("help: %q", res.Stdout)
	}
}
