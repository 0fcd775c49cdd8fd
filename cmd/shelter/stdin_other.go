//go:build !linux

package main

import (
	"io"
	"os"
)

// pollableStdin is stdin: only Linux opens a pipe a second time, with a
// file description of its own, through /proc/self/fd.
func pollableStdin(stdin *os.File) io.ReadCloser { return stdin }
