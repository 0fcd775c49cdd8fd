package workspace

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// importStream is the input of one git fast-import: the workspace makes
// each of its commits (a config, a dispatch) in one git process, without
// an index or a worktree, and fast-import creates the branch at the end.
type importStream struct {
	b strings.Builder
}

// commit starts a commit on ref (refs/heads/…, which must not exist yet),
// with parent ("" for a root commit) and a one-line subject. File commands
// follow; they change the parent's tree.
func (s *importStream) commit(ref, parent, subject string, when time.Time) {
	stamp := fmt.Sprintf("%s <%s> %d +0000", identityName, identityEmail, when.Unix())
	fmt.Fprintf(&s.b, "commit %s\nauthor %s\ncommitter %s\ndata %d\n%s\n", ref, stamp, stamp, len(subject)+1, subject)
	if parent != "" {
		fmt.Fprintf(&s.b, "from %s\n", parent)
	}
}

// remove deletes path, a file or a whole directory; a path the tree does
// not hold is no error.
func (s *importStream) remove(path string) {
	fmt.Fprintf(&s.b, "D %s\n", importPath(path))
}

// place puts an existing object (a blob of a config commit) at path.
func (s *importStream) place(mode, sha, path string) {
	fmt.Fprintf(&s.b, "M %s %s %s\n", mode, sha, importPath(path))
}

// write puts a regular file holding data at path.
func (s *importStream) write(path string, data string) {
	fmt.Fprintf(&s.b, "M 100644 inline %s\ndata %d\n%s\n", importPath(path), len(data), data)
}

// run feeds the stream to git fast-import. The closing "done" makes a cut
// stream an error rather than a partial commit.
func (s *importStream) run(ctx context.Context, g *gitRunner) error {
	s.b.WriteString("done\n")
	_, err := g.run(ctx, "", strings.NewReader(s.b.String()), "fast-import", "--quiet", "--done")
	return err
}

// importPath writes path for fast-import: as it is, or C-quoted when a
// line break or a leading quote would misread.
func importPath(path string) string {
	if !strings.Contains(path, "\n") && !strings.HasPrefix(path, `"`) {
		return path // unquoted, backslashes and inner quotes are literal
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(path) + `"`
}
