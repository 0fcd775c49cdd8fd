package jsonquote

import (
	"bytes"
	"encoding/json"
	"testing"
)

// stdlib is s as encoding/json's Encoder writes it without HTML escaping.
func stdlib(t testing.TB, s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

var cases = []string{
	"", "hi\n", `a "quoted" \ back`, "<a&b>", "tab\there\r\n", "\x00\x01\x1f\x7f",
	"\b\f", "é ü 日本", "\u2028 and \u2029", "bad \xff\xfe utf-8", "cut \xe2\x80",
	"\xed\xa0\x80 surrogate", "emoji 😀",
}

func TestAppend(t *testing.T) {
	for _, s := range cases {
		if got, want := string(Append(nil, s)), stdlib(t, s); got != want {
			t.Errorf("Append(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range cases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(Append([]byte("x"), s)), "x"+stdlib(t, s); got != want {
			t.Errorf("Append(%q) = %s, want %s", s, got, want)
		}
	})
}
