package kernel

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/shelter-sh/shelter/spawn"
)

// externalRefusalLine is the refusal of name, an external command the
// session's policy ([ExternalsDenied]) does not let run: the command (its
// base name, however it was typed), the allowed pool, and the way out.
// path and dir are the call's PATH and working directory: a path to a
// file of an allowed name (/tmp/evil/cat while cat is allowed) is named
// whole, with the program PATH finds, which is the allowed one.
func externalRefusalLine(name string, allowed []string, path, dir string) string {
	base := filepath.Base(name)
	if !slices.Contains(allowed, base) {
		return fmt.Sprintf("shelter: external command '%s' is not allowed in this session; allowed: %s; to allow it, add '%s' to Config.AllowExternal (shelter --allow-external %s)", base, Pool(allowed), base, base)
	}
	want, err := spawn.LookPath(path, dir, base)
	if err != nil {
		return fmt.Sprintf("shelter: external command '%s' is not allowed in this session; the allowed '%s' is the one PATH finds, and PATH finds none", name, base)
	}
	return fmt.Sprintf("shelter: external command '%s' is not allowed in this session; the allowed '%s' is the one PATH finds, %s", name, base, want)
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
