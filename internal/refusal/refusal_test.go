package refusal_test

import (
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/internal/refusal"
)

func TestLine(t *testing.T) {
	for _, tc := range []struct {
		command, what string
		allowed       []string
		want          string
	}{
		{"git", "unknown verb " + refusal.Quote("push"), []string{"status", "log", "diff", "log"},
			"git: unknown verb 'push'; allowed: diff, log, status"},
		{"git log", "unknown flag " + refusal.Quote("--output"), []string{"--since", "-n/--max-count", "--oneline", "--all"},
			"git log: unknown flag '--output'; allowed: --all, -n/--max-count, --oneline, --since"},
		{"cd", "path " + refusal.Quote("/") + " is outside the root", nil,
			"cd: path '/' is outside the root; allowed: (none)"},
	} {
		if got := refusal.Line(tc.command, tc.what, tc.allowed); got != tc.want {
			t.Errorf("Line(%q, %q, %q)\n got %s\nwant %s", tc.command, tc.what, tc.allowed, got, tc.want)
		}
	}
}

func TestShow(t *testing.T) {
	long := strings.Repeat("é", 100)
	for in, want := range map[string]string{
		"plain word":  "plain word",
		"two\nlines":  `two\nlines`,
		"tab\there":   `tab\there`,
		"\x1b[31mred": `\x1b[31mred`,
		"bad\xffutf8": `bad\xffutf8`,
		long:          strings.Repeat("é", 80) + "…",
	} {
		if got := refusal.Show(in); got != want {
			t.Errorf("Show(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzQuote(f *testing.F) {
	f.Add("push")
	f.Add("a\nb\x00c")
	f.Fuzz(func(t *testing.T, s string) {
		q := refusal.Quote(s)
		if strings.ContainsAny(q, "\n\r") {
			t.Fatalf("Quote(%q) = %q spans lines", s, q)
		}
		if n := len([]rune(q)); n > 2+maxShown {
			t.Fatalf("Quote(%q) is %d runes", s, n)
		}
	})
}

// maxShown is the most runes Show renders: 80 escaped runes and the
// ellipsis.
const maxShown = 81
