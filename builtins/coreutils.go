package builtins

import "github.com/shelter-sh/shelter/kernel"

// Coreutils returns the in-process coreutils the sandbox serves
// (docs/sandbox.md), sorted by name: register them in [kernel.Config.Tools]
// to have a session run them without a fork. Each works on files only
// through the call's [kernel.Opener]. The commands hold no state and are
// safe for concurrent use.
func Coreutils() []kernel.Tool {
	return []kernel.Tool{
		cmdBasename, cmdCat, cmdCp, cmdCut, cmdDate, cmdDiff, cmdDirname, cmdFind,
		cmdGrep, cmdHead, cmdJq, cmdLn, cmdLs, cmdMkdir, cmdMv, cmdReadlink,
		cmdRealpath, cmdRm, cmdRmdir, cmdSed, cmdSeq, cmdSleep, cmdSort, cmdTail,
		cmdTee, cmdTouch, cmdTr, cmdUniq, cmdWc,
	}
}
