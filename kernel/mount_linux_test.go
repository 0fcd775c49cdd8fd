package kernel_test

import "golang.org/x/sys/unix"

func mountReadOnly(dir string) error {
	return unix.Mount("tmpfs", dir, "tmpfs", unix.MS_RDONLY, "size=1m")
}

func unmount(dir string) { unix.Unmount(dir, unix.MNT_DETACH) }
