// Package shast holds what every layer of the kernel needs of the shell's
// syntax tree: a walk of it, the few nodes shelter builds itself, bash's
// quoting, the names of the internal commands shelter puts into a script,
// and [Word], a word as the static pass sees it.
//
// It knows nothing of a session: everything in it is a pure function of
// its arguments. See package kernel's documentation for the layers above.
package shast
