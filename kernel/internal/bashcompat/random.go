package bashcompat

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// RandomSource is bash's generator of $RANDOM after `RANDOM=value`, for
// math/rand/v2's Rand: each Uint64 is bash's next number, below 32768.
// bash 5.2's is Park and Miller's minimal standard generator, its state
// folded to 15 bits, never the same number twice in a row. ok is false
// for a value that is not a number, which bash does not take as a seed.
func RandomSource(value string) (src rand.Source, ok bool) {
	seed, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
	if err != nil {
		return nil, false
	}
	return &randomSource{state: uint32(seed)}, true
}

type randomSource struct {
	state uint32
	last  uint64
}

func (r *randomSource) Uint64() uint64 {
	for {
		r.state = nextState(r.state)
		n := uint64((r.state>>16)^(r.state&0xffff)) & 0x7fff
		if n != r.last {
			r.last = n
			return n
		}
	}
}

// nextState is bash's intrand32: x·16807 mod 2³¹−1, by Schrage's method,
// with 0 replaced.
func nextState(x uint32) uint32 {
	if x == 0 {
		x = 123459876
	}
	v := int32(x)
	h, l := v/127773, v%127773
	t := 16807*l - 2836*h
	if t < 0 {
		t += 0x7fffffff
	}
	return uint32(t)
}
