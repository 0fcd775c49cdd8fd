package kernel

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/shelter-sh/shelter/kernel/internal/fsroot"
)

// needTmp makes $TMPDIR for a command that may use it. Where it cannot
// be made (a read-only /tmp, as in a container with a read-only root),
// the command runs all the same, and the session says so once, on that
// command's stderr: a program that writes to $TMPDIR fails by itself, and
// output past the limit is cut without a spill file. Only a directory
// someone else made under the session's name stops the command: a
// program would write into theirs.
func (s *Session) needTmp(stderr io.Writer) error {
	err := s.tmp.Ensure()
	if err == nil || !fsroot.NoRoom(err) {
		return err
	}
	s.noteNoDirs(stderr, err)
	return nil
}

// noteNoDirs says, once a session, that its directories could not be
// made and what the session does without them.
func (s *Session) noteNoDirs(stderr io.Writer, err error) {
	if !s.tmpNoted.Swap(true) {
		fmt.Fprintf(stderr, "shelter: the session's directories in %s could not be made (%v): commands run without $TMPDIR, output past the limit is cut with no spill file, and what a job prints after its call is dropped\n",
			filepath.Dir(s.tmp.Path()), unwrapPathError(err))
	}
}
