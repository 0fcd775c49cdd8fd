package builtins

import (
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func TestSeqGNU(t *testing.T) {
	t.Parallel()
	cases := []gnuCase{
		{name: "last", script: "seq 5"},
		{name: "first last", script: "seq 3 7"},
		{name: "increment", script: "seq 1 3 20"},
		{name: "negative increment", script: "seq 10 -3 1"},
		{name: "negative operands", script: "seq -5 -1; seq -3 2"},
		{name: "empty range", script: "seq 5 1; seq 1 -1 5; seq 0"},
		{name: "leading zeros", script: "seq 01 03; seq 010"},
		{name: "big integers", script: "seq 18446744073709551614 18446744073709551617; seq 99999999999999999999999 3 100000000000000000000005"},
		{name: "fractions", script: "seq 0 0.1 0.5; seq 1 0.1 1.3; seq 0.5 2"},
		{name: "rounding", script: "seq 0 0.000001 0.000003"},
		{name: "exponents", script: "seq 1.5e1 16; seq 1.25e1 13; seq 1e2 1e2; seq 1e-1 0.1 0.3"},
		{name: "hex", script: "seq 0x10 0x11; seq 0x1p1 4"},
		{name: "inf", script: "seq inf -1 inf | head -n 2"},
		{name: "equal width", script: "seq -w 8 11; seq -w -5 2 5; seq -w 1 0.5 3; seq -w 5 -1 -2"},
		{name: "equal width long", script: "seq --equal-width 1 10"},
		{name: "equal width forms", script: "seq -w 1e1 12; seq -w 1.5e1 16; seq -w 1e-1 0.1 0.3; seq -w 1 1e1; seq -w .5 1 2; seq -w -.5 1 1; seq -w 1. 3; seq -w 0.1e1 3; seq -w 10e-1 3; seq -w 1 1.50 3; seq -w 1.0 10.00; seq -w 1 1 1.e1"},
		{name: "separator", script: "seq -s, 3; seq -s '' 3; seq -s ' - ' 1 0.5 2"},
		{name: "separator long", script: "seq --separator=: 3; seq --separator : 3; seq --sep=+ 2"},
		{name: "format f", script: "seq -f '%f' 1 3; seq -f '%.2f' 0 0.25 1; seq -f 'x%5.2fy' 1 2; seq -f '%-6.1f|' 1 2; seq -f '%+08.3f' -1 1"},
		{name: "format e", script: "seq -f '%e' 1 3; seq -f '%.2E' 1000 1000 3000; seq -f '%#.0e' 5 5"},
		{name: "format g", script: "seq -f '%g' 1e6 1e6; seq -f '%g' 0.0001 0.00001 0.00012; seq -f '%G' 1e-5 1e-5; seq -f '%.3g' 1234 1 1235; seq -f '%#g' 1 2; seq -f '%10g|' 1 2; seq -f '% g' 1 2"},
		{name: "format long", script: "seq --format=%.1f 1 2; seq --format %g 1 2; seq -f %Lg 3"},
		{name: "format percent", script: "seq -f '%%%g%%' 1; seq -f '100%% %g' 2"},
		{name: "format inf", script: "seq -f '%5f|' inf -1 inf | head -n 1; seq -f '%05g' -- -inf 1 -inf | head -n 1"},
		{name: "format unknown", script: "seq -f '%d' 1"},
		{name: "format none", script: "seq -f 'a' 1"},
		{name: "format too many", script: "seq -f '%f%f' 1"},
		{name: "format ends", script: "seq -f 'x%' 1"},
		{name: "format and width", script: "seq -w -f %g 1"},
		{name: "clustered", script: "seq -ws, 1 10"},
		{name: "flags after operand", script: "seq 1 -s , 3"},
		{name: "dashdash", script: "seq -- -1 1"},
		{name: "missing", script: "seq"},
		{name: "extra", script: "seq 1 2 3 4"},
		{name: "invalid", script: "seq x; seq 1 x"},
		{name: "nan", script: "seq nan"},
		{name: "zero increment", script: "seq 1 0 3"},
		{name: "trailing garbage", script: "seq 1z"},
		{name: "space and plus", script: "seq ' 2' '+4'"},
		{name: "many", script: "seq 100000 | tail -n 2; seq 0 0.5 5000 | tail -n 1"},
	}
	compareGNU(t, []kernel.Tool{cmdSeq, cmdHead, cmdTail}, cases)
}

func TestSeqFormatRefusesHexFloats(t *testing.T) {
	res := run(t, []kernel.Tool{cmdSeq}, t.TempDir(), "", "seq -f %a 1")
	if res.ExitCode != 1 || res.Stderr != "seq: format '%a': the %a directive is not supported; allowed: %e, %f, %g, %E, %F, %G\n" {
		t.Errorf("seq -f %%a: status %d, stderr %q", res.ExitCode, res.Stderr)
	}
}
