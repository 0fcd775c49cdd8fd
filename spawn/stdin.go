package spawn

import (
	"io"
	"os"
)

// stdinFeed streams a reader that is not a file to the child through a
// pipe of its own. Unlike os/exec's copy, Run does not wait for it: a
// reader that never returns must not hold a child that has exited.
type stdinFeed struct {
	child, parent *os.File
	in            io.Reader
}

func newStdinFeed(in io.Reader) (*stdinFeed, error) {
	if in == nil {
		return nil, nil
	}
	if _, ok := in.(*os.File); ok {
		return nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	return &stdinFeed{child: r, parent: w, in: in}, nil
}

// started hands the read end to the child alone and starts the copy.
func (f *stdinFeed) started() {
	if f == nil {
		return
	}
	f.child.Close()
	go func() {
		io.Copy(f.parent, f.in)
		f.parent.Close()
	}()
}

// stop closes the pipe: the copy ends at its next write.
func (f *stdinFeed) stop() {
	if f != nil {
		f.child.Close()
		f.parent.Close()
	}
}
