package kernel

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// externalRefusalLine is the refusal of name, an external command the
// session's policy ([ExternalsDenied]) does not let run: the command (its
// base name, however it was typed), the allowed pool, and the way out.
func externalRefusalLine(name string, allowed []string) string {
	base := filepath.Base(name)
	return fmt.Sprintf("shelter: external command '%s' is not allowed in this session; allowed: %s; to allow it, add '%s' to Config.AllowExternal (shelter --allow-external %s)", base, Pool(allowed), base, base)
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
