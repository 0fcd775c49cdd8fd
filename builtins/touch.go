package builtins

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdTouch = &command{
	name:     "touch",
	usage:    "[OPTION]... FILE...",
	about:    "Update the access and modification times of each FILE to the current time; create it when missing.",
	operands: "files",
	flags: []flag{
		{short: 'a', about: "change only the access time"},
		{short: 'c', long: "no-create", about: "do not create any files"},
		{short: 'd', long: "date", arg: "STRING", about: "use @EPOCH or an ISO date (YYYY-MM-DD[ HH:MM[:SS[.frac]]][Z|±HH:MM]) instead of now"},
		{short: 'm', about: "change only the modification time"},
		{short: 'r', long: "reference", arg: "FILE", about: "use this file's times instead of now"},
		{short: 't', arg: "STAMP", about: "use [[CC]YY]MMDDhhmm[.ss] instead of now"},
	},
	run: runTouch,
}

func runTouch(_ context.Context, c *kernel.Call, a *args) error {
	if len(a.operands) == 0 {
		return fsMissing(c, "missing file operand")
	}
	o := c.Opener()
	loc := fsLocation(c)
	now := time.Now()
	atime, mtime := now, now
	switch a.last("date", "reference", "t") {
	case "date":
		s := a.value("date", "")
		t, ok := touchParseDate(s, now, loc)
		if !ok {
			failf(c, "invalid date format %s", fsQuoteC(s))
			return status(1)
		}
		atime, mtime = t, t
	case "t":
		s := a.value("t", "")
		t, ok := touchParseStamp(s, now, loc)
		if !ok {
			failf(c, "invalid date format %s", fsQuoteC(s))
			return status(1)
		}
		atime, mtime = t, t
	case "reference":
		ref := a.value("reference", "")
		fi, err := o.Stat(ref)
		if err != nil {
			failf(c, "failed to get attributes of %s: %s", fsQuote(ref), fsReason(err))
			return status(1)
		}
		atime, mtime = fsAtime(fi), fi.ModTime()
	}
	onlyA, onlyM := a.has("a"), a.has("m")
	if onlyA && !onlyM {
		mtime = time.Time{}
	}
	if onlyM && !onlyA {
		atime = time.Time{}
	}
	st := 0
	for _, name := range a.operands {
		if _, err := o.Stat(name); errors.Is(err, fs.ErrNotExist) {
			if a.has("no-create") {
				continue
			}
			f, err := o.OpenFile(context.Background(), name, os.O_WRONLY|os.O_CREATE, 0o666)
			if err != nil {
				failf(c, "cannot touch %s: %s", fsQuote(name), fsReason(err))
				st = 1
				continue
			}
			f.Close()
		}
		if err := o.Chtimes(name, atime, mtime); err != nil {
			failf(c, "setting times of %s: %s", fsQuote(name), fsReason(err))
			st = 1
		}
	}
	return status(st)
}

// fsLocation is the time zone the call's TZ names, the process's own when
// it names none.
func fsLocation(c *kernel.Call) *time.Location {
	tz, ok := "", false
	for _, kv := range c.Env {
		if v, found := strings.CutPrefix(kv, "TZ="); found {
			tz, ok = v, true
		}
	}
	if !ok {
		return time.Local
	}
	tz = strings.TrimPrefix(tz, ":")
	if tz == "" || tz == "UTC" || tz == "UTC0" {
		return time.UTC
	}
	if loc, err := time.LoadLocation(tz); err == nil {
		return loc
	}
	return time.UTC
}

// touchParseDate reads touch -d's forms: @EPOCH[.frac], "now", and ISO
// dates with an optional time, fraction and zone.
func touchParseDate(s string, now time.Time, loc *time.Location) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "now" {
		return now, true
	}
	if e, ok := strings.CutPrefix(s, "@"); ok {
		sec, frac, _ := strings.Cut(e, ".")
		n, err := strconv.ParseInt(sec, 10, 64)
		if err != nil {
			return time.Time{}, false
		}
		var ns int64
		if frac != "" {
			if strings.Trim(frac, "0123456789") != "" {
				return time.Time{}, false
			}
			frac = (frac + "000000000")[:9]
			ns, _ = strconv.ParseInt(frac, 10, 64)
			if n < 0 {
				ns = -ns
			}
		}
		return time.Unix(n, ns), true
	}
	for _, layout := range []string{
		"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02T15:04:05.999999999 Z07:00", "2006-01-02 15:04:05.999999999 Z07:00",
		"2006-01-02T15:04Z07:00", "2006-01-02 15:04Z07:00",
		"2006-01-02 15:04 Z07:00",
	} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	for _, layout := range []string{
		"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999",
		"2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02",
	} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// touchParseStamp reads touch -t's [[CC]YY]MMDDhhmm[.ss].
func touchParseStamp(s string, now time.Time, loc *time.Location) (time.Time, bool) {
	main, secs, hasSecs := strings.Cut(s, ".")
	if !isDigits(main) || hasSecs && (len(secs) != 2 || !isDigits(secs)) {
		return time.Time{}, false
	}
	year := now.In(loc).Year()
	switch len(main) {
	case 8:
	case 10:
		yy, _ := strconv.Atoi(main[:2])
		if yy < 69 {
			year = 2000 + yy
		} else {
			year = 1900 + yy
		}
		main = main[2:]
	case 12:
		year, _ = strconv.Atoi(main[:4])
		main = main[4:]
	default:
		return time.Time{}, false
	}
	num := func(i int) int { n, _ := strconv.Atoi(main[i : i+2]); return n }
	mon, day, hh, mm := num(0), num(2), num(4), num(6)
	ss := 0
	if hasSecs {
		ss, _ = strconv.Atoi(secs)
	}
	if mon < 1 || mon > 12 || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(mon), day, hh, mm, ss, 0, loc)
	if t.Day() != day {
		return time.Time{}, false
	}
	return t, true
}
