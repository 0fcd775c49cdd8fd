package wrapped

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/shelter-sh/shelter/internal/beneath"
)

// heldPaths are a plan's path_under words opened beneath their roots: the
// descriptors the child inherits and the argv that names them.
type heldPaths struct {
	argv  []string
	files []*os.File
}

func (h *heldPaths) close() {
	for _, f := range h.files {
		f.Close()
	}
}

// holdUnder opens each checked path of plan that is to be held (see
// [Positional.held]; confined is whether the session is the sandbox's)
// beneath its root with openat2(2) (RESOLVE_BENEATH,
// RESOLVE_NO_MAGICLINKS), so that a directory swapped for a symlink after
// the check is refused rather than followed, and renders the argv with
// /proc/self/fd/N in place of each such word: descriptor N is inherited by
// the child and names what was opened, whatever later happens to the
// path. A path that does not exist yet is handed as /proc/self/fd/N/REST,
// N its deepest existing ancestor. The other words, and every word on a
// kernel without openat2, stay the checked paths.
func holdUnder(plan *Plan, confined bool) (*heldPaths, error) {
	h := &heldPaths{argv: plan.Argv}
	if !slices.ContainsFunc(plan.under, func(cp checkedPath) bool { return cp.arg.held(confined) }) || !beneath.HaveOpenat2() {
		return h, nil
	}
	h.argv = slices.Clone(plan.Argv)
	for _, cp := range plan.under {
		if !cp.arg.held(confined) {
			continue
		}
		f, rest, err := openBeneath(cp.root, strings.TrimPrefix(plan.Argv[cp.argv], cp.root))
		if err != nil {
			h.close()
			return nil, cp.refusal(err)
		}
		h.files = append(h.files, f)
		p := "/proc/self/fd/" + strconv.Itoa(2+len(h.files)) // ExtraFiles start at 3
		if rest != "" {
			p += "/" + rest
		}
		h.argv[cp.argv] = p
	}
	return h, nil
}

// openBeneath opens rel (a path below root; "" is root itself) as an
// O_PATH descriptor that cannot have left root. When rel does not exist,
// it opens the deepest ancestor that does and returns the rest.
func openBeneath(root, rel string) (*os.File, string, error) {
	rootFd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, "", err
	}
	defer unix.Close(rootFd)
	rel = strings.Trim(rel, "/")
	rest := ""
	for {
		if rel == "" {
			// Close-on-exec from the start: another session's child
			// forked meanwhile must not inherit it.
			fd, err := unix.FcntlInt(uintptr(rootFd), unix.F_DUPFD_CLOEXEC, 0)
			if err != nil {
				return nil, "", err
			}
			return os.NewFile(uintptr(fd), root), rest, nil
		}
		fd, err := beneath.Openat2(rootFd, rel, &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
		})
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), root+"/"+rel), rest, nil
		case errors.Is(err, unix.ENOENT):
			i := strings.LastIndexByte(rel, '/')
			rest = joinRest(rel[i+1:], rest)
			rel = rel[:max(i, 0)]
		case errors.Is(err, unix.EXDEV), errors.Is(err, unix.ELOOP):
			return nil, "", errOutside
		default:
			return nil, "", err
		}
	}
}

func joinRest(name, rest string) string {
	if rest == "" {
		return name
	}
	return name + "/" + rest
}
