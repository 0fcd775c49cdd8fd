package main

import (
	"io"
	"os"
	"strconv"
	"syscall"
	"time"
)

// pollableStdin is what serve reads its requests from: stdin when the
// runtime's poller can wait on it already; when it is a pipe in blocking
// mode, as a client's pipe usually is, a second open of that pipe
// (/proc/self/fd/N, a file description of its own) in non-blocking mode,
// which the poller can wait on; otherwise stdin as it is. On a pollable
// input a StreamTransport reads each message on the goroutine that asks
// for it, where a blocking one needs a goroutine that reads and hands
// each line over, a wake-up more a message: about 7% of a small call's
// time over stdio (docs/performance.md, "Serving"). Stdin's own
// description stays as it was, for whatever else holds it. The pipe is
// opened with O_NONBLOCK so that the open does not wait for a writer
// when the client has closed its end already.
func pollableStdin(stdin *os.File) io.ReadCloser {
	if stdin.SetReadDeadline(time.Time{}) == nil {
		return stdin
	}
	st, err := stdin.Stat()
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return stdin
	}
	rc, err := stdin.SyscallConn()
	if err != nil {
		return stdin
	}
	var f *os.File
	rc.Control(func(fd uintptr) {
		f, err = os.OpenFile("/proc/self/fd/"+strconv.Itoa(int(fd)), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	})
	if err != nil || f == nil {
		return stdin
	}
	return f
}
