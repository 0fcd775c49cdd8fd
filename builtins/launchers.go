package builtins

import "github.com/shelter-sh/shelter/kernel"

// Launchers returns the commands that run other commands and the
// session's job control, each a [kernel.Tool], for [kernel.Config.Tools]:
//
//   - the launchers env, timeout, nice, nohup, xargs, setsid, stdbuf,
//     ionice, taskset, chrt and flock, each a [kernel.Launcher] that runs
//     its command with [kernel.Call.Launch], so that the guard, the tools
//     and the external policy apply to what it launches;
//   - jobs, wait, kill, disown, fg and bg, over the session's jobs
//     ([kernel.Call.Jobs]);
//   - help and tools, which list the session's tools.
//
// A kernel without them refuses every launcher name (see
// [kernel.LauncherNames]) rather than take it from PATH; jobs and kill
// are then the interpreter's, which has neither, and help is its own.
func Launchers() []kernel.Tool {
	return []kernel.Tool{
		launchEnv, launchTimeout, launchNice, launchNohup, launchXargs,
		launchSetsid, launchStdbuf, launchIonice, launchTaskset, launchChrt, launchFlock,
		jobsBuiltin, waitBuiltin, killBuiltin, disownBuiltin, fgBuiltin, bgBuiltin,
		helpBuiltin, toolsBuiltin,
	}
}
