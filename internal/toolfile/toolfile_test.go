package toolfile

import (
	"os"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

const both = `commands:
  say:
    executable: /bin/echo
    verbs:
      hi: {}
tools:
  ping:
    description: Answer pong.
    input: {type: object}
    run: [/bin/cat]
`

func TestParseBothSections(t *testing.T) {
	tools, err := Parse("t.yaml", []byte(both), os.Getenv("PATH"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || tools[0].Name() != "say" || tools[0].Kind() != kernel.Wrapped || tools[1].Name() != "ping" || tools[1].Kind() != kernel.Harness {
		t.Fatalf("tools: %v", tools)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"", "t.yaml:1:1: empty file; want a mapping with the keys commands and/or tools"},
		{"- a\n", "t.yaml:1:1: want a mapping with the keys commands and/or tools"},
		{"commands: {}\nextras: 1\n", "t.yaml:2:1: unknown key 'extras'; allowed: commands, tools"},
		{"tools: {}\ntools: {}\n", "t.yaml:2:1: key 'tools' given twice"},
		{"commands: [\n", "t.yaml: yaml: line 1: did not find expected node content"},
	} {
		_, err := Parse("t.yaml", []byte(tc.src), "")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(both))
	f.Add([]byte("commands: {}\n"))
	f.Add([]byte("tools:\n  x: {}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		tools, err := Parse("f.yaml", src, "/usr/bin:/bin")
		if err != nil && !strings.HasPrefix(err.Error(), "f.yaml") {
			t.Errorf("error does not name the file: %v", err)
		}
		_ = tools
	})
}
