package shast

// IdentityVars are the shell variables bash sets at start-up to say what
// it runs on. A session answers them as they are read (the kernel's
// shellIdentity), so no environment's Each lists them: every listing of
// variables adds them, and a script that names them has its subshells
// marked (package rewrite's Hints).
var IdentityVars = []string{"HOSTNAME", "HOSTTYPE", "MACHTYPE", "OSTYPE"}
