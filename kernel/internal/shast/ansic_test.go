package shast

import (
	"strings"
	"testing"
)

// Each row was checked with bash 5.2: printf %s $'…' | od -c.
func TestDecodeANSIC(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`\x41\x{42}`, "AB"},
		{`\x{263a}`, ":"},
		{`\x4g`, "\x04g"},
		{`\cA\ca\c[\c?`, "\x01\x01\x1b\x7f"},
		{`\101\0102`, "A\x082"},
		{`a\'b\"c\?`, `a'b"c?`},
		{`\u00e9\U0001F600`, "é😀"},
		{`\q\`, `\q\`},
		{`a\0b`, "a"},
		{`\e\E\t`, "\x1b\x1b\t"},
	} {
		if got := DecodeANSIC(tc.in); got != tc.want {
			t.Errorf("DecodeANSIC(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzDecodeANSIC(f *testing.F) {
	for _, s := range []string{`\x{41}`, `\cA`, `\u263a`, `\0101`, `\x`, `\c`, `\x{`, `\U`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if out := DecodeANSIC(s); strings.IndexByte(out, 0) >= 0 {
			t.Fatalf("DecodeANSIC(%q) holds a NUL: %q", s, out)
		}
	})
}
