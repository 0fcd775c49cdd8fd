package builtins

import (
	"context"
	"errors"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/internal/refusal/refusaltest"
	"github.com/shelter-sh/shelter/kernel"
)

// builtinRefusal is one row of the builtins' refusal table: a call, its
// exact line and the typed refusal its tool returns.
type builtinRefusal struct {
	script string
	line   string
	err    *kernel.Refusal
	// word is the offending word, which the line quotes; "" when the call
	// lacks something rather than gives a wrong word.
	word string
}

func builtinRefusals(tools []kernel.Tool) []builtinRefusal {
	pool := func(t kernel.Tool) []string {
		switch t := t.(type) {
		case *command:
			return t.pool()
		case *launcher:
			return t.pool()
		}
		panic("no pool")
	}
	r := func(cmd, what string, allowed ...string) *kernel.Refusal {
		return &kernel.Refusal{Command: cmd, What: what, Allowed: allowed}
	}
	return []builtinRefusal{
		// The flag grammar every command shares.
		{"sort --bogus", "sort: unknown flag '--bogus'; allowed: " + kernel.Pool(pool(cmdSort)),
			r("sort", "unknown flag '--bogus'", pool(cmdSort)...), "--bogus"},
		{"cat -Z", "cat: unknown flag '-Z'; allowed: " + kernel.Pool(pool(cmdCat)),
			r("cat", "unknown flag '-Z'", pool(cmdCat)...), "-Z"},
		{"ls --re", "ls: ambiguous flag '--re'; allowed: --recursive, --reverse",
			r("ls", "ambiguous flag '--re'", "--recursive", "--reverse"), "--re"},
		{"head --lines", "head: flag '--lines' needs a value; allowed: --lines [-]NUM",
			r("head", "flag '--lines' needs a value", "--lines [-]NUM"), "--lines"},
		{"head -n", "head: flag '-n' needs a value; allowed: -n [-]NUM",
			r("head", "flag '-n' needs a value", "-n [-]NUM"), "-n"},
		{"wc --lines=3", "wc: flag '--lines' takes no value; allowed: --lines",
			r("wc", "flag '--lines' takes no value", "--lines"), "--lines"},
		{"timeout --bogus 1 true", "timeout: unknown flag '--bogus'; allowed: " + kernel.Pool(pool(launchTimeout)),
			r("timeout", "unknown flag '--bogus'", pool(launchTimeout)...), "--bogus"},
		{"nohup", "nohup: missing COMMAND; allowed: nohup " + launchNohup.usage,
			r("nohup", "missing COMMAND", "nohup "+launchNohup.usage), ""},

		// Each command's own.
		{"rm -i f", "rm: flag '-i' prompts on a terminal and there is none; allowed: -f/--force, no prompt flag",
			r("rm", "flag '-i' prompts on a terminal and there is none", "-f/--force", "no prompt flag"), "-i"},
		{"ls --color=always", "ls: --color='always' is not supported; allowed: --color=never",
			r("ls", "--color='always' is not supported", "--color=never"), "always"},
		{"grep --colour=always x", "grep: --colour='always' is not supported (no colour is printed); allowed: auto, never",
			r("grep", "--colour='always' is not supported (no colour is printed)", "auto", "never"), "always"},
		{`grep '\(a\)\1'`, `grep: backreference '\1' is not supported: RE2 has no backreferences; allowed: (none)`,
			r("grep", `backreference '\1' is not supported: RE2 has no backreferences`), `\1`},
		{`sed 's/\(a\)\1/x/'`, `sed: backreference '\1' is not supported: RE2 has no backreferences; allowed: (none)`,
			r("sed", `backreference '\1' is not supported: RE2 has no backreferences`), `\1`},
		{"sed /a/Mp", "sed: the flag 'M' of a regex address is not supported; allowed: I",
			r("sed", "the flag 'M' of a regex address is not supported", "I"), "M"},
		{"sed 'w out'", "sed: command 'w' is not supported; allowed: " + kernel.Pool(sedCommands),
			r("sed", "command 'w' is not supported", sedCommands...), "w"},
		{"sed s/a/b/e", "sed: the flag 'e' of s is not supported; allowed: I, N, g, i, p",
			r("sed", "the flag 'e' of s is not supported", "I", "N", "g", "i", "p"), "e"},
		{"find . -delete", "find: primary '-delete' is not supported; allowed: -print0 | xargs -0 CMD",
			r("find", "primary '-delete' is not supported", "-print0 | xargs -0 CMD"), "-delete"},
		{"find . -fstype x", "find: unknown primary '-fstype'; allowed: " + kernel.Pool(findPrimaries),
			r("find", "unknown primary '-fstype'", findPrimaries...), "-fstype"},
		{"date 010203042024", "date: setting the clock to '010203042024' is not supported; allowed: a +FORMAT operand",
			r("date", "setting the clock to '010203042024' is not supported", "a +FORMAT operand"), "010203042024"},
		{"date -d 'next blue moon'", "date: cannot read the date 'next blue moon'; allowed: @SECONDS[.FRACTION], YYYY-MM-DD[(T| )HH:MM[:SS[.FRACTION]]][Z|UTC|±HH[:MM]]",
			r("date", "cannot read the date 'next blue moon'", "@SECONDS[.FRACTION]", "YYYY-MM-DD[(T| )HH:MM[:SS[.FRACTION]]][Z|UTC|±HH[:MM]]"), "next blue moon"},
		{"jq -Z .", "jq: unknown flag '-Z'; allowed: " + kernel.Pool(pool(cmdJq)),
			r("jq", "unknown flag '-Z'", pool(cmdJq)...), "-Z"},
		{"jq --indent 9 .", "jq: invalid --indent '9'; allowed: a number from -1 to 7",
			r("jq", "invalid --indent '9'", "a number from -1 to 7"), "9"},
		{"jq -n --arg x", "jq: flag '--arg' needs a value; allowed: --arg NAME VALUE",
			r("jq", "flag '--arg' needs a value", "--arg NAME VALUE"), "--arg"},
		{"jq --tab=1 .", "jq: flag '--tab' takes no value; allowed: --tab",
			r("jq", "flag '--tab' takes no value", "--tab"), "--tab"},
		{"jq -n -f", "jq: flag '-f' without a filter file; allowed: -f FILE as the first operand",
			r("jq", "flag '-f' without a filter file", "-f FILE as the first operand"), "-f"},

		// The launchers'.
		{"env -u a=b true", "env: cannot unset 'a=b': not a variable name; allowed: a variable name, without =",
			r("env", "cannot unset 'a=b': not a variable name", "a variable name, without ="), "a=b"},
		{"timeout -s NOPE 5 true", "timeout: unknown signal 'NOPE'; allowed: a name such as TERM or KILL, a number",
			r("timeout", "unknown signal 'NOPE'", signalForms...), "NOPE"},
		{"timeout 5x true", "timeout: invalid duration '5x'; allowed: a number with an optional suffix s, m, h or d (5, 0.5, 1.5m, 2h, 1d)",
			r("timeout", "invalid duration '5x'", "a number with an optional suffix s, m, h or d (5, 0.5, 1.5m, 2h, 1d)"), "5x"},
		{"nice -n x true", "nice: invalid adjustment 'x'; allowed: an integer from -39 to 39",
			r("nice", "invalid adjustment 'x'", "an integer from -39 to 39"), "x"},
		{"xargs -d ab", `xargs: invalid delimiter 'ab'; allowed: an escape (\n, \t, \0, \\, \xHH, \NNN), one character`,
			r("xargs", "invalid delimiter 'ab'", "one character", `an escape (\n, \t, \0, \\, \xHH, \NNN)`), "ab"},
		{"xargs -I '' echo", "xargs: flag '-I' needs a replacement string; allowed: -I REPLACE",
			r("xargs", "flag '-I' needs a replacement string", "-I REPLACE"), "-I"},
		{"xargs -n 0 echo", "xargs: invalid number '0' for -n; allowed: an integer of at least 1",
			r("xargs", "invalid number '0' for -n", "an integer of at least 1"), "0"},
		{"flock -w x l true", "flock: invalid timeout 'x'; allowed: a number of seconds (a fraction allowed)",
			r("flock", "invalid timeout 'x'", "a number of seconds (a fraction allowed)"), "x"},
		{"flock -E 300 l true", "flock: invalid exit code '300'; allowed: an integer from 0 to 255",
			r("flock", "invalid exit code '300'", "an integer from 0 to 255"), "300"},
		{"setsid -f true", "setsid: flag '-f' without -w is not supported: it would leave the command running past its call; allowed: COMMAND & (a job, which ends with the session), -f -w",
			r("setsid", "flag '-f' without -w is not supported: it would leave the command running past its call", "-f -w", "COMMAND & (a job, which ends with the session)"), "-f"},
		{"stdbuf echo hi", "stdbuf: missing a buffering mode; allowed: -e MODE, -i MODE, -o MODE",
			r("stdbuf", "missing a buffering mode", "-i MODE", "-o MODE", "-e MODE"), ""},
		{"stdbuf -iL cat", "stdbuf: invalid mode 'L' for standard input (line buffering input means nothing); allowed: 0, a size",
			r("stdbuf", "invalid mode 'L' for standard input (line buffering input means nothing)", "0", "a size"), "L"},
		{"stdbuf -o 4X echo", "stdbuf: invalid mode '4X'; allowed: 0, L, a size such as 4096, 4K, 1M",
			r("stdbuf", "invalid mode '4X'", "L", "0", "a size such as 4096, 4K, 1M"), "4X"},
		{"ionice -c 9 true", "ionice: unknown class '9'; allowed: 0, 1, 2, 3, best-effort, idle, none, realtime",
			r("ionice", "unknown class '9'", slices.Sorted(maps.Keys(ioClasses))...), "9"},
		{"ionice -c 2 -n 8 true", "ionice: invalid level '8'; allowed: an integer from 0 to 7",
			r("ionice", "invalid level '8'", "an integer from 0 to 7"), "8"},
		{"taskset 3 true", "taskset: cannot pin 'true' to CPUs: shelter cannot set affinity before a program starts; allowed: the command without taskset",
			r("taskset", "cannot pin 'true' to CPUs: shelter cannot set affinity before a program starts", "the command without taskset"), "true"},
		{"taskset -c 0-x true", "taskset: invalid CPU list '0-x'; allowed: numbers and ranges such as 0,2-4",
			r("taskset", "invalid CPU list '0-x'", "numbers and ranges such as 0,2-4"), "0-x"},
		{"taskset zz echo", "taskset: invalid CPU mask 'zz'; allowed: a hexadecimal mask such as 0x3, -c with a list",
			r("taskset", "invalid CPU mask 'zz'", "a hexadecimal mask such as 0x3", "-c with a list"), "zz"},
		{"chrt -b 0 true", "chrt: policy '--batch' is not available: shelter cannot set a scheduling policy before a program starts; allowed: -o 0",
			r("chrt", "policy '--batch' is not available: shelter cannot set a scheduling policy before a program starts", "-o 0"), "--batch"},
		{"chrt 5 echo", "chrt: policy 'SCHED_RR' (chrt's default) is real-time and not available; allowed: -o 0",
			r("chrt", "policy 'SCHED_RR' (chrt's default) is real-time and not available", "-o 0"), "SCHED_RR"},
		{"chrt -f 1 echo", "chrt: policy '--fifo' is real-time and not available; allowed: -o 0",
			r("chrt", "policy '--fifo' is real-time and not available", "-o 0"), "--fifo"},
		{"chrt -o 3 echo", "chrt: invalid priority '3' for SCHED_OTHER; allowed: 0",
			r("chrt", "invalid priority '3' for SCHED_OTHER", "0"), "3"},
		{"jobs -x", "jobs: unknown flag '-x'; allowed: -l, -p, -r, -s",
			r("jobs", "unknown flag '-x'", "-l", "-p", "-r", "-s"), "-x"},
		{"wait -x", "wait: unknown flag '-x'; allowed: -f, -n, -p VAR",
			r("wait", "unknown flag '-x'", "-f", "-n", "-p VAR"), "-x"},
		{"disown -x", "disown: unknown flag '-x'; allowed: -a, -h, -r",
			r("disown", "unknown flag '-x'", "-a", "-h", "-r"), "-x"},
		{"kill -s", "kill: flag '-s' needs a signal; allowed: -s SIGNAL",
			r("kill", "flag '-s' needs a signal", "-s SIGNAL"), "-s"},
		{"kill", "kill: no job or process named; allowed: (none)",
			r("kill", "no job or process named"), ""},
		{"kill x3", "kill: 'x3' is not a job or process of this session; allowed: (none)",
			r("kill", "'x3' is not a job or process of this session"), "x3"},
		{"tools --yaml", "tools: unknown argument '--yaml'; allowed: --json",
			r("tools", "unknown argument '--yaml'", "--json"), "--yaml"},
	}
}

// TestRefusalLines checks every refusal of the builtins in the voice of
// every refusal (docs/embedding.md, "Tools"): one line, the command
// first, the offending word quoted, then "allowed:" and the pool, sorted,
// or "(none)". Each row's line is its typed refusal's Error(), what the
// tool's Run returns, and what a session prints with status 2.
func TestRefusalLines(t *testing.T) {
	tools := append(Coreutils(), Launchers()...)
	s := sandboxSession(t, t.TempDir(), tools, nil)
	byName := map[string]kernel.Tool{}
	for _, tool := range tools {
		byName[tool.Name()] = tool
	}
	for _, tc := range builtinRefusals(tools) {
		t.Run(tc.script, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.line {
				t.Errorf("typed: %s\n want %s", got, tc.line)
			}
			refusaltest.Check(t, tc.line, tc.err.Command, tc.err.What, tc.err.Allowed, tc.word)

			res, err := s.Run(context.Background(), tc.script, kernel.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != 2 || res.Stderr != tc.line+"\n" || res.Stdout != "" {
				t.Errorf("run: status %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
			}

			// What the tool's Run returns, called alone, where the words
			// are literal and the tool needs no session.
			argv := strings.Fields(tc.script)
			if strings.ContainsAny(tc.script, `'\`) || argv[0] == "kill" || argv[0] == "tools" {
				return
			}
			call := &kernel.Call{Args: argv, Stdout: io.Discard, Stderr: io.Discard, Dir: s.Dir()}
			var ref *kernel.Refusal
			if err := byName[argv[0]].Run(context.Background(), call); !errors.As(err, &ref) || !reflect.DeepEqual(ref, tc.err) {
				t.Errorf("Run: got %#v, want %#v", err, tc.err)
			}
		})
	}
}
