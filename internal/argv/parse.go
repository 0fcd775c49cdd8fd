package argv

// Args is a command line read whole by [Set.Parse].
type Args struct {
	// Flags are the flags given, in order; a cluster's letters are one
	// each.
	Flags []Item
	// Operands are the words that are no flag, "--" left out.
	Operands []string
	// Help reports that a help word was given; the words after it are
	// not read.
	Help bool
}

// Parse reads every word of args, the words after the command's name,
// and returns the first refusal, an [*Error].
func (s *Set) Parse(args []string) (*Args, error) {
	a := &Args{}
	sc := s.Scan(args)
	for {
		it, ok := sc.Next()
		if !ok {
			return a, nil
		}
		switch it.Kind {
		case Operand:
			a.Operands = append(a.Operands, it.Word)
		case FlagGiven:
			a.Flags = append(a.Flags, it)
		case HelpAsked:
			a.Help = true
			return a, nil
		case Refused:
			return nil, it.Err
		}
	}
}
