package kernel

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/shelter-sh/shelter/internal/refusal"
)

// externalRefusalLine is the agent's refusal of name, an external command
// the session's policy ([ExternalsDenied]) does not let run: the command
// (its base name, however it was typed) and what the session runs
// instead, pool ([Session.externalPool]). The agent cannot change the
// configuration, so the way to allow the program is not in it
// (externalHintLine).
func externalRefusalLine(name, pool string) string {
	return refusal.Line("shelter", "external command "+refusal.Quote(filepath.Base(name))+" is not allowed in this session", []string{pool})
}

// externalHintLine is the operator's side of the same refusal: how to let
// name run. It goes to the Result's issues and to [Config.OperatorLog],
// never to the agent's stderr.
func externalHintLine(name string) string {
	base := filepath.Base(name)
	return fmt.Sprintf("shelter: external command '%s' is not allowed in this session; to allow it, add '%s' to Config.AllowExternal (shelter --allow-external %s)", base, base, base)
}

// externalPool is what a session with externals denied runs instead: the
// declared commands (wrapped commands, harness tools) and the allowed
// externals shelter found, by name and sorted, then the builtins as a
// group, which help lists when it is registered. Some forty builtin names
// would bury the few a refusal is for.
func (s *Session) externalPool() string {
	var names []string
	for name, t := range s.tools {
		if t.Kind() != Builtin {
			names = append(names, name)
		}
	}
	for name := range s.k.allowed {
		names = append(names, name)
	}
	builtins := "the shell's builtins"
	if t := s.tools["help"]; t != nil && t.Kind() == Builtin {
		builtins = "the builtins (help lists them)"
	}
	if len(names) == 0 {
		return builtins
	}
	return Pool(names) + " and " + builtins
}

// operatorNotes are the lines for the operator that a call's commands
// leave, each an issue of its Result; commands of a pipeline add theirs
// at once.
type operatorNotes struct {
	mu     sync.Mutex
	issues []Issue
}

func (n *operatorNotes) add(is Issue) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, had := range n.issues {
		if had.Code == is.Code && had.Message == is.Message {
			return
		}
	}
	n.issues = append(n.issues, is)
}

func (n *operatorNotes) take() []Issue {
	n.mu.Lock()
	defer n.mu.Unlock()
	issues := n.issues
	n.issues = nil
	return issues
}

// noteOperator gives the operator line: an issue of the call's Result
// (ctx's call; none for a job that outlived it) and a line of
// Config.OperatorLog.
func (s *Session) noteOperator(ctx context.Context, code, line string) {
	if st := s.callOf(ctx); st != nil {
		st.notes.add(Issue{Severity: SeverityWarning, Code: code, Message: line})
	}
	s.k.logOperator(line)
}

// logOperator writes line to Config.OperatorLog, one write a line.
func (k *Kernel) logOperator(line string) {
	if k.cfg.OperatorLog == nil {
		return
	}
	k.logMu.Lock()
	defer k.logMu.Unlock()
	k.cfg.OperatorLog.Write([]byte(line + "\n"))
}

// withNotes is the issues of a call that ran: the static pass's, then the
// operator notes of the run that the static pass did not already give
// (the same line, wherever it stood).
func withNotes(static, run []Issue) []Issue {
	out := static
	for _, is := range run {
		dup := false
		for _, had := range static {
			if had.Code == is.Code && strings.TrimSpace(had.Message) == strings.TrimSpace(is.Message) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, is)
		}
	}
	return out
}

// goneDirLine says, when dir, the working directory a command of name is
// to run in, no longer exists (removed after the session entered it), so
// that the failure is not read as name missing.
func goneDirLine(name, dir string) (string, bool) {
	if dir == "" {
		return "", false
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	return fmt.Sprintf("shelter: %s: the working directory %s no longer exists; cd to one that does", name, dir), true
}
