package bashcompat_test

import (
	"context"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// shell is a Shell with no session behind it: no memory budget, no root,
// no tools, every program on PATH.
type shell struct{ funcs map[string]*syntax.Stmt }

func (shell) Runner(interp.HandlerContext) *interp.Runner            { return nil }
func (shell) ReadDir(context.Context, string) ([]fs.DirEntry, error) { return nil, nil }
func (shell) Option(interp.HandlerContext, string) *bool             { return nil }
func (shell) Eval(_ interp.HandlerContext, src string) []string {
	return []string{"eval", src}
}
func (sh shell) Funcs(interp.HandlerContext) map[string]*syntax.Stmt { return sh.funcs }
func (shell) Stdout(_ context.Context, hc interp.HandlerContext) io.Writer {
	return hc.Stdout
}
func (shell) LocalHere(interp.HandlerContext, string) bool            { return false }
func (shell) Alias(interp.HandlerContext, string) (string, bool)      { return "", false }
func (shell) MemoryExceeded(error) bool                               { return false }
func (shell) EvalRefusal(*syntax.File) (string, bool)                 { return "", false }
func (shell) OutsideRoot(string, string) error                        { return nil }
func (shell) ToolKind(string) (string, bool)                          { return "", false }
func (shell) PathPrograms() bool                                      { return true }
func (shell) AllowedProgram(string) (string, bool)                    { return "", false }
func (shell) CallEnded(context.Context) bool                          { return false }
func (shell) Input(interp.HandlerContext, int) (io.ReadCloser, error) { return nil, syscall.EBADF }
func (shell) NoclobberUsed()                                          {}
func (shell) AfterFuncContext(ctx context.Context) context.Context    { return ctx }
func (shell) EvalSymlinks(dir, name string) (string, error) {
	return filepath.EvalSymlinks(filepath.Join(dir, name))
}

// run runs script on an interpreter whose call handler answers the
// builtins bashcompat replaces, as the kernel's does.
func run(t *testing.T, script string) (stdout, stderr string) {
	t.Helper()
	var out, errs strings.Builder
	sh := shell{}
	r, err := interp.New(
		interp.Env(expand.ListEnviron("HOME=/nonexistent", "TZ=UTC")),
		interp.Dir(t.TempDir()),
		interp.StdIO(nil, &out, &errs),
		interp.CallHandler(func(ctx context.Context, args []string) ([]string, error) {
			if args[0] == shast.StatusWord {
				n, _ := strconv.Atoi(args[1])
				return bashcompat.StatusArgv(n), nil
			}
			if b := bashcompat.Lookup(args[0]); b != nil {
				return b(ctx, sh, interp.HandlerCtx(ctx), args), nil
			}
			return args, nil
		}),
		interp.ExecHandlers(func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
			return func(ctx context.Context, args []string) error {
				if args[0] == shast.CmdStatus {
					if n, _ := strconv.Atoi(args[1]); n != 0 {
						return interp.ExitStatus(uint8(n))
					}
					return nil
				}
				return next(ctx, args)
			}
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil {
		t.Fatal(err)
	}
	r.Run(context.Background(), f)
	return out.String(), errs.String()
}

// The builtins need nothing of a session but their Shell.
func TestBuiltinsOnAShell(t *testing.T) {
	for _, tc := range []struct{ script, stdout, stderr string }{
		{`umask 027; umask; umask -S`, "0027\nu=rwx,g=rx,o=\n", ""},
		{`printf -v x '%05.1f' 3.14159; echo "[$x]"`, "[003.1]\n", ""},
		{`read a b <<< 'x y z'; echo "$b|$a"`, "y z|x\n", ""},
		{`f() { return; }; false; f; echo $?`, "1\n", ""},
		{`trap 'echo bye' EXIT INT; trap -p`, "trap -- 'echo bye' EXIT\ntrap -- 'echo bye' SIGINT\n", ""},
		{`shift 2; echo rc=$?`, "rc=1\n", ""},
		{`type if printf; type -t cd`, "if is a shell keyword\nprintf is a shell builtin\nbuiltin\n", ""},
		{`read -z`, "", "read: unknown flag '-z'; allowed: -N, -a, -d, -n, -p, -r, -s, -t, -u\n"},
	} {
		stdout, stderr := run(t, tc.script)
		if stdout != tc.stdout || stderr != tc.stderr {
			t.Errorf("%s:\n stdout %q, stderr %q\n want   %q, %q", tc.script, stdout, stderr, tc.stdout, tc.stderr)
		}
	}
}
