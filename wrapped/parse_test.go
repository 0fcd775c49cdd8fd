package wrapped_test

import (
	"reflect"
	"strings"
	"testing"
)

// parseCase is a call and what it becomes: the argv after the executable,
// or the refusal line, or help.
type parseCase struct {
	name string
	call string // words separated by |, command name first
	argv []string
	line string
	help bool
}

func words(call string) []string {
	if call == "" {
		return nil
	}
	return strings.Split(call, "|")
}

func runParseCases(t *testing.T, cases []parseCase) {
	t.Helper()
	cmds := loadFixture(t, t.TempDir())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := words(tc.call)
			plan, err := cmds[w[0]].Plan(w[1:], "/")
			switch {
			case tc.line != "":
				if err == nil || err.Error() != tc.line {
					t.Fatalf("got %v, %v; want refusal %s", plan, err, tc.line)
				}
			case err != nil:
				t.Fatalf("refused: %v", err)
			case tc.help:
				if !plan.Help || plan.Argv != nil {
					t.Fatalf("want help, got %+v", plan)
				}
			default:
				if plan.Help {
					t.Fatalf("got help, want %q", tc.argv)
				}
				if plan.Argv[0] != helper || plan.Path != helper {
					t.Errorf("executable: %s %s", plan.Path, plan.Argv[0])
				}
				if got := plan.Argv[1:]; !reflect.DeepEqual(got, tc.argv) && !(len(got) == 0 && len(tc.argv) == 0) {
					t.Errorf("argv: got %q, want %q", got, tc.argv)
				}
			}
		})
	}
}

// Parsing, step 1: the verb.
func TestParseVerb(t *testing.T) {
	runParseCases(t, []parseCase{
		{name: "named verb", call: "git|log", argv: []string{"log"}},
		{name: "case-sensitive", call: "git|Log", line: "git: unknown verb 'Log'; allowed: commit, diff, log, push, status"},
		{name: "no prefixes", call: "git|lo", line: "git: unknown verb 'lo'; allowed: commit, diff, log, push, status"},
		{name: "no words", call: "git", line: "git: no verb given; allowed: commit, diff, log, push, status"},
		{name: "flag first", call: "git|-n|5|log", line: "git: no verb given; allowed: commit, diff, log, push, status"},
		{name: "dash alone first", call: "git|-", line: "git: no verb given; allowed: commit, diff, log, push, status"},
		{name: "root takes an unknown word as a positional", call: "tool|other", argv: []string{"other"}},
		{name: "root takes no words", call: "tool", argv: []string{}},
		{name: "root takes a flag first", call: "tool|--version|sub", argv: []string{"--version", "sub"}},
		{name: "named verb beside a root", call: "tool|sub|-x", argv: []string{"sub", "-x"}},
		{name: "root-only command", call: "python", argv: []string{}},
	})
}

// Parsing, step 2: flags.
func TestParseFlags(t *testing.T) {
	runParseCases(t, []parseCase{
		{name: "long value inline", call: "probe|run|--name=v", argv: []string{"--lead", "run", "--verb-lead", "--name=v"}},
		{name: "split at the first =", call: "probe|run|--name=a=b", argv: []string{"--lead", "run", "--verb-lead", "--name=a=b"}},
		{name: "empty inline value", call: "probe|run|--name=", argv: []string{"--lead", "run", "--verb-lead", "--name="}},
		{name: "long value next word", call: "probe|run|--name|v", argv: []string{"--lead", "run", "--verb-lead", "--name=v"}},
		{name: "no split for one-letter spellings", call: "probe|run|-m=x", line: "probe run: value glued to flag '-m=x'; allowed: -m x"},
		{name: "single-dash long spelling", call: "probe|run|-std=c99", argv: []string{"--lead", "run", "--verb-lead", "-std=c99"}},
		{name: "single-dash long spelling, separate", call: "probe|run|-std|c99", argv: []string{"--lead", "run", "--verb-lead", "-std=c99"}},
		{name: "alias", call: "probe|run|-N|v", argv: []string{"--lead", "run", "--verb-lead", "--name=v"}},
		{name: "exact spelling only", call: "probe|run|--nam=v", line: "probe run: unknown flag '--nam'; allowed: -N/--name, --level, -m, --mode, -n, -s, -std, --tag, -v, -x"},
		{name: "value that looks like a flag", call: "probe|run|-m|-foo", argv: []string{"--lead", "run", "--verb-lead", "-m", "-foo"}},
		{name: "value --", call: "probe|run|-m|--", argv: []string{"--lead", "run", "--verb-lead", "-m", "--"}},
		{name: "value --help", call: "probe|run|--name|--help", argv: []string{"--lead", "run", "--verb-lead", "--name=--help"}},
		{name: "missing value", call: "probe|run|-m", line: "probe run: flag '-m' needs a value; allowed: -m VALUE"},
		{name: "missing value under an alias", call: "probe|run|-N", line: "probe run: flag '-N' needs a value; allowed: -N VALUE"},
		{name: "switch with a value", call: "git|log|--oneline=", line: "git log: flag '--oneline' takes no value; allowed: --oneline"},
		{name: "repeated", call: "probe|run|-s|-s", line: "probe run: flag '-s' given more than once; allowed: one -s"},
		{name: "repeated across spellings", call: "probe|run|-N|a|--name=b", line: "probe run: flag '--name' given more than once; allowed: one --name"},
		{name: "repeatable", call: "probe|run|--tag|a|--tag=b", argv: []string{"--lead", "run", "--verb-lead", "--tag=a", "--tag=b"}},
		{name: "forward keeps an unknown flag in place", call: "probe|fwd|--zz|-q|x|--keep=1|-s", argv: []string{"--lead", "fwd", "--zz", "-q", "x", "--keep=1", "-s"}},
		{name: "forward keeps a cluster as written", call: "probe|fwd|-ss", argv: []string{"--lead", "fwd", "-ss"}},
		{name: "clustered switches", call: "probe|run|-vs", line: "probe run: flags '-vs' written as one word; allowed: -v -s"},
		{name: "cluster with a value flag is glued", call: "probe|run|-ns", line: "probe run: value glued to flag '-ns'; allowed: -n s"},
		{name: "cluster with a switch first is unknown", call: "probe|run|-sn", line: "probe run: unknown flag '-sn'; allowed: -N/--name, --level, -m, --mode, -n, -s, -std, --tag, -v, -x"},
		{name: "glued value", call: "git|log|-n5", line: "git log: value glued to flag '-n5'; allowed: -n 5"},
		{name: "unknown flag", call: "git|log|--output=x", line: "git log: unknown flag '--output'; allowed: -n/--max-count, --oneline, --since"},
		{name: "dash alone is a positional", call: "probe|run|-", argv: []string{"--lead", "run", "--verb-lead", "-"}},
	})
}

// Parsing, steps 3–5: positionals, --, extra words.
func TestParsePositionals(t *testing.T) {
	runParseCases(t, []parseCase{
		{name: "slots in order, many takes the rest", call: "probe|run|a|b|c", argv: []string{"--lead", "run", "--verb-lead", "a", "b", "c"}},
		{name: "flags between positionals", call: "probe|run|a|-s|b", argv: []string{"--lead", "run", "--verb-lead", "a", "-s", "b"}},
		{name: "-- kept in place; later words positional", call: "probe|run|--|-s|--name=x", argv: []string{"--lead", "run", "--verb-lead", "--", "-s", "--name=x"}},
		{name: "a second -- is a word", call: "probe|run|--|a|--", argv: []string{"--lead", "run", "--verb-lead", "--", "a", "--"}},
		{name: "deny refuses extra words", call: "tool|a|b", line: "tool: unexpected argument 'b'; allowed: (none)"},
		{name: "deny refuses extra words after --", call: "tool|--|a|b", line: "tool: unexpected argument 'b'; allowed: (none)"},
		{name: "after-dash-dash accepts after --", call: "probe|dash|one|--|two|-s", argv: []string{"--lead", "dash", "one", "--", "two", "-s"}},
		{name: "after-dash-dash: -- fills the slot first", call: "probe|dash|--|one|two", argv: []string{"--lead", "dash", "--", "one", "two"}},
		{name: "after-dash-dash refuses before --", call: "probe|dash|one|two", line: "probe dash: unexpected argument 'two'; allowed: -- before arguments meant for the program"},
		{name: "forward accepts anywhere", call: "probe|fwd|a|-s|b", argv: []string{"--lead", "fwd", "a", "-s", "b"}},
		{name: "no positionals declared", call: "git|commit|-m|x|extra", line: "git commit: unexpected argument 'extra'; allowed: (none)"},
	})
}

// Parsing, step 6 (checks) and 7 (help).
func TestParseChecks(t *testing.T) {
	runParseCases(t, []parseCase{
		{name: "int negative", call: "git|log|-n|-5", argv: []string{"log", "--max-count=-5"}},
		{name: "int with plus", call: "git|log|-n|+5", argv: []string{"log", "--max-count=+5"}},
		{name: "int hex refused", call: "git|log|-n|0x10", line: "git log: invalid --max-count '0x10'; allowed: a base-10 integer"},
		{name: "int beyond 64 bits refused", call: "git|log|-n|9223372036854775808", line: "git log: invalid --max-count '9223372036854775808'; allowed: a base-10 integer"},
		{name: "int max", call: "git|log|-n|9223372036854775807", argv: []string{"log", "--max-count=9223372036854775807"}},
		{name: "int fraction refused", call: "git|log|--max-count=1.5", line: "git log: invalid --max-count '1.5'; allowed: a base-10 integer"},
		{name: "int empty refused", call: "git|log|--max-count=", line: "git log: invalid --max-count ''; allowed: a base-10 integer"},
		{name: "choice", call: "git|status|--untracked-files=all", argv: []string{"status", "--untracked-files=all"}},
		{name: "choices are exact", call: "git|status|--untracked-files=ALL", line: "git status: invalid --untracked-files 'ALL'; allowed: all, no, normal"},
		{name: "choices after integers", call: "probe|run|--mode|bad|-n|x", line: "probe run: invalid -n 'x'; allowed: a base-10 integer"},
		{name: "choices", call: "probe|run|-n|1|--mode|bad", line: "probe run: invalid --mode 'bad'; allowed: fast, slow"},
		{name: "the first bad integer", call: "probe|run|-n|x|--level|y", line: "probe run: invalid -n 'x'; allowed: a base-10 integer"},
		{name: "parse refusals before checks", call: "git|log|-n|x|--bogus", line: "git log: unknown flag '--bogus'; allowed: -n/--max-count, --oneline, --since"},
		{name: "parse refusals before required", call: "git|commit|--bogus-free|x", line: "git commit: unknown flag '--bogus-free'; allowed: -a/--all, -m/--message"},
		{name: "required positional", call: "git|push|x", line: "git push: required argument 'refspec' not given; allowed: a call with refspec"},
		{name: "required flag given under an alias", call: "git|commit|-m|msg", argv: []string{"commit", "--message=msg"}},
		{name: "required positionals in order", call: "git|push", line: "git push: required argument 'remote' not given; allowed: a call with remote"},
		{name: "required many needs one word", call: "probe|need", line: "probe need: required argument 'files' not given; allowed: a call with files"},
		{name: "required many with one word", call: "probe|need|a", argv: []string{"--lead", "need", "a"}},
		{name: "required many after --", call: "probe|need|--|-a", argv: []string{"--lead", "need", "--", "-a"}},
		{name: "checks before required", call: "probe|need|-n|x", line: "probe need: invalid -n 'x'; allowed: a base-10 integer"},
		{name: "help", call: "git|log|--help", help: true},
		{name: "short help", call: "git|log|-h", help: true},
		{name: "help after flags", call: "git|log|-n|5|--help", help: true},
		{name: "help wins over a refusal", call: "git|log|--output|--help", help: true},
		{name: "help wins over an unknown verb", call: "git|comit|--help", help: true},
		{name: "help for the command", call: "git|--help", help: true},
		{name: "help as a value is a value", call: "git|log|--since|--help", argv: []string{"log", "--since=--help"}},
		{name: "help after -- is a positional", call: "git|log|--|--help", argv: []string{"log", "--", "--help"}},
		{name: "help under forward", call: "probe|fwd|--help", help: true},
		{name: "help as a value after a refusal is a value", call: "git|commit|--bogus|-m|--help", line: "git commit: unknown flag '--bogus'; allowed: -a/--all, -m/--message"},
		{name: "help as the repeated flag's value is a value", call: "git|log|--since|1d|--since|--help", line: "git log: flag '--since' given more than once; allowed: one --since"},
		{name: "help after -- after a refusal is a word", call: "cargo|build|--|extra|--help", line: "cargo build: unexpected argument 'extra'; allowed: (none)"},
		{name: "declared -h is a flag", call: "probe|dash|-h", argv: []string{"--lead", "dash", "-h"}},
		{name: "declared -h after a refusal is a flag", call: "probe|dash|--bogus|-h", line: "probe dash: unknown flag '--bogus'; allowed: -h, -s"},
		{name: "--help beside a declared -h", call: "probe|dash|-h|--help", help: true},
		{name: "help=value is a flag word", call: "git|log|--help=x", line: "git log: unknown flag '--help'; allowed: -n/--max-count, --oneline, --since"},
	})
}

// Rendering.
func TestRender(t *testing.T) {
	runParseCases(t, []parseCase{
		{name: "leads and the verb's name", call: "probe|run", argv: []string{"--lead", "run", "--verb-lead"}},
		{name: "omit_name", call: "probe|quiet", argv: []string{"--lead", "renamed"}},
		{name: "root renders no name", call: "tool|--version", argv: []string{"--version"}},
		{name: "declared spelling of a value flag", call: "git|log|-n|5", argv: []string{"log", "--max-count=5"}},
		{name: "one-letter value flag renders separate", call: "probe|run|-m|v", argv: []string{"--lead", "run", "--verb-lead", "-m", "v"}},
		{name: "style separate on a long flag", call: "probe|run|--level=3", argv: []string{"--lead", "run", "--verb-lead", "--level", "3"}},
		{name: "style equals on a one-letter flag", call: "probe|run|-x|v", argv: []string{"--lead", "run", "--verb-lead", "-x=v"}},
		{name: "switch by its declared name", call: "git|commit|-a|-m|x", argv: []string{"commit", "--all", "--message=x"}},
		{name: "order as written", call: "git|log|main|--oneline|-n|2|--|docs", argv: []string{"log", "main", "--oneline", "--max-count=2", "--", "docs"}},
		{name: "repeatable once per use", call: "probe|run|--tag=a|x|--tag|b", argv: []string{"--lead", "run", "--verb-lead", "--tag=a", "x", "--tag=b"}},
		{name: "forwarded words as written", call: "probe|fwd|--unknown=1|-s", argv: []string{"--lead", "fwd", "--unknown=1", "-s"}},
		{name: "-- only where written", call: "git|log|docs", argv: []string{"log", "docs"}},
		{name: "the benchmark call", call: "git|log|-n|5|--oneline|--since=2.days.ago|main|--|docs", argv: []string{"log", "--max-count=5", "--oneline", "--since=2.days.ago", "main", "--", "docs"}},
	})
}
