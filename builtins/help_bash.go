package builtins

import "sync"

// bashHelp is what `help NAME` prints for a bash builtin the shell has: bash's
// own synopsis line (help -s) and its one-line description (help -d), from
// bash 5.2. It is built on first use: only help needs it, and building it
// at init cost every start of the CLI.
var bashHelp = sync.OnceValue(func() map[string]bashTopic {
	return map[string]bashTopic{
		"alias":     {"alias: alias [-p] [name[=value] ... ]", "Define or display aliases."},
		"bg":        {"bg: bg [job_spec ...]", "Move jobs to the background."},
		"cd":        {"cd: cd [-L|[-P [-e]] [-@]] [dir]", "Change the shell working directory."},
		"command":   {"command: command [-pVv] command [arg ...]", "Execute a simple command or display information about commands."},
		"false":     {"false: false", "Return an unsuccessful result."},
		"fc":        {"fc: fc [-e ename] [-lnr] [first] [last] or fc -s [pat=rep] [command]", "Display or execute commands from the history list."},
		"fg":        {"fg: fg [job_spec]", "Move job to the foreground."},
		"getopts":   {"getopts: getopts optstring name [arg ...]", "Parse option arguments."},
		"hash":      {"hash: hash [-lr] [-p pathname] [-dt] [name ...]", "Remember or display program locations."},
		"jobs":      {"jobs: jobs [-lnprs] [jobspec ...] or jobs -x command [args]", "Display status of jobs."},
		"kill":      {"kill: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]", "Send a signal to a job."},
		"pwd":       {"pwd: pwd [-LP]", "Print the name of the current working directory."},
		"read":      {"read: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]", "Read a line from the standard input and split it into fields."},
		"true":      {"true: true", "Return a successful result."},
		"umask":     {"umask: umask [-p] [-S] [mode]", "Display or set file mode mask."},
		"unalias":   {"unalias: unalias [-a] name [name ...]", "Remove each NAME from the list of defined aliases."},
		"wait":      {"wait: wait [-fn] [-p var] [id ...]", "Wait for job completion and return exit status."},
		"break":     {"break: break [n]", "Exit for, while, or until loops."},
		":":         {":: :", "Null command."},
		"continue":  {"continue: continue [n]", "Resume for, while, or until loops."},
		".":         {".: . filename [arguments]", "Execute commands from a file in the current shell."},
		"eval":      {"eval: eval [arg ...]", "Execute arguments as a shell command."},
		"exec":      {"exec: exec [-cl] [-a name] [command [argument ...]] [redirection ...]", "Replace the shell with the given command."},
		"exit":      {"exit: exit [n]", "Exit the shell."},
		"export":    {"export: export [-fn] [name[=value] ...] or export -p", "Set export attribute for shell variables."},
		"readonly":  {"readonly: readonly [-aAf] [name[=value] ...] or readonly -p", "Mark shell variables as unchangeable."},
		"return":    {"return: return [n]", "Return from a shell function."},
		"set":       {"set: set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]", "Set or unset values of shell options and positional parameters."},
		"shift":     {"shift: shift [n]", "Shift positional parameters."},
		"times":     {"times: times", "Display process times."},
		"trap":      {"trap: trap [-lp] [[arg] signal_spec ...]", "Trap signals and other events."},
		"unset":     {"unset: unset [-f] [-v] [-n] [name ...]", "Unset values and attributes of shell variables and functions."},
		"source":    {"source: source filename [arguments]", "Execute commands from a file in the current shell."},
		"bind":      {"bind: bind [-lpsvPSVX] [-m keymap] [-f filename] [-q name] [-u name] [-r keyseq] [-x keyseq:shell-command] [keyseq:readline-function or readline-command]", "Set Readline key bindings and variables."},
		"builtin":   {"builtin: builtin [shell-builtin [arg ...]]", "Execute shell builtins."},
		"caller":    {"caller: caller [expr]", "Return the context of the current subroutine call."},
		"compgen":   {"compgen: compgen [-abcdefgjksuv] [-o option] [-A action] [-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [word]", "Display possible completions depending on the options."},
		"complete":  {"complete: complete [-abcdefgjksuv] [-pr] [-DEI] [-o option] [-A action] [-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [name ...]", "Specify how arguments are to be completed by Readline."},
		"compopt":   {"compopt: compopt [-o|+o option] [-DEI] [name ...]", "Modify or display completion options."},
		"declare":   {"declare: declare [-aAfFgiIlnrtux] [name[=value] ...] or declare -p [-aAfFilnrtux] [name ...]", "Set variable values and attributes."},
		"typeset":   {"typeset: typeset [-aAfFgiIlnrtux] name[=value] ... or typeset -p [-aAfFilnrtux] [name ...]", "Set variable values and attributes."},
		"dirs":      {"dirs: dirs [-clpv] [+N] [-N]", "Display directory stack."},
		"disown":    {"disown: disown [-h] [-ar] [jobspec ... | pid ...]", "Remove jobs from current shell."},
		"enable":    {"enable: enable [-a] [-dnps] [-f filename] [name ...]", "Enable and disable shell builtins."},
		"history":   {"history: history [-c] [-d offset] [n] or history -anrw [filename] or history -ps arg [arg...]", "Display or manipulate the history list."},
		"help":      {"help: help [-dms] [pattern ...]", "Display information about builtin commands."},
		"let":       {"let: let arg [arg ...]", "Evaluate arithmetic expressions."},
		"local":     {"local: local [option] name[=value] ...", "Define local variables."},
		"logout":    {"logout: logout [n]", "Exit a login shell."},
		"mapfile":   {"mapfile: mapfile [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]", "Read lines from the standard input into an indexed array variable."},
		"readarray": {"readarray: readarray [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]", "Read lines from a file into an array variable."},
		"popd":      {"popd: popd [-n] [+N | -N]", "Remove directories from stack."},
		"pushd":     {"pushd: pushd [-n] [+N | -N | dir]", "Add directories to stack."},
		"shopt":     {"shopt: shopt [-pqsu] [-o] [optname ...]", "Set and unset shell options."},
		"suspend":   {"suspend: suspend [-f]", "Suspend shell execution."},
		"type":      {"type: type [-afptP] name [name ...]", "Display information about command type."},
		"ulimit":    {"ulimit: ulimit [-SHabcdefiklmnpqrstuvxPRT] [limit]", "Modify shell resource limits."},
		"echo":      {"echo: echo [-neE] [arg ...]", "Write arguments to the standard output."},
		"printf":    {"printf: printf [-v var] format [arguments]", "Formats and prints ARGUMENTS under control of the FORMAT."},
		"test":      {"test: test [expr]", "Evaluate conditional expression."},
		"[":         {"[: [ arg... ]", "Evaluate conditional expression."},
	}
})

// bashTopic is one builtin's help: its synopsis and its description.
type bashTopic struct{ synopsis, about string }
