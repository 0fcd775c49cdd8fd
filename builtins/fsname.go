package builtins

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/shelter-sh/shelter/kernel"
)

// This file holds what the file commands (mkdir, rm, rmdir, cp, mv, ln,
// touch) share in their messages: quoting a name as GNU does, an error's
// reason, the missing-operand lines. Every file access in those commands
// goes through the call's opener.

// fsQuote quotes a name as GNU's messages do in the C locale
// (shell-escape-always): 'name', "name" when it holds a single quote and
// nothing a double-quoted shell word would expand, and $'\n' for control
// bytes.
func fsQuote(s string) string {
	needs := false
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b == 0x7f {
			needs = true
		}
	}
	if !needs {
		if !strings.Contains(s, "'") {
			return "'" + s + "'"
		}
		if !strings.ContainsAny(s, "\"$`\\!") {
			return "\"" + s + "\""
		}
	}
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			b.WriteString(`'\''`)
		case c < 0x20 || c == 0x7f:
			b.WriteString(`'$'`)
			switch c {
			case '\n':
				b.WriteString(`\n`)
			case '\t':
				b.WriteString(`\t`)
			case '\r':
				b.WriteString(`\r`)
			default:
				fmt.Fprintf(&b, `\%03o`, c)
			}
			b.WriteString(`''`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	out := b.String()
	// GNU drops the empty '' pairs the escapes leave at either end.
	out = strings.TrimSuffix(out, "''")
	out = strings.TrimPrefix(out, "''")
	return out
}

// fsQuoteC quotes a name as GNU's quote() does in the C locale: 'name',
// with a quote or backslash escaped and control bytes as C escapes.
func fsQuoteC(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// fsQuoteIfNeeded is a name as GNU's quotef() prints it: bare unless it
// holds something a shell would read specially.
func fsQuoteIfNeeded(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\r'\"$`\\|&;<>()*?[]#~=%!{}^") {
		plain := true
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] == 0x7f {
				plain = false
			}
		}
		if plain {
			return s
		}
	}
	return fsQuote(s)
}

// fsReason is the strerror(3) text of a file error, without the operation
// and name the opener's *fs.PathError carries.
func fsReason(err error) string {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &le):
		err = le.Err
	case errors.As(err, &pe):
		err = pe.Err
	}
	if errors.Is(err, kernel.ErrOutsideRoot) || errors.Is(err, kernel.ErrShelterProc) {
		return err.Error()
	}
	return reason(err)
}

// fsMissing prints GNU's missing-operand lines.
func fsMissing(c *kernel.Call, what string) error {
	failf(c, "%s\nTry '%s --help' for more information.", what, c.Args[0])
	return status(1)
}

// fsJoin is dir/base as GNU prints it.
func fsJoin(dir, base string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + base
	}
	return dir + "/" + base
}

// fsBase is the last component of a name, trailing slashes ignored.
func fsBase(name string) string {
	t := strings.TrimRight(name, "/")
	if t == "" {
		return "/"
	}
	return filepath.Base(t)
}
