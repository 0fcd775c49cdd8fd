package static

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// notes are the messages of the gaps src shows, walked as the kernel's
// static pass walks it.
func notes(t *testing.T, src string) []string {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatal(err)
	}
	var c GapCheck
	c.Reset(f, nil)
	shast.WalkBranches(f, c.Visit)
	var out []string
	for _, n := range c.Notes() {
		out = append(out, n.Gap.Construct)
	}
	return out
}

// A divisor with side effects is noted wherever the division stands,
// and a plain one is not.
func TestArithSideDivisor(t *testing.T) {
	for src, want := range map[string]bool{
		"echo $(( a / (b++) ))":                 true,
		"echo $(( a % $(echo 1) ))":             true,
		"echo $(( a / ${x:-$((b++))} ))":        true,
		"x=$(( 1 + $(( a / c-- )) ))":           true,
		"echo $(( a / (b = 2) ))":               true,
		"echo $(( -a / -(b += 1) ))":            true,
		"echo $(( a / b ))":                     false,
		"echo $(( a++ / b ))":                   false,
		"echo $(( a / \"$b\" )) $(( c * d-- ))": false,
	} {
		got := false
		for _, n := range notes(t, src) {
			got = got || n == gapArithSideDiv.Construct
		}
		if got != want {
			t.Errorf("%s: noted %v, want %v", src, got, want)
		}
	}
}
