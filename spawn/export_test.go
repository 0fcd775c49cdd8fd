package spawn

import "time"

// StallOutput makes every output copy, on pipes and terminals, wait to
// read anything until its wait delay has passed, as a reader scheduled
// late past the grace on a loaded or stopped host would; and it makes the
// wait delay the grace alone. The returned func restores the defaults.
func StallOutput() (restore func()) {
	copyStall = func(cut <-chan struct{}) { <-cut }
	delaySlack = 0
	return func() {
		copyStall = nil
		delaySlack = 100 * time.Millisecond
	}
}

// BeforeRetry sets f to run before each retry of a start that failed with
// ETXTBSY; the returned func removes it.
func BeforeRetry(f func()) (restore func()) {
	beforeRetry = f
	return func() { beforeRetry = nil }
}

// FakeSupport makes Probe answer s, as on a host that lacks what s lacks;
// the returned func restores the real answer.
func FakeSupport(s Support) (restore func()) {
	fakeSupport.Store(&s)
	return func() { fakeSupport.Store(nil) }
}
