package shast

// InternalPrefix marks a command the call handler rerouted to the exec
// handler: a tool whose name is also a shell builtin (help, jobs, kill,
// wait), and the internal commands below, which the rewrites and the
// replaced builtins put into a script. No script can type the prefix.
const InternalPrefix = "\x00shelter:"

// The internal commands. Each is answered by the kernel's call or exec
// handler; what each does is documented where it is answered.
const (
	CmdStatus     = InternalPrefix + "status"      // exits with its argument
	CmdSigpipe    = InternalPrefix + "sigpipe"     // ends the command as SIGPIPE would
	CmdQuiet      = InternalPrefix + "quiet"       // evaluates its argument with set -x off
	CmdJob        = InternalPrefix + "job"         // starts a top-level `cmd &` as a job
	CmdCat        = InternalPrefix + "cat"         // the reader of `$(< FILE)`
	CmdBgNext     = InternalPrefix + "bg-next"     // before a nested `cmd &`
	CmdBgLaunched = InternalPrefix + "bg-launched" // after a nested `cmd &`
	CmdLoopEnd    = InternalPrefix + "loop-end"    // the end of a rewritten loop's body
	CmdGoOn       = InternalPrefix + "go-on"       // fails while a break or continue is pending
	CmdReadonly   = InternalPrefix + "readonly"    // after a failed assignment: exits if it wrote a readonly name
	CmdSubstStart = InternalPrefix + "subst-start" // first in a $( ) where set -e may be on
	CmdExtglob    = InternalPrefix + "extglob"     // expands extglob words and patterns into variables
	CmdMatch      = InternalPrefix + "match"       // a [[ ]] or case match under nocasematch, into a variable
	CmdGlobCall   = InternalPrefix + "glob-call"   // runs its arguments once their marked patterns are expanded
	CmdOptions    = InternalPrefix + "options"     // prints the value of $SHELLOPTS or $BASHOPTS
	CmdFrame      = InternalPrefix + "frame"       // starts a function's frame of the call stack
	CmdSource     = InternalPrefix + "source"      // source, with its frame of the call stack
	CmdFlags      = InternalPrefix + "flags"       // prints $- as bash has it
	CmdPipeRec    = InternalPrefix + "pipe-rec"    // notes a pipeline command's failure
	CmdPipeSet    = InternalPrefix + "pipe-set"    // sets PIPESTATUS after a pipeline
	CmdReseed     = InternalPrefix + "reseed"      // makes $RANDOM bash's sequence of its seed
	CmdSubshell   = InternalPrefix + "subshell"    // starts a subshell's BASHPID and BASH_SUBSHELL; with SubshellArrays, its own arrays
	CmdGlue       = InternalPrefix + "glue"        // glues text to the ends of "$@" or "${a[@]}"
	CmdFdScope    = InternalPrefix + "fd-scope"    // before a statement's descriptor redirections
	CmdFd         = InternalPrefix + "fd"          // one redirection of a descriptor, in the scope
	CmdFdEnd      = InternalPrefix + "fd-end"      // after them: ends the scope with its argument
	CmdArrayAssoc = InternalPrefix + "array-assoc" // succeeds when its argument names an associative array
	CmdAssocReset = InternalPrefix + "assoc-reset" // empties the associative array its argument names
	CmdArrayCount = InternalPrefix + "array-count" // prints how many elements its argument's array holds
	CmdIndirect   = InternalPrefix + "indirect"    // sets the variables of a statement's ${!ref}
	CmdNamerefSet = InternalPrefix + "nameref-set" // assigns an element through a name reference
	CmdUnsetRef   = InternalPrefix + "unset-ref"   // unset -n of its arguments, before they are declared again
	CmdRefuse     = InternalPrefix + "refuse"      // prints its argument, a refusal, and fails with 2
)

// SubshellArrays is CmdSubshell's argument that gives the subshell a copy
// of each indexed array it sees, which name+=value would otherwise change
// in the shell it was made from (rewrite.appendsToFirst).
const SubshellArrays = "arrays"

// The words of the descriptor rewrite (rewrite.Script): a redirection
// whose word ends with [OpenMarker] and a mode opens its file as that
// mode says (r, w, a, rw; c for >|), with [FdOpenMarker] for [CmdFd],
// which takes the file into the descriptor table; a redirection to [FdPath] N or
// [FdKeepPath] N takes the shell's descriptor N from the table (for
// exec, the shell keeps it).
const (
	OpenMarker   = InternalPrefix + "open="
	FdOpenMarker = InternalPrefix + "fd-open="
	FdPath       = InternalPrefix + "fd/"
	FdKeepPath   = InternalPrefix + "fd-keep/"
)

// FdVar names the descriptor table of the shell that runs a command
// (see the kernel's fds.go).
const FdVar = "SHELTER_FD"

// StatusWord is a command the call handler turns into [CmdStatus]; an
// eval's source can name it, which the internal prefix's NUL cannot be.
const StatusWord = "\x01shelter:status"

// DirStackVar is the array that shelter's dirs, pushd and popd keep the
// directory stack in; the rewrites turn $DIRSTACK into it.
const DirStackVar = "SHELTER_DIRSTACK"

// OptionsVar holds the state of the shell options mvdan/sh does not
// implement, which shelter's set and shopt keep: the names, each followed
// by a space after a leading one (" noclobber failglob "), of those whose
// state is not the one bash starts with.
const OptionsVar = "SHELTER_OPTIONS"
