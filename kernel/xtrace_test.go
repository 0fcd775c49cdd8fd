package kernel

import (
	"testing"
)

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
