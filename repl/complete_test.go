package repl

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

func TestComplete(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "my file.txt"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "it's"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, `say "hi"`), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	os.Mkdir(filepath.Join(dir, "my dir"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "main.go"), nil, 0o644)
	cmds, err := wrapped.LoadFile(filepath.Join("..", "examples", "tools.yaml"), wrapped.LoadOptions{Path: os.Getenv("PATH")})
	if err != nil {
		t.Skipf("examples/tools.yaml: %v", err)
	}
	cfg, _ := kernel.Preset(kernel.ProfileHost)
	for _, c := range cmds {
		cfg.Tools = append(cfg.Tools, c)
	}
	k, err := kernel.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: dir, Env: map[string]string{
		"REPL_TEST_VAR": "1",
		"PATH":          os.Getenv("PATH"),
		"HOME":          dir,
		"SRC":           filepath.Join(dir, "src"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Run(t.Context(), "greet() { :; }", kernel.RunOptions{})

	for _, tc := range []struct {
		line string
		word string   // the word as typed, which the candidates replace
		want []string // words that must be offered
		not  []string // words that must not
	}{
		{"git sta", "sta", []string{"status"}, []string{"state"}},
		{"git status --porc", "--porc", []string{"--porcelain"}, nil},
		{"git log -", "-", []string{"--oneline", "-n", "--max-count"}, []string{"--porcelain"}},
		{"git -", "-", []string{"--version"}, nil},
		{"cat no", "no", []string{"notes.txt"}, nil},
		{"cat src/", "src/", []string{"src/main.go"}, nil},
		{"ls s", "s", []string{"src/", `say\ \"hi\"`}, nil},
		{"gre", "gre", []string{"greet", "grep"}, nil},
		{"echo hi | gi", "gi", []string{"git"}, nil},
		{"echo hi|gi", "gi", []string{"git"}, nil},
		{"echo $REPL_T", "$REPL_T", []string{"$REPL_TEST_VAR"}, nil},
		{"echo ${HO", "${HO", []string{"${HOME}"}, nil},
		{`echo "$REPL_T`, `"$REPL_T`, []string{`"$REPL_TEST_VAR`}, nil},
		{"echo a$REPL_T", "a$REPL_T", []string{"a$REPL_TEST_VAR"}, nil},
		{"X=1 ec", "ec", []string{"echo"}, nil},

		// Quoting: what is inserted is quoted as the word typed is.
		{"cat my", "my", []string{`my\ file.txt`, `my\ dir/`}, []string{"my file.txt"}},
		{`cat my\ f`, `my\ f`, []string{`my\ file.txt`}, nil},
		{`cat "my f`, `"my f`, []string{`"my file.txt"`}, nil},
		{`cat "my d`, `"my d`, []string{`"my dir/`}, nil},
		{`cat 'my f`, `'my f`, []string{`'my file.txt'`}, nil},
		{"cat it", "it", []string{`it\'s`}, nil},
		{`cat 'it`, `'it`, []string{`'it'\''s'`}, nil},
		{`cat "say`, `"say`, []string{`"say \"hi\""`}, nil},
		{`cat my\`, `my\`, []string{`my\ file.txt`}, nil},
		{`cat "no" my\ d`, `my\ d`, []string{`my\ dir/`}, nil},

		// $VAR/ and ~/ are expanded for paths; a $ before the last
		// segment does not make the word a variable's name.
		{"cat $SRC/ma", "$SRC/ma", []string{"$SRC/main.go"}, nil},
		{"cat ${SRC}/ma", "${SRC}/ma", []string{"${SRC}/main.go"}, nil},
		{`cat "$SRC"/ma`, `"$SRC"/ma`, []string{`"$SRC"/main.go`}, nil},
		{"cat ~/no", "~/no", []string{"~/notes.txt"}, nil},
		{"cat $HOME/no", "$HOME/no", []string{"$HOME/notes.txt"}, nil},
		{"cat '$SRC/ma", "'$SRC/ma", nil, []string{"'$SRC/main.go'"}},
		{"cat --file=no", "--file=no", []string{"--file=notes.txt"}, nil},

		// Command position after reserved words and operators.
		{"if gre", "gre", []string{"grep"}, nil},
		{"while gre", "gre", []string{"grep"}, nil},
		{"until gre", "gre", []string{"grep"}, nil},
		{"time gre", "gre", []string{"grep"}, nil},
		{"! gre", "gre", []string{"grep"}, nil},
		{"if true; then gre", "gre", []string{"grep"}, nil},
		{"(gre", "gre", []string{"grep"}, nil},
		{"echo $(gre", "gre", []string{"grep"}, nil},
		{"echo if gre", "gre", nil, []string{"grep"}},
		{"echo no", "no", []string{"notes.txt"}, []string{"nohup"}},
		{"echo hi > no", "no", []string{"notes.txt"}, []string{"nohup"}},
		{"> out ec", "ec", []string{"echo"}, nil},
		{"echo hi >no", "no", []string{"notes.txt"}, []string{"nohup"}},
		{"echo hi # a comment\nec", "ec", []string{"echo"}, nil},
	} {
		word, cands := Complete(s, tc.line, len([]rune(tc.line)))
		if word != tc.word {
			t.Errorf("%q: the word is %q, want %q", tc.line, word, tc.word)
		}
		var got []string
		for _, c := range cands {
			got = append(got, c.Word)
			if !strings.HasPrefix(c.Word, word) {
				t.Errorf("%q: candidate %q does not start with the word %q", tc.line, c.Word, word)
			}
		}
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: %q not offered; got %q", tc.line, w, got)
			}
		}
		for _, w := range tc.not {
			if slices.Contains(got, w) {
				t.Errorf("%q: %q offered; got %q", tc.line, w, got)
			}
		}
	}
}

func TestSplitLine(t *testing.T) {
	for _, tc := range []struct {
		src   string
		prior []string // values; operators in brackets
		raw   string
		value string
		quote quoting
	}{
		{"echo a b", []string{"echo", "a"}, "b", "b", unquoted},
		{"echo 'a b' c", []string{"echo", "a b"}, "c", "c", unquoted},
		{`echo "a\"b" 'c`, []string{"echo", `a"b`}, "'c", "c", inSingle},
		{`echo a\ b"c d`, []string{"echo"}, `a\ b"c d`, "a bc d", inDouble},
		{"a&&b;c|d", []string{"a", "[&&]", "b", "[;]", "c", "[|]"}, "d", "d", unquoted},
		{"echo $V/x ", []string{"echo", "val/x"}, "", "", unquoted},
		{`echo '$V' "$V" \$V`, []string{"echo", "$V", "val"}, `\$V`, "$V", unquoted},
		{"echo a # b c", []string{"echo", "a"}, "", "", unquoted},
		{"echo a#b", []string{"echo"}, "a#b", "a#b", unquoted},
	} {
		prior, last := splitLine(tc.src, map[string]string{"V": "val"})
		var got []string
		for _, p := range prior {
			if p.op {
				got = append(got, "["+p.value+"]")
			} else {
				got = append(got, p.value)
			}
		}
		if !slices.Equal(got, tc.prior) || last.raw != tc.raw || last.value != tc.value || last.quote != tc.quote {
			t.Errorf("splitLine(%q) = %q, last %q (value %q, quote %q); want %q, %q (%q, %q)",
				tc.src, got, last.raw, last.value, last.quote, tc.prior, tc.raw, tc.value, tc.quote)
		}
	}
}
