package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// Decode reads one JSON value as [Schema.Validate] takes it: objects are
// map[string]any, arrays []any, numbers [json.Number] (so that integers
// stay exact), strings, booleans and nil. Anything after the value but
// white space is an error.
func Decode(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("no JSON value")
		}
		return nil, err
	}
	switch _, err := d.Token(); {
	case errors.Is(err, io.EOF):
		return v, nil
	case err != nil:
		return nil, fmt.Errorf("after the JSON value: %v", err)
	}
	return nil, errors.New("more than one JSON value")
}

// maxExponent bounds the decimal exponent of a number read exactly: a
// number like 1e999999999 would take minutes to expand.
const maxExponent = 10000

// errRange is a number too large (or too small) to compare exactly.
var errRange = errors.New("number out of range")

// number is a JSON number read exactly. Small integers, the common case,
// are compared without big arithmetic.
type number struct {
	text  string
	small bool  // i holds the value
	i     int64 //
	rat   *big.Rat
}

// parseNumber reads a JSON number's text.
func parseNumber(s string) (number, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return number{text: s, small: true, i: i}, nil
	}
	if e := strings.IndexAny(s, "eE"); e >= 0 {
		exp, err := strconv.Atoi(strings.TrimPrefix(s[e+1:], "+"))
		if err != nil || exp > maxExponent || exp < -maxExponent {
			return number{}, errRange
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return number{}, fmt.Errorf("%q is not a number", s)
	}
	if r.IsInt() && r.Num().IsInt64() {
		return number{text: s, small: true, i: r.Num().Int64()}, nil
	}
	return number{text: s, rat: r}, nil
}

func (n number) isInt() bool { return n.small || n.rat.IsInt() }

func (n number) big() *big.Rat {
	if n.small {
		return new(big.Rat).SetInt64(n.i)
	}
	return n.rat
}

// cmp compares n and m: -1, 0 or +1.
func (n number) cmp(m number) int {
	if n.small && m.small {
		switch {
		case n.i < m.i:
			return -1
		case n.i > m.i:
			return 1
		}
		return 0
	}
	return n.big().Cmp(m.big())
}

// multipleOf reports whether n is an integer multiple of m (m > 0).
func (n number) multipleOf(m number) bool {
	if n.small && m.small {
		return n.i%m.i == 0
	}
	return new(big.Rat).Quo(n.big(), m.big()).IsInt()
}

// intOf reads a non-negative integer keyword value, capped at MaxInt.
func (n number) intOf() (int, bool) {
	if !n.isInt() || n.cmp(number{small: true}) < 0 {
		return 0, false
	}
	if n.small {
		if n.i > math.MaxInt {
			return math.MaxInt, true
		}
		return int(n.i), true
	}
	return math.MaxInt, true
}

// typeName is the JSON type of a decoded value: null, boolean, number,
// string, array or object.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// isInteger reports whether a number has no fractional part (1.0 is an
// integer, as the spec says).
func isInteger(n json.Number) (bool, error) {
	if !strings.ContainsAny(string(n), ".eE") {
		return true, nil
	}
	x, err := parseNumber(string(n))
	if err != nil {
		return false, err
	}
	return x.isInt(), nil
}

// equal is JSON equality: numbers by value (1 == 1.0), objects whatever
// their key order. A number out of range equals only the same text.
func equal(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case string:
		b, ok := b.(string)
		return ok && a == b
	case json.Number:
		b, ok := b.(json.Number)
		if !ok {
			return false
		}
		if a == b {
			return true
		}
		x, err1 := parseNumber(string(a))
		y, err2 := parseNumber(string(b))
		return err1 == nil && err2 == nil && x.cmp(y) == 0
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equal(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !equal(av, bv) {
				return false
			}
		}
		return true
	}
	return false
}

// canonical writes a value so that two values are equal exactly when
// their canonical forms are: numbers as exact fractions, object keys
// sorted. uniqueItems hashes it.
func canonical(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("n")
	case bool:
		if v {
			b.WriteString("t")
		} else {
			b.WriteString("f")
		}
	case string:
		b.WriteString(strconv.Quote(v))
	case json.Number:
		b.WriteByte('#')
		if x, err := parseNumber(string(v)); err == nil {
			if x.small {
				b.WriteString(strconv.FormatInt(x.i, 10))
			} else {
				b.WriteString(x.rat.RatString())
			}
		} else {
			b.WriteString("?" + string(v))
		}
	case []any:
		b.WriteByte('[')
		for _, e := range v {
			canonical(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case map[string]any:
		keys := sortedKeys(v)
		b.WriteByte('{')
		for _, k := range keys {
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			canonical(b, v[k])
			b.WriteByte(',')
		}
		b.WriteByte('}')
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// display shows a primitive value in a message: strings quoted with '…',
// numbers as written.
func display(v any) string {
	switch v := v.(type) {
	case string:
		return quote(v)
	case json.Number:
		return string(v)
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprint(v)
}

// quote puts a string in '…', with Go escapes for what would break the
// line.
func quote(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	return "'" + strings.ReplaceAll(q, `'`, `\'`) + "'"
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	return strings.Join(q, ", ")
}
