//go:build unix && !linux

package beneath

// openBeneath opens rel beneath fd one element at a time, each with
// O_NOFOLLOW: for plain names as strict as openat2's RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS.
func openBeneath(fd int, rel string, flag int, perm uint32) (int, error) {
	return walk(fd, rel, flag, perm)
}

// HaveOpenat2 is false: only Linux has openat2(2).
var HaveOpenat2 = func() bool { return false }
