package builtins

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdSleep = &command{
	name:     "sleep",
	usage:    "NUMBER[SUFFIX]...",
	about:    "Pause for the sum of the NUMBERs of seconds (suffix s, m for minutes, h for hours, d for days; a NUMBER may be a fraction or inf). Ends early, with the call, when the call is cancelled.",
	operands: "intervals, summed",
	run:      runSleep,
}

func runSleep(ctx context.Context, c *kernel.Call, a *args) error {
	if len(a.operands) == 0 {
		return pathnameTry(c, "missing operand")
	}
	var total float64
	ok := true
	for _, word := range a.operands {
		v, rest, good := sleepStrtod(word)
		if good && len(rest) <= 1 && v >= 0 {
			switch rest {
			case "", "s":
			case "m":
				v *= 60
			case "h":
				v *= 60 * 60
			case "d":
				v *= 24 * 60 * 60
			default:
				good = false
			}
		} else {
			good = false
		}
		if !good {
			failf(c, "invalid time interval '%s'", word)
			ok = false
			continue
		}
		total += v
	}
	if !ok {
		c.Stderr.Write([]byte("Try '" + c.Args[0] + " --help' for more information.\n"))
		return status(1)
	}
	if total <= 0 {
		return ctx.Err()
	}
	if total >= float64(math.MaxInt64)/float64(time.Second) {
		<-ctx.Done()
		return ctx.Err()
	}
	t := time.NewTimer(time.Duration(total * float64(time.Second)))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// sleepStrtod reads the longest prefix of s that C's strtod would: space,
// a sign, then a decimal or hexadecimal number with an optional exponent,
// or inf, infinity or nan. It returns the value, what follows it, and
// whether there was a number at all.
func sleepStrtod(s string) (v float64, rest string, ok bool) {
	i := len(s) - len(strings.TrimLeft(s, " \t\n\v\f\r"))
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	lower := strings.ToLower(s[i:])
	for _, word := range []string{"infinity", "inf", "nan"} {
		if strings.HasPrefix(lower, word) {
			end := i + len(word)
			v, _ = strconv.ParseFloat(s[start:end], 64)
			return v, s[end:], true
		}
	}
	digits := func(j int, hex bool) int {
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || hex && strings.IndexByte("abcdefABCDEF", s[j]) >= 0) {
			j++
		}
		return j
	}
	hex := strings.HasPrefix(lower, "0x")
	j := i
	if hex {
		j += 2
	}
	mantissa := j
	j = digits(j, hex)
	n := j - mantissa
	if j < len(s) && s[j] == '.' {
		k := digits(j+1, hex)
		n += k - j - 1
		j = k
	}
	if n == 0 {
		if hex {
			// "0x" alone is the number 0 followed by "x".
			return 0, s[i+1:], true
		}
		return 0, s, false
	}
	end := j
	exp := byte('e')
	if hex {
		exp = 'p'
	}
	if j < len(s) && (s[j]|0x20) == exp {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if d := digits(k, false); d > k {
			end = d
		}
	}
	num := s[start:end]
	if hex && !strings.ContainsAny(s[mantissa:end], "pP") {
		num += "p0"
	}
	v, err := strconv.ParseFloat(strings.TrimLeft(num, " \t\n\v\f\r"), 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		return 0, s, false
	}
	return v, s[end:], true
}
