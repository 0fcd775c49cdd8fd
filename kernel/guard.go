package kernel

import "github.com/shelter-sh/shelter/kernel/internal/static"

// newGuard is the guard of a session's tools (static.Guard): the commands
// its [Replacer] tools replace, and the [Launcher] tools it looks through.
// It is a filter for a cooperative agent, not a sandbox: a determined
// script can always find another spelling (`bash -c`, a copy of the
// binary, a variable assigned dynamically).
func newGuard(tools map[string]Tool) *static.Guard {
	var known []static.Tool
	for _, name := range sortedNames(tools) {
		t := tools[name]
		st := static.Tool{Name: name, Description: t.Description}
		if r, ok := t.(Replacer); ok {
			st.Replaces = r.Replaces()
		}
		if l, ok := t.(Launcher); ok {
			st.Unwrap = func(words []Word) (static.Launched, bool) {
				launched, ok := l.Unwrap(words)
				return static.Launched{Words: launched.Words, Assigns: launched.Assigns}, ok
			}
		}
		if st.Replaces != nil || st.Unwrap != nil {
			known = append(known, st)
		}
	}
	return static.NewGuard(known)
}
