package kernel_test

import "testing"

// shift, return and eval as bash has them.

func TestShiftAsBash(t *testing.T) {
	runSteps(t, []callStep{
		{"set -- a b c; shift 2; echo $?; echo $*", "0\nc\n", 0},
		// Too few parameters: it fails and shifts nothing, in the
		// function's own parameters.
		{`f() { shift 3; echo "$? $#"; }; f a b`, "1 2\n", 0},
		{"set --; shift; echo $?", "1\n", 0},
		{`set -- a; shift x; echo "$? $#"; shift -1; echo "$? $#"; shift 0; echo "$? $#"`, "1 1\n1 1\n0 1\n", 0},
		{"set -e; set --; shift; echo no", "", 1},
	})
}

func TestReturnAsBash(t *testing.T) {
	runSteps(t, []callStep{
		{"f() { (exit 3); return; }; f; echo $?", "3\n", 0},
		{"f() { return 4; echo no; }; f; echo $?", "4\n", 0},
		{"f() { eval 'return 6'; echo no; }; f; echo $?", "6\n", 0},
		{"f() { while true; do return 7; done; echo no; }; f; echo $?", "7\n", 0},
		{"return 2>/dev/null; echo $?", "2\n", 0},
		{"echo 'return 5; echo no' > lib.sh; source ./lib.sh; echo $?", "5\n", 0},
	})
}

func TestEvalSyntaxErrorIsStatus2(t *testing.T) {
	runSteps(t, []callStep{
		{"eval 'if' 2>/dev/null; echo $?", "2\n", 0},
		{"eval 'x=1;' 'echo $x'", "1\n", 0},
		{"eval 'false'; echo $?", "1\n", 0},
	})
}
