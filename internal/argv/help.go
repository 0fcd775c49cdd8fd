package argv

import (
	"strings"
	"unicode/utf8"
)

// Help renders the set's flags as every help lists them, or "" when the
// set has none: one row a flag, its [Flag.Usage] then its about line,
// which notes Required, Repeatable and Default, wrapped at 80 columns
// under itself; then the help words, when some flag does not shadow
// them.
//
//	flags:
//	  -n, --max-count N  limit the number of commits (required)
//	  --since DATE       show commits more recent than DATE
//	  -h, --help         print this help
func (s *Set) Help() string {
	var rows [][2]string
	for _, f := range s.Flags {
		rows = append(rows, [2]string{f.Usage(), f.note()})
	}
	var help []string
	for _, w := range s.HelpWords {
		if s.find(w) == nil {
			help = append(help, w)
		}
	}
	if len(help) > 0 {
		rows = append(rows, [2]string{(&Flag{Names: help}).Usage(), "print this help"})
	}
	if len(rows) == 0 {
		return ""
	}
	width := 0
	for _, r := range rows {
		if n := utf8.RuneCountInString(r[0]); n <= maxUsage {
			width = max(width, n)
		}
	}
	indent := strings.Repeat(" ", 2+width+2)
	var b strings.Builder
	b.WriteString("flags:\n")
	for _, r := range rows {
		b.WriteString("  " + r[0])
		if r[1] == "" {
			b.WriteByte('\n')
			continue
		}
		if n := utf8.RuneCountInString(r[0]); n <= width {
			b.WriteString(strings.Repeat(" ", width-n+2))
		} else {
			b.WriteString("\n" + indent)
		}
		wrap(&b, r[1], indent, len(indent))
	}
	return b.String()
}

// maxUsage is the widest usage the about column is aligned after;
// a wider one has its about on the next line.
const maxUsage = 30

// helpWidth is the column help wraps at.
const helpWidth = 80

// wrap writes text from column at on, breaking it between words before
// helpWidth onto lines that start with indent.
func wrap(b *strings.Builder, text, indent string, at int) {
	col := at
	for i, w := range strings.Fields(text) {
		n := utf8.RuneCountInString(w)
		switch {
		case i == 0:
		case col+1+n > helpWidth:
			b.WriteString("\n" + indent)
			col = len(indent)
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += n
	}
	b.WriteByte('\n')
}

// note is the flag's about line in help: the first line of About, then
// what the flag's declaration adds, in parentheses.
func (f *Flag) note() string {
	about := strings.TrimSpace(f.About)
	if i := strings.IndexByte(about, '\n'); i >= 0 {
		about = about[:i]
	}
	var notes []string
	if f.Required {
		notes = append(notes, "required")
	}
	if f.Repeatable {
		notes = append(notes, "repeatable")
	}
	if f.Default != "" {
		notes = append(notes, "default: "+f.Default)
	}
	if len(notes) > 0 {
		about = strings.TrimSpace(about + " (" + strings.Join(notes, ", ") + ")")
	}
	return about
}
