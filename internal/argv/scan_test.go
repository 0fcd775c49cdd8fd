package argv

import (
	"fmt"
	"strings"
	"testing"
)

// flags of the tables: a switch and a value flag with both kinds of
// names, a long-only switch and value, an optional value, a Bool switch,
// a single-dash long name.
var (
	fAll     = &Flag{Names: []string{"-a", "--all"}, About: "every one"}
	fLines   = &Flag{Names: []string{"--lines", "-n"}, Value: "NUM", About: "at most NUM"}
	fVerbose = &Flag{Names: []string{"-v"}}
	fNoop    = &Flag{Names: []string{"--no-op"}}
	fNote    = &Flag{Names: []string{"--note"}, Aliases: []string{"--not_e"}, Value: "TEXT"}
	fReplace = &Flag{Names: []string{"--replace"}, Value: "R", Optional: true, Implied: "{}"}
	fJSON    = &Flag{Names: []string{"--json"}, Bool: true}
	fStd     = &Flag{Names: []string{"-std"}, Value: "STD"}
	fScript  = &Flag{Names: []string{"-c"}, Value: "SCRIPT"}
)

func set(syntax Syntax, interleaved bool) *Set {
	return &Set{
		Command: "cmd", Syntax: syntax, Interleaved: interleaved,
		Flags:     []*Flag{fAll, fLines, fVerbose, fNoop, fNote, fReplace, fJSON, fStd, fScript},
		HelpWords: []string{"-h", "--help"},
		Numeric:   fLines,
	}
}

// render writes the items a scanner reads, one a word: "op:x",
// "--all", "-n=5" (a value), "--", "help", and a refusal's line.
func render(s *Set, args []string, opaque []bool) string {
	sc := s.ScanOpaque(args, opaque)
	var out []string
	for {
		it, ok := sc.Next()
		if !ok {
			return strings.Join(out, " ")
		}
		switch it.Kind {
		case Operand:
			w := "op:" + it.Word
			if it.Opaque {
				w += "?"
			}
			out = append(out, w)
		case FlagGiven:
			w := it.Flag.Names[0]
			if it.HasValue || it.Flag.Optional {
				w += "=" + it.Value
			}
			if it.Opaque {
				w += "?"
			}
			out = append(out, w)
		case EndOfFlags:
			out = append(out, "--")
		case HelpAsked:
			out = append(out, "help")
		case Refused:
			out = append(out, "["+it.Err.Error()+"]")
		}
	}
}

const pool = "-a/--all, -c, --json, -n/--lines, --no-op, --note, --replace, -std, -v"

func TestScan(t *testing.T) {
	for _, tc := range []struct {
		syntax      Syntax
		interleaved bool
		args        string // words split at spaces; ? ends an opaque word
		want        string
	}{
		// Exact: names whole, long ones with =VALUE.
		{Exact, true, "-a x --all", "-a op:x -a"},
		{Exact, true, "-n 5 --lines=6 -n -7 --lines --", "--lines=5 --lines=6 --lines=-7 --lines=--"},
		{Exact, true, "-std=c99 -std c11", "-std=c99 -std=c11"},
		{Exact, true, "-sv", "[cmd: unknown flag '-sv'; allowed: " + pool + "]"},
		{Exact, true, "-av", "[cmd: flags '-av' written as one word; allowed: -a -v]"},
		{Exact, true, "-n5", "[cmd: value glued to flag '-n5'; allowed: -n 5]"},
		{Exact, true, "-n=5", "[cmd: value glued to flag '-n=5'; allowed: -n 5]"},
		{Exact, true, "--all=x", "[cmd: flag '--all' takes no value; allowed: --all]"},
		{Exact, true, "--json=false", "--json=false"},
		{Exact, true, "--lin=5", "[cmd: unknown flag '--lin'; allowed: " + pool + "]"},
		{Exact, true, "-x=1=2", "[cmd: unknown flag '-x=1=2'; allowed: " + pool + "]"},
		{Exact, true, "--lines", "[cmd: flag '--lines' needs a value; allowed: --lines NUM]"},
		{Exact, true, "-h --help --help=x", "help help [cmd: unknown flag '--help'; allowed: " + pool + "]"},
		{Exact, true, "--zz x --all", "[cmd: unknown flag '--zz'; allowed: " + pool + "] op:x -a"},
		{Exact, true, "x -- -a", "op:x -- op:-a"},
		{Exact, true, "- -a", "op:- -a"},
		{Exact, true, "--not_e t", "--note=t"},
		{Exact, true, "-5", "[cmd: unknown flag '-5'; allowed: " + pool + "]"},
		{Exact, true, "-a? -n x? --? y", "op:-a? --lines=x? op:--? op:y"},
		// GNU: clusters, glued values, prefixes, -NUM.
		{GNU, true, "-av x -n5 -an 6", "-a -v op:x --lines=5 -a --lines=6"},
		{GNU, true, "--li=5 --all --al --no", "--lines=5 -a -a [cmd: ambiguous flag '--no'; allowed: --no-op, --note]"},
		{GNU, true, "--not_ 1", "--note=1"},
		{GNU, true, "-5 -x", "--lines=5 [cmd: unknown flag '-x'; allowed: " + pool + "]"},
		{GNU, true, "-axv", "-a [cmd: unknown flag '-x'; allowed: " + pool + "]"},
		{GNU, true, "--zz=1", "[cmd: unknown flag '--zz'; allowed: " + pool + "]"},
		{GNU, true, "--all=1", "[cmd: flag '--all' takes no value; allowed: --all]"},
		{GNU, true, "--replace --repl=x", "--replace={} --replace=x"},
		{GNU, true, "-an", "-a [cmd: flag '-n' needs a value; allowed: -n NUM]"},
		{GNU, true, "--help -h", "help [cmd: unknown flag '-h'; allowed: " + pool + "]"},
		{GNU, true, "a -a -- -v", "op:a -a -- op:-v"},
		{GNU, false, "-a a -v", "-a op:a op:-v"},
		{GNU, false, "-a -- -v", "-a -- op:-v"},
		{GNU, false, "-n? -a", "op:-n? op:-a"},
		{GNU, true, "-é", "[cmd: unknown flag '-é'; allowed: " + pool + "]"},
		// Go: one dash or two, =VALUE for any.
		{Go, false, "-json --all -lines 5 --c=S -c T", "--json -a --lines=5 -c=S -c=T"},
		{Go, false, "-json=false --json=0", "--json=false --json=0"},
		{Go, false, "--all=1", "[cmd: flag '--all' takes no value; allowed: --all]"},
		{Go, false, "-nosuch=1", "[cmd: unknown flag '--nosuch'; allowed: " + pool + "]"},
		{Go, false, "--x", "[cmd: unknown flag '-x'; allowed: " + pool + "]"},
		{Go, false, "---x", "[cmd: unknown flag '---x'; allowed: " + pool + "]"},
		{Go, false, "-=x", "[cmd: unknown flag '-=x'; allowed: " + pool + "]"},
		{Go, false, "-h --h -help --help=1", "help help help help"},
		{Go, false, "-lines", "[cmd: flag '--lines' needs a value; allowed: --lines NUM]"},
		{Go, false, "--lines -c x -", "--lines=-c op:x op:-"},
		{Go, false, "- -a", "op:- op:-a"},
		{Go, false, "-- -a", "-- op:-a"},
	} {
		var args []string
		var opaque []bool
		for _, w := range strings.Fields(tc.args) {
			op := len(w) > 1 && strings.HasSuffix(w, "?")
			args = append(args, strings.TrimSuffix(w, "?"))
			opaque = append(opaque, op)
		}
		if got := render(set(tc.syntax, tc.interleaved), args, opaque); got != tc.want {
			t.Errorf("syntax %d %q:\n got %s\nwant %s", tc.syntax, tc.args, got, tc.want)
		}
	}
}

func TestTakeAndPeek(t *testing.T) {
	sc := set(GNU, true).Scan([]string{"-av", "NAME", "VALUE", "x"})
	it, _ := sc.Next()
	if _, _, ok := sc.Peek(); ok || it.Flag != fAll {
		t.Fatalf("in a cluster: Peek ok, or %v", it.Flag)
	}
	sc.Next()
	for _, want := range []string{"NAME", "VALUE"} {
		if w, _, ok := sc.Take(); !ok || w != want {
			t.Fatalf("Take = %q, %v; want %q", w, ok, want)
		}
	}
	if it, _ := sc.Next(); it.Kind != Operand || it.Word != "x" || it.Index != 3 {
		t.Fatalf("after Take: %+v", it)
	}
	if _, _, ok := sc.Take(); ok {
		t.Fatal("Take at the end")
	}
}

func TestParse(t *testing.T) {
	a, err := set(GNU, true).Parse([]string{"x", "-an5", "y", "--all", "--", "-v"})
	if err != nil {
		t.Fatal(err)
	}
	var given []string
	for _, it := range a.Flags {
		given = append(given, it.Name+"="+it.Value)
	}
	if fmt.Sprint(a.Operands) != "[x y -v]" || fmt.Sprint(given) != "[-a= -n=5 --all=]" || a.Help {
		t.Errorf("Parse: %+v", a)
	}
	if a, err := set(GNU, true).Parse([]string{"--help", "--bogus"}); err != nil || !a.Help {
		t.Errorf("help first: %v %v", a, err)
	}
	_, err = set(GNU, true).Parse([]string{"--bogus", "--help"})
	if e, ok := err.(*Error); !ok || e.Problem != UnknownFlag || e.Word != "--bogus" {
		t.Errorf("refusal first: %#v", err)
	}
}

func TestHelp(t *testing.T) {
	s := &Set{
		Flags: []*Flag{
			{Names: []string{"--max-count", "-n"}, Value: "N", About: "limit the number of commits\nmore", Required: true},
			{Names: []string{"--since"}, Value: "DATE", Default: "forever", Repeatable: true},
			{Names: []string{"--a-very-long-flag-name-indeed"}, Value: "VALUE", About: "about on the next line"},
			{Names: []string{"--replace"}, Value: "R", Optional: true, About: strings.Repeat("word ", 16) + "end"},
			{Names: []string{"-h"}},
		},
		HelpWords: []string{"-h", "--help"},
	}
	want := `flags:
  -n, --max-count N  limit the number of commits (required)
  --since DATE       (repeatable, default: forever)
  --a-very-long-flag-name-indeed VALUE
                     about on the next line
  --replace[=R]      word word word word word word word word word word word word
                     word word word word end
  -h
  --help             print this help
`
	if got := s.Help(); got != want {
		t.Errorf("Help:\n%s\nwant:\n%s", got, want)
	}
	if got := (&Set{}).Help(); got != "" {
		t.Errorf("no flags: %q", got)
	}
}

// FuzzScan: no command line panics a scanner, every scan ends, each
// item moves on, and every refusal is one line.
func FuzzScan(f *testing.F) {
	for _, s := range []string{"-av x -n5", "--li=5 --no", "-- -a", "-json=false -c S", "-n", "---x -=y", "-é\x00\n"} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, line string, mode uint8) {
		args := strings.Split(line, " ")
		opaque := make([]bool, len(args))
		for i := range opaque {
			opaque[i] = mode&0x80 != 0 && i%3 == 1
		}
		s := set(Syntax(mode%3), mode&4 != 0)
		sc := s.ScanOpaque(args, opaque)
		for n := 0; ; n++ {
			if n > 2*len(line)+2 {
				t.Fatalf("%q: no end after %d items", line, n)
			}
			it, ok := sc.Next()
			if !ok {
				break
			}
			if it.Index < 0 || it.Index >= len(args) || it.Word != args[it.Index] {
				t.Fatalf("%q: item %+v not at its word", line, it)
			}
			if it.Kind == Refused && strings.ContainsAny(it.Err.Error(), "\n\r") {
				t.Fatalf("%q: refusal spans lines: %q", line, it.Err.Error())
			}
		}
		_ = s.Help()
	})
}
