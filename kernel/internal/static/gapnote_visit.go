package static

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// unsetVars are the variables bash sets that a session leaves unset, by
// the gap each is part of.
var unsetVars = map[string]*Gap{
	"FUNCNAME": &gapFuncname, "BASH_LINENO": &gapFuncname,
	"PIPESTATUS": &gapPipestatus,
	"BASHPID":    &gapBashpid, "BASH_SUBSHELL": &gapBashpid,
	"BASH": &gapShellVars, "BASH_VERSION": &gapShellVars, "SHLVL": &gapShellVars, "HOSTNAME": &gapShellVars,
	"OSTYPE": &gapShellVars, "HOSTTYPE": &gapShellVars, "MACHTYPE": &gapShellVars,
	"SECONDS": &gapSeconds, "EPOCHSECONDS": &gapSeconds, "EPOCHREALTIME": &gapSeconds,
}

func (c *GapCheck) stmt(s *syntax.Stmt) {
	if c.loopEnd.IsValid() && s.Pos().After(c.loopEnd) {
		// The statement after a while loop: does it read the loop's status?
		if readsStatus(s) {
			c.note(s.Pos(), &gapLoopStatus)
		}
		c.loopEnd = syntax.Pos{}
	}
	if s.Negated {
		if call, ok := s.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			name := call.Args[0].Lit()
			c.noteIf(s.Pos(), &gapErrexitOr, func(f *facts) bool { return f.errexit && f.funcs[name] })
		}
	}
	if call, ok := s.Cmd.(*syntax.CallExpr); ok && len(call.Args) == 0 && toStdout(s.Redirs) {
		for _, as := range call.Assigns {
			if as.Value != nil && hasPart[*syntax.CmdSubst](as.Value) {
				c.note(s.Pos(), &gapAssignRedir)
			}
		}
	}
}

// toStdout reports whether redirs send stderr to stdout (2>&1).
func toStdout(redirs []*syntax.Redirect) bool {
	for _, r := range redirs {
		if r.Op == syntax.DplOut && r.N != nil && r.N.Value == "2" && r.Word.Lit() == "1" {
			return true
		}
	}
	return false
}

// readsStatus reports whether s reads $? before anything else runs.
func readsStatus(s *syntax.Stmt) bool {
	found := false
	shast.Walk(s, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil && p.Param.Value == "?" {
			found = true
		}
		return !found
	})
	return found
}

func (c *GapCheck) paramExp(p *syntax.ParamExp) {
	if p.Param == nil {
		return
	}
	name := p.Param.Value
	if g, ok := unsetVars[name]; ok && (g != &gapFuncname || c.in(scopeFunc)) {
		c.note(p.Pos(), g)
	}
	switch {
	case name == "_":
		c.note(p.Pos(), &gapUnderscore)
	case len(name) > 1 && allDigits(name):
		c.note(p.Pos(), &gapPositional10)
	case p.Exp == nil && p.Index == nil && !p.Excl && !p.Length && unboundable(name) && !c.in(scopeSubshell):
		c.noteIf(p.Pos(), &gapNounset, func(f *facts) bool { return f.nounset && !f.assigned[name] })
	}
	if p.Length && p.Index != nil && allIndex(p.Index) && c.isAssoc(name) {
		c.note(p.Pos(), &gapAssocCount)
	}
	if r := p.Repl; r != nil {
		if r.Orig != nil && len(r.Orig.Parts) > 0 {
			if lit, ok := r.Orig.Parts[0].(*syntax.Lit); ok && (strings.HasPrefix(lit.Value, "#") || strings.HasPrefix(lit.Value, "%")) {
				c.note(p.Pos(), &gapReplaceAnchor)
			}
		}
		if r.With != nil {
			for _, part := range r.With.Parts {
				lit, ok := part.(*syntax.Lit)
				switch {
				case !ok:
				case strings.Contains(lit.Value, "\\"):
					c.note(p.Pos(), &gapReplaceBackslash)
				case strings.Contains(lit.Value, "&"):
					c.note(p.Pos(), &gapReplaceAmp)
				}
			}
		}
	}
	e := p.Exp
	if e == nil {
		return
	}
	switch e.Op {
	case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		if e.Word == nil {
			break
		}
		for _, part := range e.Word.Parts {
			switch part := part.(type) {
			case *syntax.SglQuoted:
				if strings.ContainsAny(part.Value, "*?[") {
					c.note(p.Pos(), &gapQuotedPattern)
				}
			case *syntax.ExtGlob:
				c.note(p.Pos(), &gapExtglobParam)
			case *syntax.Lit:
				for _, op := range []string{"+(", "*(", "@(", "!(", "?("} {
					if strings.Contains(part.Value, op) {
						c.note(p.Pos(), &gapExtglobParam)
					}
				}
			}
		}
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		if !c.in(scopeSubshell) {
			c.noteIf(p.Pos(), &gapErrorUnset, func(f *facts) bool { return !f.assigned[name] })
		}
	case syntax.OtherParamOps:
		switch e.Word.Lit() {
		case "Q", "A", "a", "P":
			c.note(p.Pos(), &gapTransform)
		}
	}
}

// dblQuoted looks at the expansions inside double quotes.
func (c *GapCheck) dblQuoted(d *syntax.DblQuoted) {
	for _, part := range d.Parts {
		p, ok := part.(*syntax.ParamExp)
		if !ok || p.Param == nil {
			continue
		}
		all := p.Param.Value == "@" || p.Index != nil && allIndex(p.Index)
		if p.Param.Value == "@" && p.Exp == nil && p.Repl == nil && p.Slice == nil && len(d.Parts) > 1 {
			inFunc := c.in(scopeFunc)
			c.noteIf(p.Pos(), &gapAtInString, func(f *facts) bool { return f.manyParams || inFunc })
		}
		if p.Exp == nil || p.Exp.Word == nil {
			continue
		}
		switch p.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull,
			syntax.AssignUnset, syntax.AssignUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
			if all && (p.Exp.Op == syntax.DefaultUnset || p.Exp.Op == syntax.DefaultUnsetOrNull) {
				c.note(p.Pos(), &gapAtDefault)
			}
			for _, wp := range p.Exp.Word.Parts {
				if lit, ok := wp.(*syntax.Lit); ok && (strings.Contains(lit.Value, `\"`) || strings.Contains(lit.Value, `\$`)) {
					c.note(p.Pos(), &gapDefaultBackslash)
				}
			}
		}
	}
}

func (c *GapCheck) redirect(r *syntax.Redirect) {
	fd := -1 // the descriptor the redirection names, -1 for the default
	if r.N != nil {
		if !allDigits(r.N.Value) {
			c.note(r.Pos(), &gapFdAbove2) // {fd}>
			return
		}
		fd = atoi(r.N.Value)
	}
	if fd > 2 {
		if c.facts.fds == nil {
			c.facts.fds = make(map[string]bool)
		}
		c.facts.fds[r.N.Value] = true
		c.note(r.Pos(), &gapFdAbove2)
		return
	}
	switch r.Op {
	case syntax.DplOut, syntax.DplIn:
		w := r.Word.Lit()
		switch {
		case w == "-":
			c.note(r.Pos(), &gapCloseFd)
		case allDigits(w) && atoi(w) > 2:
			// A descriptor nothing opened fails in bash too.
			c.noteIf(r.Pos(), &gapFdAbove2, func(f *facts) bool { return f.fds[w] })
		case fd == 2 && w == "1":
			c.facts.stderrToStdout = true
		}
	case syntax.ClbOut:
		c.note(r.Pos(), &gapClobber)
	case syntax.RdrInOut:
		c.note(r.Pos(), &gapReadWrite)
	case syntax.Hdoc, syntax.DashHdoc:
		quoted, plain := false, false
		for _, part := range r.Word.Parts {
			switch part.(type) {
			case *syntax.Lit:
				plain = true
			default:
				quoted = true
			}
		}
		if quoted && plain {
			c.note(r.Pos(), &gapHeredocQuoted)
		}
	}
}

// The builtins set -x traces otherwise than bash when they have two
// arguments or more: mvdan/sh quotes them as one word.
var tracedBuiltins = map[string]bool{
	"echo": true, "printf": true, "read": true, "mapfile": true, "readarray": true, "true": true, "false": true,
	"type": true, "cd": true, "test": true, "[": true, "shift": true, "set": true, "shopt": true, "eval": true,
	"source": true, ".": true, "trap": true, "unset": true, "let": true, "return": true, "exit": true,
	"pushd": true, "popd": true, "dirs": true, "command": true, "builtin": true, "wait": true, "kill": true,
	"umask": true, "ulimit": true, "getopts": true, "hash": true, "pwd": true, "jobs": true,
}

func (c *GapCheck) call(call *syntax.CallExpr) {
	for _, as := range call.Assigns {
		c.assign(as, call.Pos())
	}
	if len(call.Args) == 0 {
		return
	}
	name := call.Args[0].Lit()
	args := literalArgs(call.Args[1:])
	if len(call.Args) > 2 && tracedBuiltins[name] {
		c.noteIf(call.Pos(), &gapXtrace, traced)
	}
	if c.in(scopeLoop) {
		c.noteIf(call.Pos(), &gapBreakInFunction, func(f *facts) bool { return f.breakFuncs[name] })
	}
	c.noteIf(call.Pos(), &gapErrTrap, func(f *facts) bool { return f.errTrap && f.funcs[name] })
	for _, w := range call.Args[1:] {
		if expandsDash(w) {
			c.note(call.Pos(), &gapDollarDash)
		}
	}
	c.unquotedSplit(call.Args[1:], call.Pos())
	c.extglobLiteral(call.Args[1:], call.Pos())
	switch name {
	case "compgen":
		c.note(call.Pos(), &gapCompgen)
	case "disown":
		c.note(call.Pos(), &gapDisown)
	case "caller":
		c.note(call.Pos(), &gapCaller)
	case "set":
		c.setOptions(args)
	case "shopt":
		c.shopt(call.Pos(), args)
	case "trap":
		c.trap(call.Pos(), args)
	case "read":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") && strings.Contains(a, "[") {
				c.note(call.Pos(), &gapReadElem)
			}
			c.assigned(a)
		}
	case "getopts":
		if len(args) > 1 {
			c.assigned(args[1])
		}
	case "eval":
		for _, a := range args {
			if a == "break" || a == "continue" {
				c.note(call.Pos(), &gapBreakByEval)
			}
		}
	case "exec":
		if len(call.Args) > 1 {
			c.noteIf(call.Pos(), &gapExecTrap, func(f *facts) bool { return f.exitTrap })
		}
	case "[", "test":
		c.classicTest(call.Pos(), args)
	}
}

// let notes an argument of let that expands a variable inside quotes: its
// text is an expression only once expanded.
func (c *GapCheck) let(l *syntax.LetClause) {
	for _, x := range l.Exprs {
		shast.Walk(x, func(n syntax.Node) bool {
			if d, ok := n.(*syntax.DblQuoted); ok && hasExpansion(d.Parts) {
				c.note(l.Pos(), &gapLetExpanded)
			}
			return true
		})
	}
}

// mayFail reports whether a loop body's last command is one whose failure
// scripts test: false, a test, arithmetic or a negation.
func mayFail(body []*syntax.Stmt) bool {
	if len(body) == 0 {
		return false
	}
	last := body[len(body)-1]
	if last.Negated {
		return true
	}
	switch cmd := last.Cmd.(type) {
	case *syntax.ArithmCmd, *syntax.TestClause:
		return true
	case *syntax.CallExpr:
		if len(cmd.Args) > 0 {
			switch cmd.Args[0].Lit() {
			case "false", "test", "[":
				return true
			}
		}
	}
	return false
}

// traced is the need of the gaps of set -x: bash's trace and shelter's
// differ where a script reads them, in a stdout stderr goes to.
func traced(f *facts) bool { return f.xtrace && f.stderrToStdout }

// expandsDash reports whether w expands $-.
func expandsDash(w *syntax.Word) bool {
	parts := w.Parts
	if len(parts) == 1 {
		if d, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = d.Parts
		}
	}
	for _, part := range parts {
		if p, ok := part.(*syntax.ParamExp); ok && p.Param != nil && p.Param.Value == "-" && !p.Excl {
			return true
		}
	}
	return false
}

// unboundable reports whether name is one a script would set itself: a
// lowercase name, not one of the environment's or the shell's.
func unboundable(name string) bool {
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := range len(name) {
		b := name[i]
		if !(b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_') {
			return false
		}
	}
	return true
}

// assigned records a name the script sets.
func (c *GapCheck) assigned(name string) {
	if name == "" {
		return
	}
	if c.facts.assigned == nil {
		c.facts.assigned = make(map[string]bool)
	}
	c.facts.assigned[name] = true
}

// literalArgs are the words' texts, "" for a word that is not literal.
func literalArgs(words []*syntax.Word) []string {
	args := make([]string, len(words))
	for i, w := range words {
		if t, ok := shast.LiteralText(w); ok {
			args[i] = t
		}
	}
	return args
}

func (c *GapCheck) setOptions(args []string) {
	for i, a := range args {
		if a == "-o" && i+1 < len(args) {
			c.option(args[i+1])
			continue
		}
		if len(a) < 2 || a[0] != '-' || a == "--" {
			// The options end where the parameters start.
			if a == "--" {
				i++
			}
			c.facts.manyParams = c.facts.manyParams || len(args)-i >= 2
			return
		}
		for _, r := range a[1:] {
			switch r {
			case 'e':
				c.facts.errexit = true
			case 'u':
				c.facts.nounset = true
			case 'x':
				c.facts.xtrace = true
			case 'C':
				c.note(c.file.Pos(), &gapNoclobber)
			}
		}
	}
}

func (c *GapCheck) option(name string) {
	switch name {
	case "errexit":
		c.facts.errexit = true
	case "nounset":
		c.facts.nounset = true
	case "xtrace":
		c.facts.xtrace = true
	case "noclobber":
		c.note(c.file.Pos(), &gapNoclobber)
	}
}

func (c *GapCheck) shopt(pos syntax.Pos, args []string) {
	set, flagged := false, false
	for _, a := range args {
		switch a {
		case "-q":
			c.note(pos, &gapShoptQ)
			return
		case "-s":
			set, flagged = true, true
		case "inherit_errexit":
			c.facts.inheritErrexit = c.facts.inheritErrexit || set
		case "lastpipe":
			c.facts.lastpipe = c.facts.lastpipe || set
		case "-u", "-p", "-o":
			flagged = true
		case "failglob":
			if set {
				c.note(pos, &gapFailglob)
			}
		case "nocasematch":
			if set {
				c.note(pos, &gapNocasematch)
			}
		}
	}
	if !flagged && len(args) > 0 {
		c.note(pos, &gapShoptStatus)
	}
}

func (c *GapCheck) trap(pos syntax.Pos, args []string) {
	if len(args) < 2 || strings.HasPrefix(args[0], "-") || args[0] == "" {
		return // a listing, or a reset
	}
	for _, sig := range args[1:] {
		switch sig {
		case "ERR":
			c.facts.errTrap = true
			if strings.Contains(args[0], "LINENO") || strings.Contains(args[0], "BASH_COMMAND") {
				c.note(pos, &gapErrTrap)
			}
		case "EXIT", "0":
			c.facts.exitTrap = true
		case "RETURN":
			c.note(pos, &gapReturnTrap)
		}
	}
}

// classicTest looks at the literal arguments of [ and test.
func (c *GapCheck) classicTest(pos syntax.Pos, args []string) {
	for i, a := range args {
		switch a {
		case "<", ">":
			c.note(pos, &gapTestLess)
		case "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
			for _, op := range []int{i - 1, i + 1} {
				if op >= 0 && op < len(args) && args[op] != "" && !integer(args[op]) && args[op] != "]" {
					c.note(pos, &gapTestInteger)
				}
			}
		case "-e", "-f", "-d", "-r", "-w", "-x", "-s":
			if i+1 < len(args) {
				p := args[i+1]
				if len(p) > 1 && strings.HasSuffix(p, "/") || strings.Contains(p, "/..") {
					c.note(pos, &gapPathLexical)
				}
			}
		}
	}
}

// assign looks at a plain assignment, before a command or alone.
func (c *GapCheck) assign(as *syntax.Assign, pos syntax.Pos) {
	if as.Name == nil {
		return
	}
	name := as.Name.Value
	switch name {
	case "RANDOM":
		c.note(as.Pos(), &gapRandomSeed)
	case "CDPATH":
		c.note(as.Pos(), &gapCdpath)
	case "DIRSTACK":
		if as.Index != nil {
			c.note(as.Pos(), &gapDirstackElem)
		}
	case "IFS":
		if as.Value == nil {
			break
		}
		if t, ok := shast.LiteralText(as.Value); ok && strings.Trim(t, " \t\n") != "" {
			c.facts.ifsNonBlank = true
		}
	}
	c.tildeColon(as)
	c.assigned(name)
	if !c.in(scopeFunc) {
		if c.facts.topAssigned == nil {
			c.facts.topAssigned = make(map[string]bool)
		}
		c.facts.topAssigned[name] = true
	}
	if c.readonly[name] && !c.in(scopeSubshell) {
		c.note(as.Pos(), &gapReadonlyGoesOn)
	}
	if as.Index != nil && c.noValue[name] {
		c.noteIf(as.Pos(), &gapNounsetDeclared, func(f *facts) bool { return f.nounset })
	}
	if !as.Append && as.Array == nil && as.Index == nil {
		return
	}
	assoc := c.isAssoc(name)
	switch {
	case as.Append && as.Index != nil && !assoc:
		c.note(as.Pos(), &gapIndexedAppend)
	case as.Append && assoc:
		c.note(as.Pos(), &gapAssocAppend)
	case as.Array != nil && assoc:
		c.note(as.Pos(), &gapAssocReassign)
	case as.Index != nil && assoc:
		if _, word := as.Index.(*syntax.Word); !word {
			c.note(as.Pos(), &gapAssocArithKey)
		}
	}
}

// tildeColon notes a ~ after a colon in an assignment's unquoted value.
func (c *GapCheck) tildeColon(as *syntax.Assign) {
	if as.Value == nil {
		return
	}
	for _, part := range as.Value.Parts {
		if lit, ok := part.(*syntax.Lit); ok && strings.Contains(lit.Value, ":~") {
			c.note(as.Pos(), &gapTildeColon)
		}
	}
}

func (c *GapCheck) decl(d *syntax.DeclClause) {
	variant := d.Variant.Value
	var flags string
	var names []string // the names assigned so far
	readonly := variant == "readonly"
	for _, as := range d.Args {
		if as.Name == nil {
			if t, ok := shast.LiteralText(as.Value); ok {
				if t == "-" && variant == "local" {
					c.note(as.Pos(), &gapLocalDash)
				}
				if strings.HasPrefix(t, "-") {
					flags += t[1:]
					readonly = readonly || strings.Contains(t, "r")
				}
			}
			continue
		}
		name := as.Name.Value
		if strings.ContainsAny(flags, "lu") {
			c.note(as.Pos(), &gapCaseAttr)
		}
		if strings.Contains(flags, "i") {
			c.note(as.Pos(), &gapIntAttr)
		}
		if strings.Contains(flags, "n") && variant != "export" {
			if c.namerefs()[name] > 1 {
				c.note(as.Pos(), &gapNamerefAgain)
			}
		}
		if variant == "export" && strings.Contains(flags, "f") {
			c.note(as.Pos(), &gapExportF)
		}
		if as.Naked && variant == "local" && !strings.ContainsAny(flags, "aAn") {
			c.noteIf(as.Pos(), &gapLocalNoValue, func(f *facts) bool { return f.topAssigned[name] })
		}
		if as.Naked && strings.ContainsAny(flags, "aA") {
			if c.noValue == nil {
				c.noValue = make(map[string]bool)
			}
			c.noValue[name] = true
		}
		if as.Value != nil && readsAny(as.Value, names) {
			c.note(as.Pos(), &gapDeclOrder)
		}
		if !as.Naked {
			names = append(names, name)
			c.assigned(name)
		}
		if readonly {
			if c.readonly == nil {
				c.readonly = make(map[string]bool)
			}
			c.readonly[name] = true
		}
		if as.Append && c.isAssoc(name) {
			c.note(as.Pos(), &gapAssocAppend)
		}
	}
}

// namerefs counts the script's declare -n of each name.
func (c *GapCheck) namerefs() map[string]int {
	n := make(map[string]int)
	shast.Walk(c.file, func(node syntax.Node) bool {
		if d, ok := node.(*syntax.DeclClause); ok {
			declWalk(d, func(as *syntax.Assign, valType string) {
				if valType == "-n" {
					n[as.Name.Value]++
				}
			})
		}
		return true
	})
	return n
}

// readsAny reports whether w expands one of names.
func readsAny(w *syntax.Word, names []string) bool {
	found := false
	shast.Walk(w, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil {
			for _, name := range names {
				if p.Param.Value == name {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

func (c *GapCheck) binaryCmd(b *syntax.BinaryCmd) {
	switch b.Op {
	case syntax.AndStmt, syntax.OrStmt:
		switch x := b.X.Cmd.(type) {
		case *syntax.Subshell:
			if len(x.Stmts) > 1 {
				c.noteIf(b.Pos(), &gapErrexitOr, func(f *facts) bool { return f.errexit })
			}
		case *syntax.WhileClause:
			c.note(b.Pos(), &gapLoopStatus)
		}
	case syntax.Pipe, syntax.PipeAll:
		if _, pipe := b.Y.Cmd.(*syntax.BinaryCmd); pipe {
			return
		}
		names := assignedIn(b.Y)
		if len(names) > 0 && !c.facts.lastpipe {
			c.lastpipeCheck(b, names)
		}
	}
}

// lastpipeCheck notes a pipeline whose last command sets a variable the
// rest of the script reads.
func (c *GapCheck) lastpipeCheck(b *syntax.BinaryCmd, names map[string]bool) {
	end := b.End()
	shast.Walk(c.file, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil && p.Pos().After(end) && names[p.Param.Value] {
			c.note(b.Pos(), &gapLastpipe)
			return false
		}
		return true
	})
}

// assignedIn are the names a command sets: assignments, read's names and
// arithmetic writes.
func assignedIn(s *syntax.Stmt) map[string]bool {
	if _, sub := s.Cmd.(*syntax.Subshell); sub {
		return nil
	}
	names := map[string]bool{}
	shast.Walk(s, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			for _, as := range n.Assigns {
				if as.Name != nil && len(n.Args) == 0 {
					names[as.Name.Value] = true
				}
			}
			if len(n.Args) > 0 && n.Args[0].Lit() == "read" {
				for _, a := range literalArgs(n.Args[1:]) {
					if a != "" && !strings.HasPrefix(a, "-") {
						names[a] = true
					}
				}
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				if w, ok := n.X.(*syntax.Word); ok {
					names[w.Lit()] = true
				}
			}
		case *syntax.BinaryArithm:
			if _, ok := shast.ArithAssignOp(n.Op); ok {
				if w, ok := n.X.(*syntax.Word); ok {
					names[w.Lit()] = true
				}
			}
		case *syntax.Subshell, *syntax.CmdSubst:
			return false
		}
		return true
	})
	return names
}

func (c *GapCheck) testClause(t *syntax.TestClause) {
	shast.Walk(t.X, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryTest:
			if n.Op == syntax.TsReMatch {
				if w, ok := n.Y.(*syntax.Word); ok {
					for _, part := range w.Parts {
						if d, ok := part.(*syntax.DblQuoted); ok && hasExpansion(d.Parts) {
							c.note(t.Pos(), &gapRegexQuotedVar)
						}
					}
				}
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet {
				if w, ok := n.X.(*syntax.Word); ok {
					if t, ok := shast.LiteralText(w); ok {
						if name, _, sub := strings.Cut(t, "["); sub && c.isAssoc(name) {
							c.note(n.Pos(), &gapAssocTestKey)
						}
					}
				}
			}
		}
		return true
	})
	c.noteIf(t.Pos(), &gapXtrace, traced)
}

func (c *GapCheck) arithmCmd(a *syntax.ArithmCmd) {
	c.noteIf(a.Pos(), &gapXtrace, traced)
	shast.Walk(a.X, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			if lit := w.Lit(); len(lit) > 1 && lit[0] == '0' && allDigits(lit) && strings.ContainsAny(lit, "89") {
				c.note(a.Pos(), &gapArithOctal)
			}
		}
		return true
	})
}

// arithm notes a divisor with side effects.
func (c *GapCheck) arithm(x syntax.ArithmExpr) {
	shast.Walk(x, func(n syntax.Node) bool {
		b, ok := n.(*syntax.BinaryArithm)
		if !ok || b.Op != syntax.Quo && b.Op != syntax.Rem {
			return true
		}
		shast.Walk(b.Y, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.UnaryArithm:
				if n.Op == syntax.Inc || n.Op == syntax.Dec {
					c.note(b.Pos(), &gapArithSideDiv)
				}
			case *syntax.BinaryArithm:
				if _, assign := shast.ArithAssignOp(n.Op); assign {
					c.note(b.Pos(), &gapArithSideDiv)
				}
			case *syntax.CmdSubst:
				c.note(b.Pos(), &gapArithSideDiv)
			}
			return true
		})
		return true
	})
}

func (c *GapCheck) forClause(f *syntax.ForClause) {
	switch loop := f.Loop.(type) {
	case *syntax.CStyleLoop:
		c.noteIf(f.Pos(), &gapXtrace, traced)
		if loop.Cond != nil {
			shast.Walk(loop.Cond, func(n syntax.Node) bool {
				if b, ok := n.(*syntax.BinaryArithm); ok && (b.Op == syntax.Quo || b.Op == syntax.Rem) {
					if w, ok := b.Y.(*syntax.Word); ok && w.Lit() == "0" {
						c.note(f.Pos(), &gapArithCondError)
					}
				}
				return true
			})
		}
	case *syntax.WordIter:
		if loop.Name != nil {
			c.assigned(loop.Name.Value)
		}
		c.unquotedSplit(loop.Items, f.Pos())
		c.extglobLiteral(loop.Items, f.Pos())
	}
	c.loopBody(f.Do)
}

// loopBody notes a declare -n run again by a loop.
func (c *GapCheck) loopBody(body []*syntax.Stmt) {
	for _, s := range body {
		shast.Walk(s, func(n syntax.Node) bool {
			if d, ok := n.(*syntax.DeclClause); ok {
				declWalk(d, func(as *syntax.Assign, valType string) {
					if valType == "-n" {
						c.note(as.Pos(), &gapNamerefAgain)
					}
				})
			}
			_, fn := n.(*syntax.FuncDecl)
			return !fn
		})
	}
}

func (c *GapCheck) ifClause(i *syntax.IfClause) {
	for _, s := range i.Cond {
		if breaks(s) {
			c.note(s.Pos(), &gapBreakInCond)
		}
	}
	// A failing command that ends a branch ends the if too: the ERR trap
	// runs for both.
	for b := i; b != nil; b = b.Else {
		if len(b.Then) > 0 && mayFail(b.Then) {
			c.noteIf(i.Pos(), &gapErrTrap, func(f *facts) bool { return f.errTrap })
		}
	}
}

func (c *GapCheck) caseClause(cc *syntax.CaseClause) {
	for _, item := range cc.Items {
		if item.Op != syntax.Fallthrough {
			continue
		}
		for _, s := range item.Stmts {
			if breaks(s) {
				c.note(s.Pos(), &gapBreakInCond)
			}
		}
	}
}

// breaks reports whether s runs break or continue outside a loop of its own.
func breaks(s *syntax.Stmt) bool {
	found := false
	shast.Walk(s, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ForClause, *syntax.WhileClause, *syntax.FuncDecl, *syntax.Subshell, *syntax.CmdSubst:
			return false
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				switch n.Args[0].Lit() {
				case "break", "continue":
					found = true
				}
			}
		}
		return !found
	})
	return found
}

func (c *GapCheck) funcDecl(f *syntax.FuncDecl) {
	if f.Name != nil {
		if c.facts.funcs == nil {
			c.facts.funcs = make(map[string]bool)
		}
		c.facts.funcs[f.Name.Value] = true
	}
	if f.Name != nil && f.Body != nil && breaks(f.Body) {
		if c.facts.breakFuncs == nil {
			c.facts.breakFuncs = make(map[string]bool)
		}
		c.facts.breakFuncs[f.Name.Value] = true
	}
}

func (c *GapCheck) subshell(s *syntax.Subshell) { c.exitTrapIn(s.Stmts, s.Pos()) }

// exitTrapIn notes an EXIT trap set in a subshell's statements.
func (c *GapCheck) exitTrapIn(stmts []*syntax.Stmt, pos syntax.Pos) {
	for _, s := range stmts {
		call, ok := s.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) < 3 || call.Args[0].Lit() != "trap" || strings.HasPrefix(call.Args[1].Lit(), "-") {
			continue
		}
		for _, sig := range literalArgs(call.Args[2:]) {
			if sig == "EXIT" || sig == "0" {
				c.note(pos, &gapExitTrapSub)
			}
		}
	}
}

func (c *GapCheck) cmdSubst(cs *syntax.CmdSubst) {
	c.exitTrapIn(cs.Stmts, cs.Pos())
	c.noteIf(cs.Pos(), &gapXtrace, traced)
	if len(cs.Stmts) > 1 {
		c.noteIf(cs.Pos(), &gapErrexitSubst, func(f *facts) bool { return f.errexit && !f.inheritErrexit })
	}
}

// unquotedSplit notes words that field splitting cuts, once IFS holds
// other than blanks.
func (c *GapCheck) unquotedSplit(words []*syntax.Word, pos syntax.Pos) {
	for _, w := range words {
		for _, part := range w.Parts {
			switch part.(type) {
			case *syntax.ParamExp, *syntax.CmdSubst:
				c.noteIf(pos, &gapIFSEmptyFields, func(f *facts) bool { return f.ifsNonBlank })
				return
			}
		}
	}
}

// extglobLiteral notes an extglob pattern that holds no other glob.
func (c *GapCheck) extglobLiteral(words []*syntax.Word, pos syntax.Pos) {
	for _, w := range words {
		ext, glob := false, false
		for _, part := range w.Parts {
			switch part := part.(type) {
			case *syntax.ExtGlob:
				ext = true
				glob = glob || strings.ContainsAny(part.Pattern.Value, "*?[")
			case *syntax.Lit:
				glob = glob || strings.ContainsAny(part.Value, "*?[")
			}
		}
		if ext && !glob {
			c.note(pos, &gapExtglobLiteral)
		}
	}
}

func hasExpansion(parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch p.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp:
			return true
		}
	}
	return false
}

func hasPart[T syntax.WordPart](w *syntax.Word) bool {
	for _, p := range w.Parts {
		if _, ok := p.(T); ok {
			return true
		}
	}
	return false
}

// allIndex reports whether a subscript is @ or *.
func allIndex(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && (w.Lit() == "@" || w.Lit() == "*")
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func atoi(s string) int {
	n := 0
	for i := range len(s) {
		n = n*10 + int(s[i]-'0')
		if n > 1<<20 {
			return n
		}
	}
	return n
}

// integer reports whether s is a decimal integer, as test reads one.
func integer(s string) bool {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	return allDigits(s)
}
