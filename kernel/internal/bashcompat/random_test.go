package bashcompat

import (
	"slices"
	"testing"
)

// RandomSource gives bash 5.2's numbers after RANDOM=seed.
func TestRandomSourceIsBashs(t *testing.T) {
	for _, tc := range []struct {
		seed string
		want []uint64
	}{
		{"42", []uint64{17772, 26794, 1435}},
		{"1", []uint64{16807}},
		{"0", []uint64{20814, 24386}},
	} {
		src, ok := RandomSource(tc.seed)
		if !ok {
			t.Fatalf("RandomSource(%q) refused", tc.seed)
		}
		var got []uint64
		for range tc.want {
			got = append(got, src.Uint64())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("RANDOM=%s gives %v, bash %v", tc.seed, got, tc.want)
		}
	}
	if _, ok := RandomSource("abc"); ok {
		t.Error("RandomSource took a word that is not a number")
	}
}
