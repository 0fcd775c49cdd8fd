// Package refusaltest checks refusals for the voice of package refusal,
// for the tables of refusals in the tests of the packages that refuse.
package refusaltest

import (
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/internal/refusal"
)

// Check reports on t where line, a refusal of command whose parts are
// what and allowed, is not in the voice of every refusal: one line, the
// command first, the offending word (when word is not "") quoted in what,
// then "allowed:" and the pool, sorted, or "(none)".
func Check(t testing.TB, line, command, what string, allowed []string, word string) {
	t.Helper()
	if strings.ContainsAny(line, "\n\r") {
		t.Errorf("%q spans lines", line)
	}
	if !strings.HasPrefix(line, command+": ") {
		t.Errorf("%q does not start with its command %q", line, command)
	}
	if word != "" && !strings.Contains(what, refusal.Quote(word)) {
		t.Errorf("%q does not quote %q", what, word)
	}
	if !strings.HasSuffix(line, "; allowed: "+refusal.Pool(allowed)) {
		t.Errorf("%q does not end with its pool %q", line, refusal.Pool(allowed))
	}
}
