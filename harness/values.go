package harness

import (
	"bytes"
	"encoding/json"
	"math/big"
	"slices"
)

// convert reads one word as a value of one of types (nil means any): the
// first reading they allow of null, boolean, integer, number, JSON object
// or array, string.
func convert(types []string, word string) (json.RawMessage, bool) {
	allow := func(t string) bool { return types == nil || slices.Contains(types, t) }
	if allow("null") && word == "null" {
		return json.RawMessage("null"), true
	}
	if allow("boolean") && (word == "true" || word == "false") {
		return json.RawMessage(word), true
	}
	if allow("integer") && isInteger(word) {
		var n big.Int
		if _, ok := n.SetString(word, 10); ok {
			return json.RawMessage(n.String()), true
		}
	}
	if allow("number") && isJSONNumber(word) {
		return json.RawMessage(word), true
	}
	if allow("object") || allow("array") {
		trimmed := bytes.TrimSpace([]byte(word))
		if len(trimmed) > 0 && (allow("object") && trimmed[0] == '{' || allow("array") && trimmed[0] == '[') && json.Valid(trimmed) {
			var buf bytes.Buffer
			if json.Compact(&buf, trimmed) == nil {
				return buf.Bytes(), true
			}
		}
	}
	if allow("string") {
		b, err := json.Marshal(word)
		return b, err == nil
	}
	return nil, false
}

// isInteger reports whether s is an integer in base 10: an optional sign
// and digits, nothing else.
func isInteger(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isJSONNumber reports whether s is a number as JSON writes one.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
