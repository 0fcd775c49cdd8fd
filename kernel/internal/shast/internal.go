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
	CmdRefuse     = InternalPrefix + "refuse"      // prints its argument, a refusal, and fails with 2
)

// StatusWord is a command the call handler turns into [CmdStatus]; an
// eval's source can name it, which the internal prefix's NUL cannot be.
const StatusWord = "\x01shelter:status"

// DirStackVar is the array that shelter's dirs, pushd and popd keep the
// directory stack in; the rewrites turn $DIRSTACK into it.
const DirStackVar = "SHELTER_DIRSTACK"
