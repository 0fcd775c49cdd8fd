package spawn

import "os"

// ttyFile is a pseudo-terminal master whose Close waits for the output copy
// to drain, so nothing the child printed is lost.
type ttyFile struct {
	*os.File
	copied chan struct{}
}

func (t *ttyFile) Close() error {
	<-t.copied
	return t.File.Close()
}
