package mvdanpriv

import (
	"context"
	"reflect"
	"unsafe"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// ectxField and ecfgField are the context of an [interp.Runner]'s latest
// Run and the expansion settings made with it, whose functions hold it:
// the runner keeps both until its next Run, for Subshell's copies.
var (
	ectxField = field{reflect.TypeFor[interp.Runner](), "ectx", "context.Context", is[context.Context]}
	ecfgField = field{reflect.TypeFor[interp.Runner](), "ecfg", "*expand.Config", is[*expand.Config]}
)

var (
	ectxAt, ectxFound = ectxField.find()
	ecfgAt, ecfgFound = ecfgField.find()
)

// ForgetRunContext makes r, which does not run, let go of the context of
// its latest Run: an idle runner would keep it, and whatever the context
// holds, until its next Run. Its context becomes context.Background, and
// its expansion settings lose the two functions that hold the old one,
// command and process substitution, which no expansion outside a Run
// makes; the settings stay, for an option applied meanwhile
// ([interp.BashOpts]) to update. r's next Run makes both anew; a copy
// Subshell makes before then has context.Background until its own Run.
// It reports false when r is nil or [Check] fails.
func ForgetRunContext(r *interp.Runner) bool {
	if r == nil || !ectxFound || !ecfgFound {
		return false
	}
	*(*context.Context)(unsafe.Add(unsafe.Pointer(r), ectxAt)) = context.Background()
	if cfg := *(**expand.Config)(unsafe.Add(unsafe.Pointer(r), ecfgAt)); cfg != nil {
		cfg.CmdSubst, cfg.ProcSubst = nil, nil
	}
	return true
}
