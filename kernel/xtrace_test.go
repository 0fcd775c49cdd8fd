package kernel

import (
	"testing"

	"mvdan.cc/sh/v3/interp"
)

// xtraceOf reads an option mvdan/sh keeps private: a new mvdan/sh that
// moves it must fail here, not quietly trace shelter's words again.
func TestXtraceOfFindsSetX(t *testing.T) {
	r, err := interp.New()
	if err != nil {
		t.Fatal(err)
	}
	x := xtraceOf(r)
	if x == nil {
		t.Fatal("xtraceOf found no set -x option in interp.Runner")
	}
	if *x {
		t.Fatal("set -x is on in a new runner")
	}
	if err := interp.Params("-x")(r); err != nil {
		t.Fatal(err)
	}
	if !*x {
		t.Fatal("set -x is off after Params(-x)")
	}
	if err := interp.Params("+x")(r); err != nil {
		t.Fatal(err)
	}
	if *x {
		t.Fatal("set -x is on after Params(+x)")
	}
}

func TestInternalTrace(t *testing.T) {
	for in, want := range map[string]bool{
		"+ \x00shelter:job 0\n":     true,
		"+ \x01shelter:status 1\n":  true,
		"+ echo shelter:job\n":      false,
		"+ \x00other\n":             false,
		"\x00shelter:job\n":         false,
		"+ ":                        false,
		"":                          false,
		"++ \x00shelter:job 0\n":    false,
		"+ \x01shelter:return 3\n":  true,
		"+ \x00shelter:quiet src\n": true,
	} {
		if got := internalTrace([]byte(in)); got != want {
			t.Errorf("internalTrace(%q) = %v, want %v", in, got, want)
		}
	}
}
