package static

import (
	"cmp"
	"slices"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// A Gap is a known difference from bash (docs/embedding.md, "Known
// gaps"): a construct shelter runs as mvdan/sh does, which is not what
// bash does, and the line of bash that works the same in both.
type Gap struct {
	Construct  string // the construct, as a script writes it: "${v/#p/r}"
	Instead    string // what shelter does instead of what bash does
	Workaround string // bash that both run alike
}

// Message is the gap's note: "CONSTRUCT: INSTEAD; workaround: WORKAROUND".
func (g *Gap) Message() string {
	return g.Construct + ": " + g.Instead + "; workaround: " + g.Workaround
}

// A Note is a gap a script's text shows, and where.
type Note struct {
	Line, Col int
	Gap       *Gap
}

// A GapCheck finds the known gaps a script's text shows, for the notes of
// the static pass. It never refuses anything: a note says what will differ
// from bash and what to write instead, and the script runs as written.
//
// The kernel's walk calls Visit for every node but words and literals,
// then asks Notes. A gap whose construct spans the script (an option set
// anywhere, an array declared above) waits in pending for the facts the
// rest of the walk learns. Each gap is noted once a script, where it is
// first seen.
type GapCheck struct {
	file    *syntax.File
	assoc   func(name string) bool
	names   map[string]bool // the script's associative arrays, found when first asked
	notes   []Note
	noted   map[*Gap]bool
	pending []pendingNote
	facts   facts

	alone   *syntax.Assign    // the assignment of the command met last, when it is the command's only word
	refs    map[string]int    // the script's declare -n of each name, counted when first asked
	targets map[string]string // the literal targets of the name references declared above
	attrs   map[string]string // the flags of names declared -i, -l or -u above
	noValue map[string]bool   // arrays declared without a value above
	loopEnd syntax.Pos        // the end of the while or until loop met last
	// extglobLine is the line of the last shopt -s extglob met; 0 for none.
	extglobLine uint
	scopes      []scope // the functions and subshells the walk is in, innermost last
	// late is set for the second walk, which knows the script's facts and
	// notes the gaps that depend on them.
	late bool
	// assigned is the names the script assigns anywhere, found when a gap
	// first asks.
	assigned map[string]bool
}

// scope is a function's body, a subshell, a loop, or an if's condition
// or a case item that falls through, that the walk is in.
type scope struct {
	end  syntax.Pos
	kind scopeKind
	name string // a function's
}

type scopeKind int

const (
	scopeFunc scopeKind = iota
	scopeSubshell
	scopeLoop
	scopeCond // an if's condition, a case item that falls through (;&)
)

// enter and leave keep the walk's scopes: the walk goes in source order,
// so a node after a scope's end is out of it.
func (c *GapCheck) enter(end syntax.Pos, kind scopeKind) {
	c.scopes = append(c.scopes, scope{end: end, kind: kind})
}

func (c *GapCheck) leave(pos syntax.Pos) {
	for len(c.scopes) > 0 && pos.After(c.scopes[len(c.scopes)-1].end) {
		c.scopes = c.scopes[:len(c.scopes)-1]
	}
}

// breaks notes a break or continue where it is: in an if's condition
// or a case item that falls through, where the rest of the list runs;
// outside a loop in a function, which breaks its caller's loop.
func (c *GapCheck) breaks(pos syntax.Pos) {
	for i := len(c.scopes) - 1; i >= 0; i-- {
		switch s := c.scopes[i]; s.kind {
		case scopeCond:
			c.note(pos, &gapBreakInCond)
			return
		case scopeFunc:
			if c.facts.breakFuncs == nil {
				c.facts.breakFuncs = make(map[string]bool)
			}
			c.facts.breakFuncs[s.name] = true
			return
		case scopeLoop, scopeSubshell:
			return
		}
	}
}

// in reports whether the node visited last stands in a scope of kind.
func (c *GapCheck) in(kind scopeKind) bool {
	for _, s := range c.scopes {
		if s.kind == kind {
			return true
		}
	}
	return false
}

// facts are what a script does anywhere, known once the walk is done.
type facts struct {
	errexit, nounset, xtrace bool // set -e, -u, -x
	lastpipe                 bool // shopt -s lastpipe
	errTrap, exitTrap        bool
	ifsNonBlank              bool // IFS set to a literal holding other than blanks
	stderrToStdout           bool // a 2>&1 somewhere
	funcs                    map[string]bool
	breakFuncs               map[string]bool // functions that break or continue outside a loop
	background               bool            // a `cmd &`, whose pid wait -p would set
}

// pendingNote is a gap seen at pos that is a gap only if need holds of
// the script's facts.
type pendingNote struct {
	pos  syntax.Pos
	gap  *Gap
	need func(*GapCheck) bool
}

// Reset makes c a check of f, keeping the memory of the last check's lists;
// assoc reports the associative arrays the session holds already (nil:
// none). Reset(nil, nil) lets go of the last script.
func (c *GapCheck) Reset(f *syntax.File, assoc func(name string) bool) {
	clear(c.scopes[:cap(c.scopes)]) // their functions' names are the last script's
	scopes, notes := c.scopes[:0], c.notes[:0]
	*c = GapCheck{file: f, assoc: assoc, scopes: scopes, notes: notes}
}

// Notes are the gaps the walk found, in the order of the script. A
// script that sets an option or a trap some gaps depend on (set -e, -u,
// -x, an ERR trap, IFS, a function that breaks) is walked once more,
// knowing it: the first walk costs a script that sets none of them
// nothing for those gaps.
func (c *GapCheck) Notes() []Note {
	for _, p := range c.pending {
		if p.need(c) {
			c.note(p.pos, p.gap)
		}
	}
	c.pending = nil
	if f := &c.facts; f.errexit || f.nounset || f.xtrace && f.stderrToStdout || f.errTrap || f.ifsNonBlank || len(f.breakFuncs) > 0 {
		// What the first walk learnt in the script's order, it learns
		// again in that order.
		c.late, c.scopes, c.loopEnd, c.attrs, c.noValue = true, c.scopes[:0], syntax.Pos{}, nil, nil
		shast.Walk(c.file, c.Visit)
		c.pending = nil
	}
	if len(c.notes) > 1 {
		slices.SortStableFunc(c.notes, func(a, b Note) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
		})
	}
	return c.notes
}

func (c *GapCheck) note(pos syntax.Pos, g *Gap) {
	if c.noted[g] {
		return
	}
	if c.noted == nil {
		c.noted = make(map[*Gap]bool)
	}
	c.noted[g] = true
	c.notes = append(c.notes, Note{Line: int(pos.Line()), Col: int(pos.Col()), Gap: g})
}

// noteIf notes g at pos once the walk is done, if need holds then.
func (c *GapCheck) noteIf(pos syntax.Pos, g *Gap, need func(*GapCheck) bool) {
	c.pending = append(c.pending, pendingNote{pos, g, need})
}

func (c *GapCheck) isAssoc(name string) bool {
	if c.names == nil {
		c.names = assocNames(c.file)
	}
	return c.names[name] || c.assoc != nil && c.assoc(name)
}

// assocOfSession reports whether name is an associative array the session
// made, which the script neither declares -A or -n nor assigns a list
// with a quoted first key: the rewrites that count such an array
// (package rewrite) know only the script.
func (c *GapCheck) assocOfSession(name string) bool {
	if c.assoc == nil || !c.assoc(name) || c.isAssoc(name) && c.names[name] {
		return false
	}
	return c.namerefs()[name] == 0
}

// Visit checks n; it always walks on.
func (c *GapCheck) Visit(n syntax.Node) bool {
	if n == nil {
		return true
	}
	if len(c.scopes) > 0 {
		c.leave(n.Pos())
	}
	switch n := n.(type) {
	case *syntax.Stmt:
		c.stmt(n)
	case *syntax.ParamExp:
		c.paramExp(n)
	case *syntax.DblQuoted:
		c.dblQuoted(n)
	case *syntax.Redirect:
		c.redirect(n)
	case *syntax.CallExpr:
		c.call(n)
	case *syntax.DeclClause:
		c.decl(n)
	case *syntax.BinaryCmd:
		c.binaryCmd(n)
	case *syntax.TestClause:
		c.testClause(n)
	case *syntax.ArithmCmd:
		c.arithmCmd(n)
	case *syntax.ArithmExp:
		c.arithm(n.X)
	case *syntax.ForClause:
		c.forClause(n)
		c.enter(n.End(), scopeLoop)
	case *syntax.WhileClause:
		if mayFail(n.Do) {
			c.loopEnd = n.End()
		}
		c.enter(n.End(), scopeLoop)
	case *syntax.IfClause:
		c.ifClause(n)
		if len(n.Cond) > 0 {
			c.enter(n.Cond[len(n.Cond)-1].End(), scopeCond)
		}
	case *syntax.CaseItem:
		if n.Op == syntax.Fallthrough {
			c.enter(n.End(), scopeCond)
		}
	case *syntax.FuncDecl:
		c.funcDecl(n)
		c.enter(n.End(), scopeFunc)
		if n.Name != nil {
			c.scopes[len(c.scopes)-1].name = n.Name.Value
		}
	case *syntax.Subshell:
		c.subshell(n)
		c.enter(n.End(), scopeSubshell)
	case *syntax.CmdSubst:
		c.cmdSubst(n)
		c.enter(n.End(), scopeSubshell)
	case *syntax.TimeClause:
		c.note(n.Pos(), &gapTime)
	}
	return true
}
