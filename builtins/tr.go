package builtins

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdTr = &command{
	name:     "tr",
	usage:    "[OPTION]... SET1 [SET2]",
	about:    "Translate, squeeze, and/or delete bytes from standard input, writing to standard output.",
	operands: "SET1 and, when translating or squeezing after deleting, SET2",
	flags: []flag{
		{short: 'c', long: "complement", about: "use the complement of SET1"},
		{short: 'C', about: "use the complement of SET1"},
		{short: 'd', long: "delete", about: "delete bytes in SET1, do not translate"},
		{short: 's', long: "squeeze-repeats", about: "replace each run of a repeated byte of the last SET with one"},
		{short: 't', long: "truncate-set1", about: "first truncate SET1 to the length of SET2"},
	},
	run: runTr,
}

// trUsageError is a misuse GNU tr answers with its message and a pointer to
// --help; its lines are printed as they are.
type trUsageError struct{ lines []string }

func (e *trUsageError) Error() string { return e.lines[0] }

// A trElem is one element of a set: literal bytes (a range expands to
// them), a class, or a [c*n] repeat (n < 0 for [c*]).
type trElem struct {
	bytes  []byte
	class  string
	repeat int
	fill   bool // [c*] or [c*0]: fills SET2 to SET1's length
}

var trClasses = map[string]func(b byte) bool{
	"alnum":  func(b byte) bool { return isASCIIDigit(b) || isASCIIAlpha(b) },
	"alpha":  isASCIIAlpha,
	"blank":  func(b byte) bool { return b == ' ' || b == '\t' },
	"cntrl":  func(b byte) bool { return b < 32 || b == 127 },
	"digit":  isASCIIDigit,
	"graph":  func(b byte) bool { return b > 32 && b < 127 },
	"lower":  func(b byte) bool { return b >= 'a' && b <= 'z' },
	"print":  func(b byte) bool { return b >= 32 && b < 127 },
	"punct":  func(b byte) bool { return b > 32 && b < 127 && !isASCIIDigit(b) && !isASCIIAlpha(b) },
	"space":  func(b byte) bool { return b == ' ' || (b >= '\t' && b <= '\r') },
	"upper":  func(b byte) bool { return b >= 'A' && b <= 'Z' },
	"xdigit": func(b byte) bool { return isASCIIDigit(b) || (b|0x20 >= 'a' && b|0x20 <= 'f') },
}

func isASCIIDigit(b byte) bool { return b >= '0' && b <= '9' }
func isASCIIAlpha(b byte) bool { return (b|0x20) >= 'a' && (b|0x20) <= 'z' }

// classBytes are a class's members in ascending order.
func trClassBytes(name string) []byte {
	in := trClasses[name]
	var out []byte
	for i := 0; i < 256; i++ {
		if in(byte(i)) {
			out = append(out, byte(i))
		}
	}
	return out
}

type trChar struct {
	b   byte
	esc bool
}

// trUnescape resolves backslash escapes, remembering which bytes were
// escaped (an escaped '[' or '-' is literal).
func trUnescape(c *kernel.Call, s string) []trChar {
	var out []trChar
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out = append(out, trChar{s[i], false})
			continue
		}
		if i+1 == len(s) {
			failf(c, "warning: an unescaped backslash at end of string is not portable")
			out = append(out, trChar{'\\', true})
			continue
		}
		i++
		switch ch := s[i]; ch {
		case 'a':
			out = append(out, trChar{7, true})
		case 'b':
			out = append(out, trChar{8, true})
		case 'f':
			out = append(out, trChar{12, true})
		case 'n':
			out = append(out, trChar{'\n', true})
		case 'r':
			out = append(out, trChar{'\r', true})
		case 't':
			out = append(out, trChar{'\t', true})
		case 'v':
			out = append(out, trChar{11, true})
		default:
			if ch < '0' || ch > '7' {
				out = append(out, trChar{ch, true})
				continue
			}
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 16)
			if v > 255 {
				failf(c, "warning: the ambiguous octal escape \\%s is being\n\tinterpreted as the 2-byte sequence \\0%s, %s", s[i:j], s[i:j-1], s[j-1:j])
				j--
				v, _ = strconv.ParseUint(s[i:j], 8, 16)
			}
			out = append(out, trChar{byte(v), true})
			i = j - 1
		}
	}
	return out
}

// trParse reads a set into its elements.
func trParse(c *kernel.Call, s string) ([]trElem, error) {
	cs := trUnescape(c, s)
	var elems []trElem
	lit := func(b byte) {
		if n := len(elems); n > 0 && elems[n-1].class == "" && elems[n-1].repeat == 0 && !elems[n-1].fill {
			elems[n-1].bytes = append(elems[n-1].bytes, b)
			return
		}
		elems = append(elems, trElem{bytes: []byte{b}})
	}
	for i := 0; i < len(cs); i++ {
		if cs[i].b == '[' && !cs[i].esc && i+1 < len(cs) {
			if e, n, ok, err := trBracket(cs[i+1:]); err != nil {
				return nil, err
			} else if ok {
				elems = append(elems, e)
				i += n
				continue
			}
		}
		if i+2 < len(cs) && cs[i+1].b == '-' && !cs[i+1].esc {
			lo, hi := cs[i].b, cs[i+2].b
			if lo > hi {
				return nil, fmt.Errorf("range-endpoints of '%c-%c' are in reverse collating sequence order", lo, hi)
			}
			for b := int(lo); b <= int(hi); b++ {
				lit(byte(b))
			}
			i += 2
			continue
		}
		lit(cs[i].b)
	}
	return elems, nil
}

// trBracket reads a construct after '[': [:class:], [=c=], [c*n]. It
// returns how many characters it used beyond the '[', and false when
// the '[' is a literal.
func trBracket(cs []trChar) (trElem, int, bool, error) {
	end := func(from int, a, b byte) int {
		for j := from; j+1 < len(cs); j++ {
			if cs[j].b == a && cs[j+1].b == b && !cs[j].esc && !cs[j+1].esc {
				return j
			}
		}
		return -1
	}
	switch {
	case cs[0].b == ':' && !cs[0].esc:
		j := end(1, ':', ']')
		if j < 0 {
			break
		}
		name := make([]byte, 0, j)
		for _, ch := range cs[1:j] {
			name = append(name, ch.b)
		}
		if _, ok := trClasses[string(name)]; !ok {
			return trElem{}, 0, false, fmt.Errorf("invalid character class '%s'", name)
		}
		return trElem{class: string(name)}, j + 2, true, nil
	case cs[0].b == '=' && !cs[0].esc:
		if len(cs) >= 4 && cs[2].b == '=' && cs[3].b == ']' && !cs[2].esc && !cs[3].esc {
			return trElem{bytes: []byte{cs[1].b}, class: "="}, 4, true, nil
		}
	}
	if len(cs) >= 3 && cs[1].b == '*' && !cs[1].esc {
		j := 2
		for j < len(cs) && !(cs[j].b == ']' && !cs[j].esc) {
			if cs[j].b < '0' || cs[j].b > '9' || cs[j].esc {
				return trElem{}, 0, false, nil
			}
			j++
		}
		if j == len(cs) {
			return trElem{}, 0, false, nil
		}
		digits := make([]byte, 0, j-2)
		for _, ch := range cs[2:j] {
			digits = append(digits, ch.b)
		}
		n := uint64(0)
		if len(digits) > 0 {
			base := 10
			if digits[0] == '0' {
				base = 8
			}
			var err error
			if n, err = strconv.ParseUint(string(digits), base, 31); err != nil {
				return trElem{}, 0, false, fmt.Errorf("invalid repeat count '%s' in [c*n] construct", digits)
			}
		}
		e := trElem{bytes: []byte{cs[0].b}, repeat: int(n), fill: n == 0}
		return e, j + 1, true, nil
	}
	return trElem{}, 0, false, nil
}

// trExpand lists a set's bytes; starts marks where each case class begins.
func trExpand(elems []trElem, fillTo int) (out []byte, caseAt map[int]bool) {
	caseAt = map[int]bool{}
	fixed := 0
	for _, e := range elems {
		switch {
		case e.fill:
		case e.repeat > 0:
			fixed += e.repeat
		case e.class != "" && e.class != "=":
			fixed += len(trClassBytes(e.class))
		default:
			fixed += len(e.bytes)
		}
	}
	for _, e := range elems {
		switch {
		case e.fill:
			for n := fillTo - fixed; n > 0; n-- {
				out = append(out, e.bytes[0])
			}
			fixed = fillTo
		case e.repeat > 0:
			for n := 0; n < e.repeat; n++ {
				out = append(out, e.bytes[0])
			}
		case e.class != "" && e.class != "=":
			if e.class == "upper" || e.class == "lower" {
				caseAt[len(out)] = true
			}
			out = append(out, trClassBytes(e.class)...)
		default:
			out = append(out, e.bytes...)
		}
	}
	return out, caseAt
}

func runTr(ctx context.Context, c *kernel.Call, a *args) error {
	err := trRun(ctx, c, a)
	var ue *trUsageError
	if errors.As(err, &ue) {
		for _, l := range ue.lines {
			failf(c, "%s", l)
		}
		fmt.Fprintf(c.Stderr, "Try '%s --help' for more information.\n", c.Args[0])
		return status(1)
	}
	if err != nil {
		if _, ok := err.(kernel.ExitStatus); ok {
			return err
		}
		failf(c, "%s", err)
		return status(1)
	}
	return nil
}

func trRun(ctx context.Context, c *kernel.Call, a *args) error {
	complement := a.has("complement") || a.has("C")
	del, squeeze, truncate := a.has("delete"), a.has("squeeze-repeats"), a.has("truncate-set1")
	ops := a.operands
	translating := !del && len(ops) == 2
	need := 1
	if translating || (del && squeeze) || (!del && !squeeze) {
		need = 2
	}
	switch {
	case len(ops) == 0:
		return &trUsageError{[]string{"missing operand"}}
	case len(ops) < need:
		why := "Two strings must be given when translating."
		if del {
			why = "Two strings must be given when both deleting and squeezing repeats."
		}
		return &trUsageError{[]string{fmt.Sprintf("missing operand after '%s'\n%s", ops[len(ops)-1], why)}}
	case len(ops) > need || len(ops) > 2:
		line := fmt.Sprintf("extra operand '%s'", ops[need])
		if need == 1 && del {
			line += "\nOnly one string may be given when deleting without squeezing repeats."
		}
		return &trUsageError{[]string{line}}
	}
	e1, err := trParse(c, ops[0])
	if err != nil {
		return err
	}
	for _, e := range e1 {
		if e.fill || e.repeat > 0 {
			return errors.New("the [c*] repeat construct may not appear in string1")
		}
	}
	set1, case1 := trExpand(e1, 0)
	var in1 [256]bool
	for _, b := range set1 {
		in1[b] = true
	}
	if complement {
		set1 = set1[:0:0]
		for i := 0; i < 256; i++ {
			if !in1[i] {
				set1 = append(set1, byte(i))
			}
		}
		for i := range in1 {
			in1[i] = !in1[i]
		}
	}
	var set2 []byte
	if len(ops) == 2 {
		e2, err := trParse(c, ops[1])
		if err != nil {
			return err
		}
		fills := 0
		for _, e := range e2 {
			if e.fill {
				fills++
			}
			if translating {
				if e.class == "=" {
					return errors.New("[=c=] expressions may not appear in string2 when translating")
				}
				if e.class != "" && e.class != "=" && e.class != "upper" && e.class != "lower" {
					return errors.New("when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'")
				}
			}
		}
		if fills > 1 {
			return errors.New("only one [c*] repeat construct may appear in string2")
		}
		var case2 map[int]bool
		set2, case2 = trExpand(e2, len(set1))
		if translating {
			if complement && len(case2) > 0 {
				return errors.New("when translating with complemented character classes,\nstring2 must map all characters in the domain to one")
			}
			for i := range case2 {
				if !case1[i] {
					return errors.New("misaligned [:upper:] and/or [:lower:] construct")
				}
			}
			if last := e2; len(last) > 0 && len(set1) > len(set2) && !truncate {
				if l := last[len(last)-1]; l.class != "" && l.class != "=" {
					return errors.New("when translating with string1 longer than string2,\nthe latter string must not end with a character class")
				}
			}
		}
	}
	var table [256]byte
	for i := range table {
		table[i] = byte(i)
	}
	var drop, squeezeSet [256]bool
	switch {
	case translating:
		if len(set2) == 0 && len(set1) > 0 && !truncate {
			return errors.New("when not truncating set1, string2 must be non-empty")
		}
		if truncate && len(set1) > len(set2) {
			set1 = set1[:len(set2)]
		}
		for i, b := range set1 {
			if i < len(set2) {
				table[b] = set2[i]
			} else {
				table[b] = set2[len(set2)-1]
			}
		}
		if squeeze {
			for _, b := range set2 {
				squeezeSet[b] = true
			}
		}
	case del:
		drop = in1
		for _, b := range set2 {
			squeezeSet[b] = true
		}
	default:
		squeezeSet = in1
	}
	return trStream(ctx, c, &table, &drop, &squeezeSet)
}

func trStream(ctx context.Context, c *kernel.Call, table *[256]byte, drop, squeezeSet *[256]bool) error {
	if c.Stdin == nil {
		return nil
	}
	w := newWriter(c.Stdout)
	defer freeWriter(w)
	chunk := getChunk()
	defer putChunk(chunk)
	buf := *chunk
	out := make([]byte, 0, len(buf))
	last := -1
	for {
		if err := ctx.Err(); err != nil {
			w.Flush()
			return err
		}
		n, rerr := c.Stdin.Read(buf)
		out = out[:0]
		for _, b := range buf[:n] {
			if drop[b] {
				continue
			}
			t := table[b]
			if squeezeSet[t] && int(t) == last {
				continue
			}
			last = int(t)
			out = append(out, t)
		}
		if _, err := w.Write(out); err != nil {
			return status(1)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			w.Flush()
			failf(c, "read error: %s", reason(rerr))
			return status(1)
		}
	}
	if err := w.Flush(); err != nil {
		return status(1)
	}
	return nil
}
