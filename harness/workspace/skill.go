package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"sync/atomic"
)

// LoadSkillInput is the input of load_skill.
type LoadSkillInput struct {
	// Name is a skill of the pool, W/skills/<name>/.
	Name string `json:"name"`
}

// LoadSkillOutput is the answer of load_skill.
type LoadSkillOutput struct {
	Status string `json:"status"` // "loaded" or "already_loaded"
	Path   string `json:"path"`   // skills/<name>, relative to the worktree
}

// Skills returns the names of the skill pool: the directories of W/skills
// that hold a SKILL.md, sorted.
func (ws *Workspace) Skills() ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(ws.Dir, "skills"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if fi, err := os.Stat(filepath.Join(ws.Dir, "skills", e.Name(), "SKILL.md")); err == nil && fi.Mode().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// loadSeq tells apart the copies in flight of one process.
var loadSeq atomic.Int64

// LoadSkill copies skill in.Name from the pool into caller's worktree at
// skills/<name>/. An existing skills/<name> is left as it is and answered
// with status already_loaded. A name that is not one path component is
// refused before any file is touched.
func (ws *Workspace) LoadSkill(ctx context.Context, caller string, in LoadSkillInput) (LoadSkillOutput, error) {
	if err := checkSkillName(in.Name); err != nil {
		return LoadSkillOutput{}, err
	}
	if caller == "" {
		return LoadSkillOutput{}, &NoCallerError{Op: "load_skill"}
	}
	r, err := ws.readRefs(ctx)
	if err != nil {
		return LoadSkillOutput{}, err
	}
	if err := r.checkAgent(caller); err != nil {
		return LoadSkillOutput{}, err
	}
	available, err := ws.Skills()
	if err != nil {
		return LoadSkillOutput{}, err
	}
	if i := sort.SearchStrings(available, in.Name); i == len(available) || available[i] != in.Name {
		return LoadSkillOutput{}, &UnknownSkillError{Name: in.Name, Available: available}
	}
	rel := path.Join("skills", in.Name)
	out := LoadSkillOutput{Status: "already_loaded", Path: rel}

	// Both sides through os.Root: a symlink in the pool or in the
	// worktree cannot lead the copy outside either.
	dst, err := os.OpenRoot(ws.Worktree(caller))
	if err != nil {
		return LoadSkillOutput{}, err
	}
	defer dst.Close()
	if _, err := dst.Lstat(rel); err == nil {
		return out, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return LoadSkillOutput{}, err
	}
	src, err := os.OpenRoot(filepath.Join(ws.Dir, "skills", in.Name))
	if err != nil {
		return LoadSkillOutput{}, err
	}
	defer src.Close()
	if err := dst.MkdirAll("skills", 0o755); err != nil {
		return LoadSkillOutput{}, err
	}
	// Copy beside the target, then rename: a reader never sees half a
	// skill, and a concurrent load of the same skill wins or loses whole.
	tmp := path.Join("skills", fmt.Sprintf(".%s.loading-%d-%d", in.Name, os.Getpid(), loadSeq.Add(1)))
	if err := dst.RemoveAll(tmp); err != nil {
		return LoadSkillOutput{}, err
	}
	if err := copyTree(src, dst, tmp); err != nil {
		dst.RemoveAll(tmp)
		return LoadSkillOutput{}, err
	}
	if err := dst.Rename(tmp, rel); err != nil {
		dst.RemoveAll(tmp)
		if _, lerr := dst.Lstat(rel); lerr == nil {
			return out, nil
		}
		return LoadSkillOutput{}, err
	}
	out.Status = "loaded"
	return out, nil
}

// copyTree copies everything under src into dst at dir: directories,
// regular files (keeping their permission bits) and symlinks as links.
func copyTree(src, dst *os.Root, dir string) error {
	return fs.WalkDir(src.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := path.Join(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return dst.Mkdir(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := src.Readlink(p)
			if err != nil {
				return err
			}
			return dst.Symlink(link, target)
		case d.Type().IsRegular():
			data, err := src.ReadFile(p)
			if err != nil {
				return err
			}
			return dst.WriteFile(target, data, info.Mode().Perm())
		}
		return nil // sockets, devices, fifos: not part of a skill
	})
}
