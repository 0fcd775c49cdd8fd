package kernel

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel/internal/jobtable"
)

// blockTool runs in process until its call ends: a builtin such as the
// sandbox's sleep.
type blockTool struct{}

func (blockTool) Name() string                 { return "block" }
func (blockTool) Kind() Kind                   { return Builtin }
func (blockTool) Description() string          { return "blocks until its call ends" }
func (blockTool) InputSchema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (blockTool) Run(ctx context.Context, _ *Call) error {
	<-ctx.Done()
	return ctx.Err()
}

// A job whose first command runs in process has no pid coming: `block &`
// gives $! its stand-in at once instead of waiting out jobPIDWait, which
// the test makes an hour so that a wait would not end. Not parallel: it
// changes jobPIDWait for the whole package.
func TestJobOfABuiltinIsKnownAtOnce(t *testing.T) {
	defer func(d time.Duration) { jobPIDWait = d }(jobPIDWait)
	jobPIDWait = time.Hour
	k, err := New(Config{Tools: []Tool{blockTool{}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(SessionOptions{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The generous deadline only keeps a regression from hanging the
	// suite; a pass takes milliseconds.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.Run(ctx, `block & echo $!`, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := strconv.Itoa(jobtable.MaxPID+1) + "\n"
	if got := res.Stdout; got != want || res.ExitCode != 0 {
		t.Errorf("exit %d, stdout %q, want exit 0, %q (stderr %q)", res.ExitCode, got, want, res.Stderr)
	}
}
