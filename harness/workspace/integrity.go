package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/shelter-sh/shelter/kernel"
)

// repoConfig is repo.git/config as shelter writes it, byte for byte. Git
// reads the repository's config whatever its environment says, and a
// config can name programs (filters, core.fsmonitor, include.path of a
// file that does): so before every git process shelter runs, the file
// must still be exactly this.
const repoConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n"

// RepoChangedError refuses every operation of a workspace whose
// repository files hold something shelter did not write: a setting or an
// attribute there could make shelter's own git run a program. Nothing
// runs until the file is restored.
type RepoChangedError struct {
	File   string // relative to the workspace, e.g. repo.git/config
	Change string // what differs, one line
}

func (e *RepoChangedError) Error() string { return e.refusal().Error() }

func (e *RepoChangedError) refusal() *kernel.Refusal {
	return refusal(e.File+" was changed outside shelter ("+e.Change+"), and git does not run until it holds only what shelter wrote",
		"the file as shelter wrote it (docs/workspace.md, git)")
}

// checkRepo verifies that the repository files git reads settings and
// attributes from hold only what shelter wrote: repo.git/config is
// [repoConfig], there is no config.worktree or commondir, and info/ holds
// nothing but a template's commented exclude file.
func checkRepo(repo string) error {
	rel := func(name string) string { return filepath.Join("repo.git", name) }
	data, err := readRegular(filepath.Join(repo, "config"))
	if err != nil {
		return &RepoChangedError{File: rel("config"), Change: err.Error()}
	}
	if string(data) != repoConfig {
		return &RepoChangedError{File: rel("config"), Change: lineChange(repoConfig, string(data))}
	}
	// config.worktree adds settings; commondir would move the config
	// (and every ref) to a directory of the writer's choosing.
	for _, name := range []string{"config.worktree", "commondir"} {
		if _, err := os.Lstat(filepath.Join(repo, name)); err == nil {
			return &RepoChangedError{File: rel(name), Change: "the file was added"}
		}
	}
	entries, err := os.ReadDir(filepath.Join(repo, "info"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := filepath.Join("info", e.Name())
		// A workspace made before shelter wrote its repository without a
		// template has git's info/exclude, which holds only comments.
		if e.Name() != "exclude" {
			return &RepoChangedError{File: rel(name), Change: "the file was added"}
		}
		data, err := readRegular(filepath.Join(repo, name))
		if err != nil {
			return &RepoChangedError{File: rel(name), Change: err.Error()}
		}
		if !commentsOnly(data) {
			return &RepoChangedError{File: rel(name), Change: "it holds patterns; only git's commented template is allowed"}
		}
	}
	return nil
}

// readRegular reads a regular file; a symlink or anything else is an
// error that says what the name is.
func readRegular(name string) ([]byte, error) {
	fi, err := os.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("the file is missing")
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("it is a %s, not a regular file", fileKind(fi.Mode()))
	}
	return os.ReadFile(name)
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "directory"
	}
	return "special file"
}

func commentsOnly(data []byte) bool {
	for _, l := range bytes.Split(data, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 && l[0] != '#' {
			return false
		}
	}
	return true
}

// lineChange names the first line of got that differs from want.
func lineChange(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		switch {
		case wl == gl:
		case wl == "":
			return fmt.Sprintf("line %d %q was added", i+1, strings.TrimSpace(gl))
		case gl == "":
			return fmt.Sprintf("line %d %q is missing", i+1, strings.TrimSpace(wl))
		default:
			return fmt.Sprintf("line %d is %q where shelter wrote %q", i+1, strings.TrimSpace(gl), strings.TrimSpace(wl))
		}
	}
	return "its line breaks differ"
}
