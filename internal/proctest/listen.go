package proctest

import (
	"net"
	"time"
)

// FirstIsSentinel reports whether a listener got no connection before the
// test's own: it dials l, writes a byte, and reads the first connection l
// accepts. A connection made earlier (by the program under test) is
// accepted first and does not carry the byte. It waits at most a minute.
func FirstIsSentinel(l net.Listener) (bool, error) {
	c, err := net.Dial(l.Addr().Network(), l.Addr().String())
	if err != nil {
		return false, err
	}
	defer c.Close()
	if _, err := c.Write([]byte{'S'}); err != nil {
		return false, err
	}
	first, err := l.Accept()
	if err != nil {
		return false, err
	}
	defer first.Close()
	first.SetReadDeadline(time.Now().Add(time.Minute))
	var b [1]byte
	n, _ := first.Read(b[:])
	return n == 1 && b[0] == 'S', nil
}
