package builtins

import (
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func TestDateGNU(t *testing.T) {
	t.Parallel()
	all := "+%Y|%C|%y|%G|%g|%m|%d|%e|%H|%k|%I|%l|%M|%S|%j|%u|%w|%U|%W|%V|%s|%N|%a|%A|%b|%h|%B|%p|%P|%Z|%z|%:z|%::z|%:::z|%F|%T|%D|%R|%r|%c|%x|%X|%%|%n|%t|"
	flags := "+%-d|%_m|%^a|%#a|%#p|%#Z|%10A|%-10A|%3N|%6N|%_3S|%05d|%-j|%_H|%^B|%+4Y|%Ey|%Oy|%Q|%E"
	cases := []gnuCase{
		{name: "default", script: "date -d @0; date -d @1700000000"},
		{name: "all directives", script: "date -d @1700000000.123456789 '" + all + "'"},
		{name: "all directives afternoon", script: "date -d 2024-12-30T15:04:05 '" + all + "'"},
		{name: "all directives new year", script: "date -d 2021-01-03T00:00:00 '" + all + "'"},
		{name: "flags", script: "date -d @1 '" + flags + "'"},
		{name: "flags afternoon", script: "date -d 2024-07-09T21:08:07.5 '" + flags + "'"},
		{name: "epoch forms", script: "date -d @-1.5 +%s.%N; date -d @0.25 +%s.%N; date -d '@ 12' +%s; date -d @-86400 +%F"},
		{name: "iso forms", script: "date -d 2024-02-03; date -d '2024-02-03 04:05'; date -d 2024-02-03T04:05:06; date -d 2024-02-03T04:05:06.5Z +%T.%N; date -d '2024-02-03 04:05:06 UTC'"},
		{name: "iso zones", script: "date -d 2024-02-03T04:05:06+05:00; date -d 2024-02-03T04:05:06+0530; date -d 2024-02-03T04:05:06-08"},
		{name: "invalid iso", script: "date -d 2024-13-01; date -d 2023-02-29; date -d 2024-01-01T25:00; date -d @x"},
		{name: "utc", script: "TZ=America/New_York date -u -d @1; TZ=Asia/Tokyo date --utc -d @1; TZ=Asia/Tokyo date --universal -d @1 +%Z"},
		{name: "tz", script: "TZ=America/New_York date -d @1; TZ=:Europe/Paris date -d @1 +%Z%z; TZ=Asia/Kolkata date -d @1 '+%z %:z %::z %:::z'"},
		{name: "tz posix", script: "TZ=EST5EDT date -d @1; TZ=UTC+3 date -d @1; TZ=UTC0 date -d @1; TZ=foo date -d @1"},
		{name: "tz local date", script: "TZ=America/New_York date -d '2024-07-01 12:00' '+%s %Z'; TZ=America/New_York date -d '2024-01-01 12:00' '+%s %Z'"},
		{name: "date long", script: "date --date=@5 +%s; date --date @5 +%s; date --da=@6 +%s"},
		{name: "iso 8601", script: "date -d @1 -I; date -d @1 -Ins; date -d @1 -Isec; date -d @1 -Ihours; date -d @1 -Iminutes; date -d @1 -Idate"},
		{name: "iso 8601 long", script: "date -d @1 --iso-8601; date -d @1 --iso-8601=seconds; date -d @1 --iso=ns; TZ=Asia/Kolkata date -d @1 --iso-8601=minutes"},
		{name: "iso 8601 clustered", script: "TZ=Asia/Tokyo date -d @1 -uIseconds; TZ=Asia/Tokyo date -uI -d @1"},
		{name: "iso 8601 invalid", script: "date -d @1 --iso=x"},
		{name: "rfc email", script: "date -d @1 -R; TZ=Asia/Kolkata date -d @1 --rfc-email"},
		{name: "rfc 3339", script: "date -d @1 --rfc-3339=ns; date -d @1 --rfc-3339=seconds; date -d @1 --rfc-3339=date"},
		{name: "rfc 3339 invalid", script: "date -d @1 --rfc-3339=x"},
		{name: "reference", script: "touch -d @1000000000.5 f; date -r f; date --reference=f +%s.%N; date --reference f -u"},
		{name: "reference missing", script: "date -r nope"},
		{name: "multiple formats", script: "date -d @1 -I +%s"},
		{name: "multiple formats rfc", script: "date -d @1 -R -I"},
		{name: "extra operand", script: "date -d @1 +%s x"},
		{name: "date and reference", script: "touch f; date -d @1 -r f"},
		{name: "dashdash", script: "date -d @1 -- +%s"},
		{name: "empty format", script: "date -d @1 +"},
		{name: "trailing percent", script: "date -d @1 +%"},
		{name: "big year", script: "date -d @253402300799; date -d @-62135596800 +%F"},
	}
	compareGNU(t, []kernel.Tool{cmdDate}, cases)
}

func TestDateRefusals(t *testing.T) {
	for _, tc := range []struct{ script, line string }{
		{"date -d 'next monday'", "date: cannot read the date 'next monday'; allowed: @SECONDS[.FRACTION], YYYY-MM-DD[(T| )HH:MM[:SS[.FRACTION]]][Z|UTC|±HH[:MM]]\n"},
		{"date 010203042024", "date: setting the clock to '010203042024' is not supported; allowed: a +FORMAT operand\n"},
		{"date -s @1", "date: unknown flag '-s'; allowed: -I/--iso-8601, -R/--rfc-email, -d/--date, -r/--reference, --rfc-3339, -u/--utc, --universal\n"},
	} {
		res := run(t, []kernel.Tool{cmdDate}, t.TempDir(), "", tc.script)
		if res.ExitCode != 2 || res.Stderr != tc.line || res.Stdout != "" {
			t.Errorf("%s: status %d, stderr %q, want %q", tc.script, res.ExitCode, res.Stderr, tc.line)
		}
	}
}

// The zone is the call's TZ, not shelter's own.
func TestDateTZFromTheCall(t *testing.T) {
	t.Setenv("TZ", "Asia/Tokyo")
	res := run(t, []kernel.Tool{cmdDate}, t.TempDir(), "", "TZ=America/New_York date -d @0 +%Z; export TZ=UTC; date -d @0 +%Z")
	if res.Stdout != "EST\nUTC\n" {
		t.Errorf("stdout %q", res.Stdout)
	}
}

func TestDateSandbox(t *testing.T) {
	for _, operand := range []string{"/etc/passwd", "../secret", "abs-link", "rel-link"} {
		res, _ := secretRun(t, []kernel.Tool{cmdDate}, nil, "SECRET\n", "date -r "+operand)
		if res.ExitCode != 2 || res.Stdout != "" || !strings.Contains(res.Stderr, "outside the sandbox root") {
			t.Errorf("date -r %s: stdout %q stderr %q status %d", operand, res.Stdout, res.Stderr, res.ExitCode)
		}
	}
}
