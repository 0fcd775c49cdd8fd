package toolfile

import (
	"strings"
	"testing"
)

const both = `commands:
  say:
    executable: /bin/echo
tools:
  ping:
    run: [/bin/cat]
`

func TestSplitBothSections(t *testing.T) {
	s, err := Split("t.yaml", []byte(both))
	if err != nil {
		t.Fatal(err)
	}
	if s.Empty || s.Commands == nil || s.Commands.Line != 2 || s.Tools == nil || s.Tools.Line != 5 {
		t.Fatalf("sections: %+v", s)
	}
	s, err = Split("t.yaml", []byte("tools: {}\n"))
	if err != nil || s.Commands != nil || s.Tools == nil {
		t.Errorf("tools only: %+v %v", s, err)
	}
}

func TestSplitEmpty(t *testing.T) {
	for _, src := range []string{"", "# nothing\n", "~\n", "null\n"} {
		s, err := Split("t.yaml", []byte(src))
		if err != nil || !s.Empty || s.Commands != nil || s.Tools != nil {
			t.Errorf("%q: %+v %v", src, s, err)
		}
	}
}

func TestSplitErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"- a\n", "t.yaml:1:1: want a mapping with the keys commands and/or tools"},
		{"commands: {}\nextras: 1\n", "t.yaml:2:1: unknown key 'extras'; allowed: commands, tools"},
		{"tools: {}\ntools: {}\n", "t.yaml:2:1: key 'tools' given twice"},
		{"commands: [\n", "t.yaml:1:1: did not find expected node content"},
	} {
		_, err := Split("t.yaml", []byte(tc.src))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
		}
		if _, ok := err.(*Error); !ok {
			t.Errorf("%q: error of type %T, want *Error", tc.src, err)
		}
	}
}

func FuzzSplit(f *testing.F) {
	f.Add([]byte(both))
	f.Add([]byte("commands: {}\n"))
	f.Add([]byte("tools:\n  x: {}\n"))
	f.Add([]byte("a: &x [1]\nb: *x\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		_, err := Split("f.yaml", src)
		if err != nil && (!strings.HasPrefix(err.Error(), "f.yaml:") || strings.Contains(err.Error(), "\n")) {
			t.Errorf("error is not one line naming the file: %q", err)
		}
	})
}
