package static

import (
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// replacer is a tool that replaces commands, as a harness tool does.
func replacer(name, desc string, replaces ...string) Tool {
	return Tool{Name: name, Description: func() string { return desc }, Replaces: replaces}
}

// testGuard is the guard of tools sorted by name, as the kernel gives them.
func testGuard() *Guard {
	return NewGuard([]Tool{
		replacer("fetch", "Fetch a URL.", "HOSTALIASES", "sudo"),
		replacer("git", "A tool shadowing git.", "git"),
		replacer("logs", "Read a unit's journal. Use instead of: journalctl, systemctl status.", "journalctl", "systemctl status"),
		replacer("remote", "Add a remote.", "/usr/bin/git remote  add"),
		replacer("svc", "Restart a unit.", "systemctl restart"),
	})
}

// words reads a command line whose words are separated by spaces; a word
// "$" is opaque.
func words(line string) []shast.Word {
	var out []shast.Word
	for _, f := range strings.Fields(line) {
		if f == "$" {
			out = append(out, shast.Word{Opaque: true})
			continue
		}
		out = append(out, shast.Word{Text: f})
	}
	return out
}

func TestGuardMatchCommand(t *testing.T) {
	g := testGuard()
	tests := []struct {
		line string
		tool string // "" when nothing matches
	}{
		{"journalctl", "logs"},
		{"journalctl -u nginx", "logs"},
		{"/usr/bin/journalctl -f", "logs"},
		{"systemctl status nginx", "logs"},
		{"systemctl --user status x", "logs"},
		{"systemctl restart x", "svc"},
		{"systemctl --user restart x", "svc"},
		{"systemctl restart", "svc"},
		{"systemctl stop x", ""},
		{"systemctl x restart", "svc"},
		{"systemctl", ""},
		{"echo journalctl", ""},
		{"journalctlx", ""},
		{"command journalctl", "logs"},
		{"env journalctl", ""}, // no env registered: refused as a launcher, not by the guard
		{"command -p journalctl", "logs"},
		{"command -v journalctl", ""},
		{"command -V journalctl", ""},
		{"exec journalctl", "logs"},
		{"exec -a name journalctl", "logs"},
		{"sudo journalctl", "fetch"}, // the entry "sudo" matches before unwrapping
		{"$ journalctl", ""},
		{"journalctl $", "logs"},
		{"systemctl $ restart", "svc"},
		{"systemctl $", ""},
		{"git push", ""}, // a tool never refuses its own name
		{"git remote add origin u", "remote"},
		{"git -C /x remote -v add o u", "remote"},
		{"/opt/git remote add", "remote"},
		{"git add remote", ""}, // the entry's words, out of order
		{"git remote", ""},
		{"git remote remove add", "remote"},
	}
	for _, tt := range tests {
		e, ok := g.MatchCommand(words(tt.line))
		got := ""
		if ok {
			got = e.Tool()
		}
		if got != tt.tool {
			t.Errorf("MatchCommand(%q) = %q, want %q", tt.line, got, tt.tool)
		}
	}
}

func TestGuardVariables(t *testing.T) {
	g := testGuard()
	if e, ok := g.MatchVar("HOSTALIASES"); !ok || e.Tool() != "fetch" {
		t.Errorf("MatchVar(HOSTALIASES) = %v, %v", e.tool, ok)
	}
	for _, name := range []string{"hostaliases", "HOSTALIASES_X", "PATH"} {
		if _, ok := g.MatchVar(name); ok {
			t.Errorf("MatchVar(%q) matched", name)
		}
	}
	if _, ok := g.MatchCommand(words("HOSTALIASES")); ok {
		t.Error("a variable entry matched a command")
	}
}

func TestUnwrapLaunchers(t *testing.T) {
	tests := []struct {
		line, inner string
		assigns     []string
	}{
		{"journalctl -u x", "journalctl -u x", nil},
		{"command -v x", "command -v x", nil},
		{"sudo -- cmd", "cmd", nil},
		{"sudo -u root B=2 command -p exec -a n cmd a", "cmd a", []string{"B"}},
		// A launcher that is no registered tool is not looked through:
		// it is refused on its own (UnregisteredLauncherError).
		{"env A=1 cmd", "env A=1 cmd", nil},
		{"timeout 5 cmd", "timeout 5 cmd", nil},
	}
	for _, tt := range tests {
		inner, assigns := testGuard().unwrapLaunchers(words(tt.line))
		if got := WordsText(inner); got != tt.inner || strings.Join(assigns, ",") != strings.Join(tt.assigns, ",") {
			t.Errorf("unwrapLaunchers(%q) = %q %v, want %q %v", tt.line, got, assigns, tt.inner, tt.assigns)
		}
	}
}

func TestGuardLine(t *testing.T) {
	g := testGuard()
	e, _ := g.MatchCommand(words("journalctl -u nginx"))
	const want = "shelter: 'journalctl -u nginx' is done with the tool 'logs' here (Read a unit's journal.); call logs instead — nothing ran"
	if got := e.Line("journalctl -u nginx", "nothing ran"); got != want {
		t.Errorf("Line:\n got %s\nwant %s", got, want)
	}
	// A word holding a newline (an xargs -0 item) keeps the line one line.
	const escaped = `shelter: 'journalctl x\n' is done with the tool 'logs' here (Read a unit's journal.); call logs instead — it did not run`
	if got := e.Line("journalctl x\n", "it did not run"); got != escaped {
		t.Errorf("Line with a newline:\n got %s\nwant %s", got, escaped)
	}
	// A tool without a description is named without empty parentheses.
	fetch := replacer("fetch", "Use instead of: curl.")
	bare := Entry{words: []string{"curl"}, tool: &fetch}
	const plain = "shelter: 'curl x' is done with the tool 'fetch' here; call fetch instead — nothing ran"
	if got := bare.Line("curl x", "nothing ran"); got != plain {
		t.Errorf("Line without a description:\n got %s\nwant %s", got, plain)
	}
}

func TestGuardEmpty(t *testing.T) {
	var nilGuard *Guard
	for _, g := range []*Guard{nilGuard, NewGuard(nil), NewGuard([]Tool{replacer("x", "", "", "  ")})} {
		if _, ok := g.MatchCommand(words("journalctl")); ok {
			t.Error("an empty guard matched")
		}
		if _, ok := g.MatchVar("HOSTALIASES"); ok {
			t.Error("an empty guard matched a variable")
		}
	}
}
