package shast

// Word is one word of a command as the static pass sees it.
type Word struct {
	// Text is the word's value when it is literal.
	Text string
	// Opaque is true when the value is only known at execution: an
	// expansion, a command substitution, a glob.
	Opaque bool
}
