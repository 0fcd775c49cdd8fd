package kernel

import (
	"context"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
	"github.com/shelter-sh/shelter/spawn"
)

// A call run with [RunOptions.Terminal] runs as a line typed at a
// shell's prompt: the programs it starts in the foreground take the
// terminal in turn (spawn.Cmd.Terminal), and streams that are the
// terminal are handed to them as they are, so that a full-screen
// program draws on the terminal itself rather than into a pipe.

// terminalStreams are the shell's stdout and stderr for a call: a
// Stdout or Stderr that is a terminal replaces the captured stream when
// the call runs on a terminal.
func terminalStreams(opts RunOptions, out, errOut io.Writer) (io.Writer, io.Writer) {
	if opts.Terminal == nil || opts.TTY != nil {
		return out, errOut
	}
	if f, ok := opts.Stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		out = f
	}
	if f, ok := opts.Stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		errOut = f
	}
	return out, errOut
}

// foreground gives cmd the call's terminal when it runs in the call's
// foreground: not as a job (`cmd &`), nor in a background nested in a
// function, subshell or group.
func (s *Session) foreground(ctx context.Context, cmd *spawn.Cmd) {
	if cmd.Terminal != nil || jobOf(ctx) != nil {
		return
	}
	st := s.callOf(ctx)
	if st == nil || st.terminal == nil {
		return
	}
	if env, ok := handlerEnv(ctx); ok {
		if id, _ := strconv.Atoi(env.Get(bgNextVar).String()); id > 0 {
			return
		}
	}
	cmd.Terminal = st.terminal
	if cmd.Interrupted == nil {
		cmd.Interrupted = st.interrupt
	}
}

// Exited reports whether the session's last call made with
// [RunOptions.Interactive] ended the shell: it ran exit (outside a
// subshell), or failed under set -e. A prompt then ends, as an
// interactive bash does. A call that was cancelled or timed out reads as
// exited too: check [Result.Cancelled] and [Result.TimedOut] first.
func (s *Session) Exited() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.closed && s.runner.Exited()
}

// Vars returns the session's variables that are set, each with the
// value $NAME expands to (an array's first element), as of the end of
// the last call. The variables shelter keeps its own state in (named
// SHELTER_…) are left out.
func (s *Session) Vars() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lendVars()
	defer s.returnVars()
	s.ready()
	vars := s.variables()
	out := make(map[string]string, len(vars))
	for name, v := range vars {
		if !v.IsSet() || strings.HasPrefix(name, "SHELTER_") {
			continue
		}
		out[name] = v.String()
	}
	// The variables the session answers as they are read, which no
	// listing of its variables holds.
	for _, name := range shast.IdentityVars {
		if v := s.variable(name); v.IsSet() {
			out[name] = v.String()
		}
	}
	return out
}

// Funcs returns the names of the session's functions, sorted.
func (s *Session) Funcs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.runner.Funcs))
}
