package bashfmt

import (
	"fmt"
	"strings"
	"time"
)

// strftime formats t as C's strftime in the C locale, for printf's
// %(...)T. An unknown conversion is printed as it was written.
func strftime(layout string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(layout); i++ {
		c := layout[i]
		if c != '%' || i+1 == len(layout) {
			b.WriteByte(c)
			continue
		}
		i++
		for i+1 < len(layout) && strings.IndexByte("EO-_0^#", layout[i]) >= 0 {
			i++ // modifiers and GNU flags: C locale output is the same
		}
		b.WriteString(strftimeField(layout[i], t))
	}
	return b.String()
}

func strftimeField(c byte, t time.Time) string {
	switch c {
	case 'a':
		return t.Format("Mon")
	case 'A':
		return t.Format("Monday")
	case 'b', 'h':
		return t.Format("Jan")
	case 'B':
		return t.Format("January")
	case 'c':
		return t.Format("Mon Jan _2 15:04:05 2006")
	case 'C':
		return fmt.Sprintf("%02d", t.Year()/100)
	case 'd':
		return fmt.Sprintf("%02d", t.Day())
	case 'D', 'x':
		return t.Format("01/02/06")
	case 'e':
		return fmt.Sprintf("%2d", t.Day())
	case 'F':
		return t.Format("2006-01-02")
	case 'g':
		y, _ := t.ISOWeek()
		return fmt.Sprintf("%02d", y%100)
	case 'G':
		y, _ := t.ISOWeek()
		return fmt.Sprint(y)
	case 'H':
		return fmt.Sprintf("%02d", t.Hour())
	case 'I':
		return fmt.Sprintf("%02d", (t.Hour()+11)%12+1)
	case 'j':
		return fmt.Sprintf("%03d", t.YearDay())
	case 'k':
		return fmt.Sprintf("%2d", t.Hour())
	case 'l':
		return fmt.Sprintf("%2d", (t.Hour()+11)%12+1)
	case 'm':
		return fmt.Sprintf("%02d", int(t.Month()))
	case 'M':
		return fmt.Sprintf("%02d", t.Minute())
	case 'n':
		return "\n"
	case 'p':
		return t.Format("PM")
	case 'P':
		return strings.ToLower(t.Format("PM"))
	case 'r':
		return t.Format("03:04:05 PM")
	case 'R':
		return t.Format("15:04")
	case 's':
		return fmt.Sprint(t.Unix())
	case 'S':
		return fmt.Sprintf("%02d", t.Second())
	case 't':
		return "\t"
	case 'T', 'X':
		return t.Format("15:04:05")
	case 'u':
		return fmt.Sprint((int(t.Weekday())+6)%7 + 1)
	case 'U':
		return fmt.Sprintf("%02d", (t.YearDay()+6-int(t.Weekday()))/7)
	case 'V':
		_, w := t.ISOWeek()
		return fmt.Sprintf("%02d", w)
	case 'w':
		return fmt.Sprint(int(t.Weekday()))
	case 'W':
		return fmt.Sprintf("%02d", (t.YearDay()+6-(int(t.Weekday())+6)%7)/7)
	case 'y':
		return fmt.Sprintf("%02d", t.Year()%100)
	case 'Y':
		return fmt.Sprint(t.Year())
	case 'z':
		return t.Format("-0700")
	case 'Z':
		return t.Format("MST")
	case '%':
		return "%"
	}
	return "%" + string(c)
}
