package builtins

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

func TestSleepGNU(t *testing.T) {
	t.Parallel()
	cases := []gnuCase{
		{name: "zero", script: "sleep 0"},
		{name: "suffixes", script: "sleep 0s 0m 0h 0d .0 0. +0 ' 0' 0x0 0e5s 0.001"},
		{name: "invalid", script: "sleep x 1y ''"},
		{name: "invalid suffix", script: "sleep 1ss"},
		{name: "upper suffix", script: "sleep 0S"},
		{name: "nan", script: "sleep nan"},
		{name: "missing", script: "sleep"},
		{name: "dashdash", script: "sleep -- 0"},
	}
	compareGNU(t, []kernel.Tool{cmdSleep}, cases)
}

func TestSleepCancel(t *testing.T) {
	for _, word := range []string{"10", "inf", "1d", "1e300"} {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		var out strings.Builder
		go func() {
			done <- cmdSleep.Run(ctx, &kernel.Call{Args: []string{"sleep", word}, Stdout: &out, Stderr: &out})
		}()
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("sleep %s cancelled: %v", word, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("sleep %s did not end when cancelled", word)
		}
	}
}

func TestSleepStrtod(t *testing.T) {
	for _, tc := range []struct {
		word, rest string
		want       float64
	}{
		{"1.5", "", 1.5}, {"2m", "m", 2}, {".5h", "h", 0.5}, {"0x10", "", 16}, {"0x1p4s", "s", 16},
		{"1e2", "", 100}, {"1e", "e", 1}, {" +3", "", 3}, {"0x", "x", 0}, {"1.", "", 1},
	} {
		v, rest, ok := sleepStrtod(tc.word)
		if !ok || rest != tc.rest || v != tc.want {
			t.Errorf("%q: %v %q %v, want %v %q", tc.word, v, rest, ok, tc.want, tc.rest)
		}
	}
	if _, _, ok := sleepStrtod("x"); ok {
		t.Errorf("x read as a number")
	}
}

func TestSleepDeadline(t *testing.T) {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(time.Millisecond))
	defer cancel()
	var out strings.Builder
	err := cmdSleep.Run(ctx, &kernel.Call{Args: []string{"sleep", "1", "1m"}, Stdout: &out, Stderr: &out})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("sleep past the deadline: %v", err)
	}
}
