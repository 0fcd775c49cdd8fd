package builtins

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// cmdDate is a *command inside a [dateCommand]: -I takes an optional
// value (-I, -Iseconds, --iso-8601, --iso-8601=ns), which the framework's
// flags cannot say, so dateCommand spells the bare forms out first.
var cmdDate = &dateCommand{&command{
	name:     "date",
	usage:    "[OPTION]... [+FORMAT]",
	about:    "Print the current time, or the time -d or -r give, in the given FORMAT (strftime directives such as %Y-%m-%d %H:%M:%S).",
	operands: "+FORMAT",
	flags: []flag{
		{short: 'd', long: "date", arg: "STRING", about: "display the time STRING describes: @SECONDS or an ISO 8601 date and time, not 'now'"},
		{short: 'I', long: "iso-8601", arg: "FMT", about: "output in ISO 8601 format; FMT is date (the default), hours, minutes, seconds or ns"},
		{short: 'R', long: "rfc-email", about: "output in RFC 5322 format, e.g. Mon, 14 Aug 2006 02:34:56 -0600"},
		{long: "rfc-3339", arg: "FMT", about: "output in RFC 3339 format; FMT is date, seconds or ns"},
		{short: 'r', long: "reference", arg: "FILE", about: "display the last modification time of FILE"},
		{short: 'u', long: "utc", about: "print or set Coordinated Universal Time (UTC)"},
		{long: "universal", about: "same as --utc"},
	},
	run: runDate,
}}

// A dateCommand is date's [command] with -I's optional value spelled out.
type dateCommand struct{ *command }

func (d *dateCommand) Run(ctx context.Context, call *kernel.Call) error {
	words := make([]string, 0, len(call.Args))
	words = append(words, call.Args[0])
	for i := 1; i < len(call.Args); i++ {
		w := call.Args[i]
		switch {
		case w == "--":
			words = append(words, call.Args[i:]...)
			i = len(call.Args)
		case strings.HasPrefix(w, "--"):
			if name := w[2:]; name != "" && strings.HasPrefix("iso-8601", name) {
				w = "--iso-8601=date"
			}
			words = append(words, w)
		case len(w) > 1 && w[0] == '-':
			// Letters up to the first one that takes a value; an I among
			// them takes the rest of the word, or nothing.
			j := strings.IndexAny(w[1:], "dIr") + 1
			if j > 0 && w[j] == 'I' {
				if j > 1 {
					words = append(words, w[:j])
				}
				fmtName := w[j+1:]
				if fmtName == "" {
					fmtName = "date"
				}
				words = append(words, "--iso-8601="+fmtName)
				continue
			}
			words = append(words, w)
			if j > 0 && j == len(w)-1 && i+1 < len(call.Args) {
				i++
				words = append(words, call.Args[i])
			}
		default:
			words = append(words, w)
		}
	}
	c := *call
	c.Args = words
	return d.command.Run(ctx, &c)
}

var dateISOFormats = []string{"hours", "minutes", "date", "seconds", "ns"}

func runDate(ctx context.Context, c *kernel.Call, a *args) error {
	var format string
	formats := 0
	if a.has("iso-8601") {
		name, ok := dateArgmatch(a.value("iso-8601", ""), dateISOFormats)
		if !ok {
			return dateBadArgument(c, a.value("iso-8601", ""), "--iso-8601", dateISOFormats)
		}
		format = map[string]string{
			"date":    "%Y-%m-%d",
			"hours":   "%Y-%m-%dT%H%:z",
			"minutes": "%Y-%m-%dT%H:%M%:z",
			"seconds": "%Y-%m-%dT%H:%M:%S%:z",
			"ns":      "%Y-%m-%dT%H:%M:%S,%N%:z",
		}[name]
		formats++
	}
	if a.has("rfc-3339") {
		allowed := []string{"date", "seconds", "ns"}
		name, ok := dateArgmatch(a.value("rfc-3339", ""), allowed)
		if !ok {
			return dateBadArgument(c, a.value("rfc-3339", ""), "--rfc-3339", allowed)
		}
		format = map[string]string{
			"date":    "%Y-%m-%d",
			"seconds": "%Y-%m-%d %H:%M:%S%:z",
			"ns":      "%Y-%m-%d %H:%M:%S.%N%:z",
		}[name]
		formats++
	}
	if a.has("rfc-email") {
		format = "%a, %d %b %Y %H:%M:%S %z"
		formats++
	}
	ops := a.operands
	if len(ops) > 0 && strings.HasPrefix(ops[0], "+") {
		format = ops[0][1:]
		formats++
		ops = ops[1:]
	}
	if len(ops) > 0 {
		if len(a.operands) > 1 || strings.HasPrefix(a.operands[0], "+") {
			return pathnameTry(c, "extra operand '"+ops[0]+"'")
		}
		return &kernel.Refusal{Command: "date", What: "setting the clock to " + kernel.Quote(a.operands[0]) + " is not supported", Allowed: []string{"a +FORMAT operand"}}
	}
	if formats > 1 {
		failf(c, "multiple output formats specified")
		return status(1)
	}
	if formats == 0 {
		format = "%a %b %e %H:%M:%S %Z %Y"
	}
	if a.has("date") && a.has("reference") {
		failf(c, "the options to specify dates for printing are mutually exclusive")
		c.Stderr.Write([]byte("Try 'date --help' for more information.\n"))
		return status(1)
	}

	loc := dateLocation(c.Getenv("TZ"), c.Env)
	if a.has("utc") || a.has("universal") {
		loc = time.UTC
	}
	t := time.Now()
	switch {
	case a.has("date"):
		s := a.value("date", "")
		var ok, known bool
		if t, ok, known = dateParse(s, loc); !ok && known {
			failf(c, "invalid date '%s'", s)
			return status(1)
		} else if !ok {
			return &kernel.Refusal{Command: "date", What: "cannot read the date " + kernel.Quote(s), Allowed: []string{"@SECONDS[.FRACTION]", "YYYY-MM-DD[(T| )HH:MM[:SS[.FRACTION]]][Z|UTC|±HH[:MM]]"}}
		}
	case a.has("reference"):
		name := a.value("reference", "")
		fi, err := c.Opener().Stat(name)
		if err != nil {
			failf(c, "%s", errText(asNamed(err, name)))
			return status(1)
		}
		t = fi.ModTime()
	}
	out := dateFormat(nil, format, t.In(loc))
	out = append(out, '\n')
	if _, err := c.Stdout.Write(out); err != nil {
		return status(1)
	}
	return nil
}

// dateArgmatch finds a value by its name or a unique prefix, as GNU's
// argmatch does.
func dateArgmatch(v string, allowed []string) (string, bool) {
	found := ""
	for _, name := range allowed {
		if name == v {
			return name, true
		}
		if v != "" && strings.HasPrefix(name, v) {
			if found != "" {
				return "", false
			}
			found = name
		}
	}
	return found, found != ""
}

func dateBadArgument(c *kernel.Call, v, flagName string, allowed []string) error {
	failf(c, "invalid argument '%s' for '%s'", v, flagName)
	var b strings.Builder
	b.WriteString("Valid arguments are:\n")
	for _, name := range allowed {
		b.WriteString("  - '" + name + "'\n")
	}
	b.WriteString("Try 'date --help' for more information.\n")
	c.Stderr.Write([]byte(b.String()))
	return status(1)
}

var dateISO = lazyRegexp(`^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$`)

// dateParse reads the forms of -d this date supports: @SECONDS with an
// optional fraction, and ISO 8601 dates and times with an optional zone;
// a time without a zone is in loc. known reports whether s has one of
// those forms, valid or not.
func dateParse(s string, loc *time.Location) (t time.Time, ok, known bool) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "@"); ok {
		secs, frac, _ := strings.Cut(strings.TrimSpace(rest), ".")
		if secs == "" || secs == "-" || secs == "+" {
			secs += "0"
		}
		n, err := strconv.ParseInt(secs, 10, 64)
		if err != nil || !isDigits(frac) && frac != "" {
			return time.Time{}, false, true
		}
		var nanos int64
		if frac != "" {
			frac = (frac + "000000000")[:9]
			nanos, _ = strconv.ParseInt(frac, 10, 64)
		}
		if strings.HasPrefix(secs, "-") && nanos > 0 {
			n--
			nanos = 1e9 - nanos
		}
		return time.Unix(n, nanos), true, true
	}
	m := dateISO().FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false, false
	}
	num := func(i int) int { n, _ := strconv.Atoi(m[i]); return n }
	year, month, day := num(1), num(2), num(3)
	hour, minute, sec := num(4), num(5), num(6)
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 60 {
		return time.Time{}, false, true
	}
	nanos := 0
	if m[7] != "" {
		nanos, _ = strconv.Atoi((m[7] + "000000000")[:9])
	}
	zone := loc
	switch z := m[8]; {
	case z == "":
	case z == "Z" || z == "z" || z == "UTC" || z == "GMT":
		zone = time.UTC
	default:
		digits := strings.ReplaceAll(z[1:], ":", "")
		h, _ := strconv.Atoi(digits[:2])
		mins := 0
		if len(digits) == 4 {
			mins, _ = strconv.Atoi(digits[2:])
		}
		off := h*3600 + mins*60
		if z[0] == '-' {
			off = -off
		}
		zone = time.FixedZone("", off)
	}
	t = time.Date(year, time.Month(month), day, hour, minute, sec, nanos, zone)
	if t.Day() != day {
		return time.Time{}, false, true
	}
	return t, true, true
}

var dateLocal = sync.OnceValue(func() *time.Location {
	// The host's own zone, not shelter's TZ: what date shows with TZ unset.
	b, err := os.ReadFile("/etc/localtime")
	if err != nil {
		return time.UTC
	}
	loc, err := time.LoadLocationFromTZData("Local", b)
	if err != nil {
		return time.UTC
	}
	return loc
})

var datePOSIX = lazyRegexp(`^([A-Za-z]{3,}|<[^>]+>)([+-]?\d{1,2})(?::(\d{2}))?(?::(\d{2}))?$`)

// dateLocation is the zone TZ names: an IANA name (with or without a
// leading colon), a POSIX zone without daylight rules (EST5, UTC-3), or
// UTC under TZ's own name when it is neither, as glibc does. Unset, it is
// the host's zone.
func dateLocation(tz string, env []string) *time.Location {
	set := false
	for _, kv := range env {
		if strings.HasPrefix(kv, "TZ=") {
			set = true
		}
	}
	if !set {
		return dateLocal()
	}
	name := strings.TrimPrefix(tz, ":")
	if name == "" {
		return time.UTC
	}
	if loc, err := time.LoadLocation(name); err == nil {
		return loc
	}
	if m := datePOSIX().FindStringSubmatch(name); m != nil {
		h, _ := strconv.Atoi(m[2])
		mins, _ := strconv.Atoi(m[3])
		secs, _ := strconv.Atoi(m[4])
		off := dateAbs(h)*3600 + mins*60 + secs
		if !strings.HasPrefix(m[2], "-") {
			off = -off // POSIX offsets are west of Greenwich
		}
		return time.FixedZone(strings.Trim(m[1], "<>"), off)
	}
	letters := strings.TrimRightFunc(name, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') })
	return time.FixedZone(letters, 0)
}

func dateAbs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

var (
	dateDays   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	dateMonths = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
)

// dateFormat appends t written by strftime's format as GNU date does in
// the C locale: flags - _ 0 ^ # and a width after the %, the E and O
// modifiers ignored, an unknown directive copied as it is.
func dateFormat(b []byte, format string, t time.Time) []byte {
	for i := 0; i < len(format); i++ {
		ch := format[i]
		if ch != '%' || i+1 >= len(format) {
			b = append(b, ch)
			continue
		}
		start := i
		i++
		var padFlag byte
		upper, swap := false, false
		for ; i < len(format) && strings.IndexByte("-_0^#+", format[i]) >= 0; i++ {
			switch format[i] {
			case '^':
				upper = true
			case '#':
				swap = true
			case '+':
				padFlag = '0'
			default:
				padFlag = format[i]
			}
		}
		w := 0
		for ; i < len(format) && format[i] >= '0' && format[i] <= '9'; i++ {
			w = w*10 + int(format[i]-'0')
		}
		colons := 0
		for ; i < len(format) && format[i] == ':'; i++ {
			colons++
		}
		for i < len(format) && (format[i] == 'E' || format[i] == 'O') {
			i++
		}
		if i >= len(format) {
			b = append(b, format[start:]...)
			break
		}
		d := format[i]
		if colons > 0 && d != 'z' {
			b = append(b, format[start:i+1]...)
			continue
		}
		num := func(v, width int, pad byte) {
			b = dateNumber(b, v, width, pad, padFlag, w)
		}
		str := func(s string, swapLower bool) {
			if upper || swap && !swapLower {
				s = strings.ToUpper(s)
			} else if swap && swapLower {
				s = strings.ToLower(s)
			}
			pad := byte(' ')
			if padFlag == '0' {
				pad = '0'
			}
			for n := len(s); n < w && padFlag != '-'; n++ {
				b = append(b, pad)
			}
			b = append(b, s...)
		}
		year, yday := t.Year(), t.YearDay()
		hour := t.Hour()
		h12 := hour % 12
		if h12 == 0 {
			h12 = 12
		}
		isoYear, isoWeek := t.ISOWeek()
		switch d {
		case '%':
			b = append(b, '%')
		case 'Y':
			num(year, 4, '0')
		case 'C':
			num(year/100, 2, '0')
		case 'y':
			num((year%100+100)%100, 2, '0')
		case 'G':
			num(isoYear, 4, '0')
		case 'g':
			num((isoYear%100+100)%100, 2, '0')
		case 'm':
			num(int(t.Month()), 2, '0')
		case 'd':
			num(t.Day(), 2, '0')
		case 'e':
			num(t.Day(), 2, ' ')
		case 'H':
			num(hour, 2, '0')
		case 'k':
			num(hour, 2, ' ')
		case 'I':
			num(h12, 2, '0')
		case 'l':
			num(h12, 2, ' ')
		case 'M':
			num(t.Minute(), 2, '0')
		case 'S':
			num(t.Second(), 2, '0')
		case 'j':
			num(yday, 3, '0')
		case 'u':
			num((int(t.Weekday())+6)%7+1, 1, '0')
		case 'w':
			num(int(t.Weekday()), 1, '0')
		case 'U':
			num((yday+6-int(t.Weekday()))/7, 2, '0')
		case 'W':
			num((yday+6-(int(t.Weekday())+6)%7)/7, 2, '0')
		case 'V':
			num(isoWeek, 2, '0')
		case 's':
			b = dateNumber(b, int(t.Unix()), 1, '0', padFlag, w)
		case 'N':
			digits := fmt.Sprintf("%09d", t.Nanosecond())
			if w > 0 && w < 9 {
				digits = digits[:w]
			}
			b = append(b, digits...)
		case 'a':
			str(dateDays[t.Weekday()][:3], false)
		case 'A':
			str(dateDays[t.Weekday()], false)
		case 'b', 'h':
			str(dateMonths[t.Month()-1][:3], false)
		case 'B':
			str(dateMonths[t.Month()-1], false)
		case 'p':
			str(map[bool]string{true: "PM", false: "AM"}[hour >= 12], true)
		case 'P':
			str(map[bool]string{true: "pm", false: "am"}[hour >= 12], false)
		case 'Z':
			name, _ := t.Zone()
			str(name, true)
		case 'z':
			b = dateOffset(b, t, colons)
		case 'n':
			b = append(b, '\n')
		case 't':
			b = append(b, '\t')
		case 'F':
			str(string(dateFormat(nil, "%Y-%m-%d", t)), false)
		case 'T', 'X':
			str(string(dateFormat(nil, "%H:%M:%S", t)), false)
		case 'D', 'x':
			str(string(dateFormat(nil, "%m/%d/%y", t)), false)
		case 'R':
			str(string(dateFormat(nil, "%H:%M", t)), false)
		case 'r':
			str(string(dateFormat(nil, "%I:%M:%S %p", t)), false)
		case 'c':
			str(string(dateFormat(nil, "%a %b %e %H:%M:%S %Y", t)), false)
		default:
			b = append(b, format[start:i+1]...)
		}
	}
	return b
}

// dateNumber writes v in width columns padded with pad, or as the flag
// asks: - for none, _ for spaces, 0 for zeros; a flag's width wins.
func dateNumber(b []byte, v, width int, pad, flag byte, w int) []byte {
	switch flag {
	case '-':
		return strconv.AppendInt(b, int64(v), 10)
	case '_':
		pad = ' '
	case '0':
		pad = '0'
	}
	if w > 0 {
		width = w
	}
	s := strconv.Itoa(dateAbs(v))
	n := len(s)
	if v < 0 {
		n++
	}
	if v < 0 && pad == '0' {
		b = append(b, '-')
	}
	for ; n < width; n++ {
		b = append(b, pad)
	}
	if v < 0 && pad != '0' {
		b = append(b, '-')
	}
	return append(b, s...)
}

// dateOffset is %z (+hhmm), %:z (+hh:mm), %::z (+hh:mm:ss) or %:::z
// (+hh, with :mm only when needed).
func dateOffset(b []byte, t time.Time, colons int) []byte {
	_, off := t.Zone()
	sign := byte('+')
	if off < 0 {
		sign = '-'
		off = -off
	}
	h, m, s := off/3600, off/60%60, off%60
	b = append(b, sign)
	b = fmt.Appendf(b, "%02d", h)
	switch colons {
	case 0:
		b = fmt.Appendf(b, "%02d", m)
	case 1:
		b = fmt.Appendf(b, ":%02d", m)
	case 2:
		b = fmt.Appendf(b, ":%02d:%02d", m, s)
	default:
		if m != 0 || s != 0 {
			b = fmt.Appendf(b, ":%02d", m)
		}
		if s != 0 {
			b = fmt.Appendf(b, ":%02d", s)
		}
	}
	return b
}
