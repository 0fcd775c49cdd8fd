package workspace

import (
	"strings"
	"testing"
)

func FuzzParseProviders(f *testing.F) {
	f.Add([]byte(defaultConfig()["providers.yaml"]))
	f.Add([]byte("roles: {a: {tools: [x, y]}}\n"))
	f.Add([]byte("roles: {a: {color: red}}\n"))
	f.Add([]byte("roles: [1, 2]\n"))
	f.Add([]byte("&a [*a]"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProviders(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			return
		}
		if p == nil {
			t.Error("nil Providers without error")
		}
	})
}

func FuzzParseWorkflow(f *testing.F) {
	f.Add([]byte("budgets: {max_depth: 3}\n"))
	f.Add([]byte("budgets: {max_depth: -1}\n"))
	f.Add([]byte("budgets: {max_depth: 1.5}\n"))
	f.Add([]byte("other: true\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ParseWorkflow(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			return
		}
		if m := w.Budgets.MaxDepth; m != nil && *m < 0 {
			t.Errorf("negative max_depth accepted")
		}
	})
}

func FuzzIDAndName(f *testing.F) {
	f.Add("20260301T120000Z-0000abcd")
	f.Add("20260301T120000Z-0000abcd-20260301T120001Z-ffffffff")
	f.Add("20260301T120000Z-0000ABCD")
	f.Add("pale-otter")
	f.Add("a/b")
	f.Add("..")
	f.Add("a b")
	f.Fuzz(func(t *testing.T, s string) {
		d, p := Depth(s), Parent(s)
		switch {
		case !IsID(s):
			if d != -1 || p != "" {
				t.Errorf("non-id %q: Depth %d, Parent %q", s, d, p)
			}
		case d == 0:
			if p != "" {
				t.Errorf("root %q has parent %q", s, p)
			}
		default:
			if !IsID(p) || Depth(p) != d-1 || !strings.HasPrefix(s, p+"-") {
				t.Errorf("id %q: parent %q depth %d", s, p, d)
			}
		}
		if err := checkAgentName(s); err == nil {
			if IsID(s) || strings.ContainsAny(s, "/ \t\n\x00") || s == "" || s == "." || s == ".." {
				t.Errorf("name %q accepted", s)
			}
		} else if strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
			t.Errorf("refusal is not one line: %q", err)
		}
	})
}

func TestIDGrammar(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		id     string
		depth  int
		parent string
	}{
		{"20260301T120000Z-0000abcd", 0, ""},
		{"20260301T120000Z-0000abcd-20260301T120001Z-ffffffff", 1, "20260301T120000Z-0000abcd"},
		{"20260301T120000Z-0000abcd-20260301T120001Z-ffffffff-20260301T120002Z-00000001", 2, "20260301T120000Z-0000abcd-20260301T120001Z-ffffffff"},
		{"20260301T120000Z-0000ABCD", -1, ""},
		{"20260301T120000Z-0000abc", -1, ""},
		{"20260301T120000-0000abcd", -1, ""},
		{"20260301T120000Z-0000abcd-", -1, ""},
		{"pale-otter", -1, ""},
		{"", -1, ""},
	} {
		if d, p := Depth(tt.id), Parent(tt.id); d != tt.depth || p != tt.parent {
			t.Errorf("%q: Depth %d Parent %q; want %d %q", tt.id, d, p, tt.depth, tt.parent)
		}
	}
}

func TestParseProvidersStrict(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, err string }{
		{"roles:\n  w: {provider: p, model: m, tools: [a]}\n", ""},
		{"roles:\n  w: {provider: p, colour: red}\n", "yaml: unmarshal errors: line 2: field colour not found in type workspace.Role"},
		{"rolez: {}\n", "yaml: unmarshal errors: line 1: field rolez not found in type workspace.Providers"},
		{"roles: [a]\n", "yaml: unmarshal errors: line 1: cannot unmarshal !!seq into map[string]workspace.Role"},
	} {
		_, err := ParseProviders([]byte(tt.in))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.err {
			t.Errorf("%q: got %q, want %q", tt.in, got, tt.err)
		}
	}
}
