package bashcompat

import "testing"

// setQuote quotes as bash's set does.
func TestSetQuote(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "abc": "abc", "x=y": "x=y", "a#b": "a#b", "a%b": "a%b", "é": "é", "a.b/c-d_e,f+g@h": "a.b/c-d_e,f+g@h",
		"a b": "'a b'", "it's": `'it'\''s'`, "#x": "'#x'", "~x": "'~x'", "a:~b": "'a:~b'", "a=~b": "'a=~b'",
		"a}b": "'a}b'", "a^b": "'a^b'", "a!b": "'a!b'", "$x": "'$x'",
		"a\nb": `$'a\nb'`, "\xff": `$'\377'`, "a\u200bb": "a\u200bb", "\x01": `$'\001'`, "a\tb\x7f": `$'a\tb\177'`,
	} {
		if got := setQuote(in); got != want {
			t.Errorf("setQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
