package spawn

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LookPathError says why a command name did not resolve to an executable.
// Its Status is the shell's exit code for it: 127 when nothing was found,
// 126 when something was found that cannot be executed.
type LookPathError struct {
	Name   string
	Status int
	Reason string // "command not found", "Is a directory", "Permission denied"
}

func (e *LookPathError) Error() string { return e.Name + ": " + e.Reason }

// LookPath finds name the way a shell does: a name with a slash is taken
// relative to dir; any other is searched in the directories of pathList (a
// $PATH value), and only there. An empty element means dir.
func LookPath(pathList, dir, name string) (string, error) {
	if name == "" {
		return "", &LookPathError{Name: name, Status: 127, Reason: "command not found"}
	}
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return p, executable(name, p)
	}
	var denied error
	for _, elem := range filepath.SplitList(pathList) {
		if elem == "" || elem == "." {
			elem = dir
		} else if !filepath.IsAbs(elem) {
			elem = filepath.Join(dir, elem)
		}
		p := filepath.Join(elem, name)
		err := executable(name, p)
		if err == nil {
			return p, nil
		}
		if e, ok := err.(*LookPathError); ok && e.Status == 126 && denied == nil && e.Reason == "Permission denied" {
			denied = err
		}
	}
	if denied != nil {
		return "", denied
	}
	return "", &LookPathError{Name: name, Status: 127, Reason: "command not found"}
}

func executable(name, path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return &LookPathError{Name: name, Status: 127, Reason: notFoundReason(name, err)}
	case fi.IsDir():
		return &LookPathError{Name: name, Status: 126, Reason: "Is a directory"}
	case fi.Mode()&0o111 == 0:
		return &LookPathError{Name: name, Status: 126, Reason: "Permission denied"}
	}
	return nil
}

func notFoundReason(name string, err error) string {
	if strings.Contains(name, "/") {
		if os.IsNotExist(err) {
			return "No such file or directory"
		}
		if pe, ok := err.(*fs.PathError); ok {
			return fmt.Sprint(pe.Err)
		}
	}
	return "command not found"
}
