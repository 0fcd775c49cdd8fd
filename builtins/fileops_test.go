package builtins

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

var fileopsTools = []kernel.Tool{cmdMkdir, cmdRm, cmdRmdir, cmdCp, cmdMv, cmdLn, cmdTouch}

// The tree after a command is shown by the host's stat on a sorted
// globstar (the builtins under test are only the command itself).
const fileopsTree = " ; echo $?; shopt -s globstar dotglob; stat -c '%n %a %F' ./**"

func TestMkdirGNU(t *testing.T) {
	t.Parallel()
	compareGNU(t, fileopsTools, []gnuCase{
		{name: "one", script: "mkdir d" + fileopsTree},
		{name: "exists", script: "mkdir d" + fileopsTree, files: map[string]string{"d/": ""}},
		{name: "no parent", script: "mkdir a/b" + fileopsTree},
		{name: "parents", script: "mkdir -p a/b/c a/b/d" + fileopsTree},
		{name: "parents long exists", script: "mkdir --parents d d/e" + fileopsTree, files: map[string]string{"d/": ""}},
		{name: "parents through file", script: "mkdir -p f/x" + fileopsTree, files: map[string]string{"f": "x"}},
		{name: "verbose", script: "mkdir -v x y" + fileopsTree},
		{name: "pv clustered", script: "mkdir -pv a/b/c" + fileopsTree},
		{name: "mode octal", script: "mkdir -m 700 d" + fileopsTree},
		{name: "mode attached", script: "mkdir -m1777 d" + fileopsTree},
		{name: "mode long", script: "mkdir --mode=u-w d" + fileopsTree},
		{name: "mode symbolic", script: "mkdir -m go= a; mkdir -m =rx b; mkdir -m a+t,o-x c; mkdir -m u=rwx,g=u d" + fileopsTree},
		{name: "mode parents", script: "mkdir -p -m 700 p/q" + fileopsTree},
		{name: "mode bad", script: "mkdir -m zz d" + fileopsTree},
		{name: "mode bad octal", script: "mkdir -m 99 d" + fileopsTree},
		{name: "dashdash", script: "mkdir -- -x" + fileopsTree},
		{name: "missing operand", script: "mkdir" + fileopsTree},
		{name: "quote", script: "mkdir \"it's\" && mkdir \"it's\"" + fileopsTree},
	})
}

func TestRmGNU(t *testing.T) {
	t.Parallel()
	tree := map[string]string{"f": "x", "g": "y", "d/sub/f": "z", "e/": ""}
	compareGNU(t, fileopsTools, []gnuCase{
		{name: "file", script: "rm f" + fileopsTree, files: tree},
		{name: "missing", script: "rm nope f" + fileopsTree, files: tree},
		{name: "force missing", script: "rm -f nope f" + fileopsTree, files: tree},
		{name: "force no operand", script: "rm -f" + fileopsTree},
		{name: "no operand", script: "rm" + fileopsTree},
		{name: "dir", script: "rm d" + fileopsTree, files: tree},
		{name: "dir -d empty", script: "rm -d e" + fileopsTree, files: tree},
		{name: "dir --dir full", script: "rm --dir d" + fileopsTree, files: tree},
		{name: "recursive", script: "rm -r d" + fileopsTree, files: tree},
		{name: "R", script: "rm -R d e" + fileopsTree, files: tree},
		{name: "recursive long", script: "rm --recursive d" + fileopsTree, files: tree},
		{name: "verbose", script: "rm -rv d" + fileopsTree, files: map[string]string{"d/s/f": ""}},
		{name: "verbose long", script: "rm --verbose --force f g nope" + fileopsTree, files: tree},
		{name: "rfv clustered", script: "rm -rfv d/sub" + fileopsTree, files: tree},
		{name: "dot", script: "rm -r . .. d/.. ./." + fileopsTree, files: tree},
		{name: "root", script: "rm -r /" + fileopsTree},
		{name: "symlink not followed", script: "ln -s d l; rm -r l" + fileopsTree, files: tree},
		{name: "dashdash", script: "rm -- -x" + fileopsTree, files: map[string]string{"-x": ""}},
	})
}

func TestRmdirGNU(t *testing.T) {
	t.Parallel()
	tree := map[string]string{"a/b/c/": "", "full/f": "", "f": ""}
	compareGNU(t, fileopsTools, []gnuCase{
		{name: "empty", script: "rmdir a/b/c" + fileopsTree, files: tree},
		{name: "missing", script: "rmdir nope a/b/c" + fileopsTree, files: tree},
		{name: "not empty", script: "rmdir full a" + fileopsTree, files: tree},
		{name: "not a dir", script: "rmdir f" + fileopsTree, files: tree},
		{name: "parents", script: "rmdir -p a/b/c" + fileopsTree, files: tree},
		{name: "parents verbose", script: "rmdir -pv a/b/c" + fileopsTree, files: tree},
		{name: "parents stop", script: "rmdir --parents --verbose full/../a/b/c" + fileopsTree, files: tree},
		{name: "ignore", script: "rmdir --ignore-fail-on-non-empty full" + fileopsTree, files: tree},
		{name: "ignore parents", script: "mkdir full/x; rmdir -p --ignore-fail-on-non-empty full/x" + fileopsTree, files: tree},
		{name: "no operand", script: "rmdir" + fileopsTree},
	})
}

func TestTouchGNU(t *testing.T) {
	t.Parallel()
	const times = " ; echo $?; stat -c '%n %X %Y %s' $(find . -type f | sort)"
	files := map[string]string{"f": "x", "ref": "r"}
	compareGNU(t, fileopsTools, []gnuCase{
		{name: "create", script: "touch new -d @5" + times},
		{name: "date epoch", script: "touch -d @1000000000 f" + times, files: files},
		{name: "date epoch frac", script: "touch --date=@1000000000.5 f; stat -c '%.9Y' f", files: files},
		{name: "date iso", script: "touch -d 2020-02-03 f; touch -d '2020-02-03 04:05:06' g; touch -d 2020-02-03T04:05 h" + times, files: files},
		{name: "date zone", script: "touch -d '2020-02-03T04:05:06Z' f; touch -d '2020-02-03 04:05:06+02:00' g" + times, files: files},
		{name: "date bad", script: "touch -d garbage f" + times, files: files},
		{name: "stamp", script: "touch -t 202001020304 f; touch -t 2001020304.05 g; touch -t 200102030405.06 h" + times},
		{name: "stamp bad", script: "touch -t 99 f" + times, files: files},
		{name: "reference", script: "touch -d @77 ref; touch -r ref f" + times, files: files},
		{name: "reference long", script: "touch -d @77 ref; touch --reference=ref new" + times, files: files},
		{name: "reference missing", script: "touch -r nope f" + times, files: files},
		{name: "only a", script: "touch -d @100 f; touch -a -d @200 f" + times, files: files},
		{name: "only m", script: "touch -d @100 f; touch -m -d @300 f" + times, files: files},
		{name: "am clustered", script: "touch -d @100 f; touch -am -d @400 f" + times, files: files},
		{name: "no create", script: "touch -c nope; touch --no-create -d @9 f" + times, files: files},
		{name: "no dir", script: "touch nope/f" + times},
		{name: "no operand", script: "touch" + times},
	})
}

func TestCpGNU(t *testing.T) {
	t.Parallel()
	tree := map[string]string{"f": "hello\n", "g": "other\n", "d/sub/x": "x\n", "d/y": "y\n", "e/": "", "bin": "a\x00b\xff"}
	const chmods = "chmod 640 f; chmod 750 d; "
	compareGNU(t, fileopsTools, []gnuCase{
		{name: "file", script: chmods + "cp f h; cat h" + fileopsTree, files: tree},
		{name: "overwrite", script: "cp f g; cat g" + fileopsTree, files: tree},
		{name: "binary", script: "cp bin b2; cmp bin b2" + fileopsTree, files: tree},
		{name: "into dir", script: "cp f g e" + fileopsTree, files: tree},
		{name: "target not dir", script: "cp f g h" + fileopsTree, files: tree},
		{name: "target file", script: "cp f g bin" + fileopsTree, files: tree},
		{name: "missing", script: "cp nope e; cp f nodir/" + fileopsTree, files: tree},
		{name: "no operand", script: "cp" + fileopsTree},
		{name: "one operand", script: "cp f" + fileopsTree, files: tree},
		{name: "dir without r", script: "cp d e" + fileopsTree, files: tree},
		{name: "recursive", script: chmods + "cp -r d e" + fileopsTree, files: tree},
		{name: "recursive new", script: chmods + "cp -R d new" + fileopsTree, files: tree},
		{name: "recursive long verbose", script: "cp --recursive --verbose d/sub e" + fileopsTree, files: tree},
		{name: "same file", script: "cp f f; cp f ./f" + fileopsTree, files: tree},
		{name: "verbose", script: "cp -v f g e" + fileopsTree, files: tree},
		{name: "no clobber", script: "cp -n f g; cat g; cp --no-clobber f h; cat h" + fileopsTree, files: tree},
		{name: "preserve", script: chmods + "touch -d @1000 f; cp -p f h; stat -c '%a %Y' h", files: tree},
		{name: "preserve long dir", script: chmods + "touch -d @1000 d/y d; cp -rp d h; stat -c '%n %a %Y' h h/y", files: tree},
		{name: "archive", script: chmods + "ln -s f d/l; touch -d @2000 d/y; cp -a d h; stat -c '%n %a %F' h/l h/y; readlink h/l; stat -c %Y h/y", files: tree},
		{name: "symlink followed", script: "ln -s f l; cp l h; stat -c %F h" + fileopsTree, files: tree},
		{name: "symlink recursive kept", script: "ln -s f l; cp -r l h; stat -c %F h; cp -rL l i; stat -c %F i", files: tree},
		{name: "symlink P d", script: "ln -s f l; cp -P l h; cp -d l i; cp --no-dereference l j; cp --dereference l k; stat -c '%n %F' h i j k", files: tree},
		{name: "symlink in tree", script: "ln -s ../f d/l; cp -r d h; cp -rL d i; stat -c '%n %F' h/l i/l", files: tree},
		{name: "target directory", script: "cp -t e f g; cp --target-directory=e bin" + fileopsTree, files: tree},
		{name: "target directory missing", script: "cp -t nope f" + fileopsTree, files: tree},
		{name: "no target directory", script: "cp -T f e2; cp -rT d e" + fileopsTree, files: tree},
		{name: "no target directory extra", script: "cp -T f g e" + fileopsTree, files: tree},
		{name: "dir over file", script: "cp -r d f" + fileopsTree, files: tree},
		{name: "file over dir", script: "mkdir e/f; cp f e" + fileopsTree, files: tree},
		{name: "force", script: "chmod 444 g; cp -f f g; cat g" + fileopsTree, files: tree},
		{name: "dashdash", script: "cp -- -x y; cat y" + fileopsTree, files: map[string]string{"-x": "dash"}},
	})
}

func TestMvGNU(t *testing.T) {
	t.Parallel()
	tree := map[string]string{"f": "hello\n", "g": "other\n", "d/sub/x": "x\n", "e/": "", "e2/f2": ""}
	compareGNU(t, fileopsTools, []gnuCase{
		{name: "rename", script: "mv f h; cat h" + fileopsTree, files: tree},
		{name: "overwrite", script: "mv f g; cat g" + fileopsTree, files: tree},
		{name: "into dir", script: "mv f g d e" + fileopsTree, files: tree},
		{name: "missing", script: "mv nope e" + fileopsTree, files: tree},
		{name: "no operand", script: "mv ; mv f" + fileopsTree, files: tree},
		{name: "target not dir", script: "mv f g h; mv f g d/sub/x" + fileopsTree, files: tree},
		{name: "verbose", script: "mv -v f g e" + fileopsTree, files: tree},
		{name: "verbose long", script: "mv --verbose d dd" + fileopsTree, files: tree},
		{name: "into itself", script: "mv d d/sub" + fileopsTree, files: tree},
		{name: "same file", script: "mv f f; mv f ./f" + fileopsTree, files: tree},
		{name: "dir over file", script: "mv e e2/f2" + fileopsTree, files: tree},
		{name: "file over dir", script: "mkdir e/f; mv f e" + fileopsTree, files: tree},
		{name: "no clobber", script: "mv -n f g; cat g; mv --no-clobber -v f h" + fileopsTree, files: tree},
		{name: "force", script: "mv -fv f g; cat g" + fileopsTree, files: tree},
		{name: "target directory", script: "mv -t e f g; mv --target-directory=e d" + fileopsTree, files: tree},
		{name: "no target directory", script: "mv -T e e3; mv --no-target-directory f g" + fileopsTree, files: tree},
		{name: "dashdash", script: "mv -- -x y" + fileopsTree, files: map[string]string{"-x": "dash"}},
	})
}

func TestLnGNU(t *testing.T) {
	t.Parallel()
	tree := map[string]string{"f": "hello\n", "g": "other\n", "d/x": "", "e/": ""}
	const links = " ; echo $?; for l in $(find . -type l | sort); do echo $l $(readlink $l); done; stat -c '%n %h' f g"
	compareGNU(t, fileopsTools, []gnuCase{
		{name: "hard", script: "ln f h; cat h" + links, files: tree},
		{name: "hard missing", script: "ln nope h" + links, files: tree},
		{name: "hard exists", script: "ln f g" + links, files: tree},
		{name: "hard force", script: "ln -f f g" + links, files: tree},
		{name: "hard verbose", script: "ln -v f h" + links, files: tree},
		{name: "symbolic", script: "ln -s f l; cat l" + links, files: tree},
		{name: "symbolic dangling", script: "ln -s nowhere l" + links, files: tree},
		{name: "symbolic exists", script: "ln -s f g" + links, files: tree},
		{name: "symbolic force", script: "ln -s f l; ln -sf g l" + links, files: tree},
		{name: "symbolic verbose long", script: "ln --symbolic --verbose f l" + links, files: tree},
		{name: "one operand", script: "ln -s d/x" + links, files: tree},
		{name: "into dir", script: "ln -s ../f ../g e" + links, files: tree},
		{name: "target directory", script: "ln -st e ../f; ln --target-directory=e g" + links, files: tree},
		{name: "no target directory", script: "ln -sT f e" + links, files: tree},
		{name: "no dereference", script: "ln -s e le; ln -sfn f le; ln -sf g le" + links, files: tree},
		{name: "relative", script: "ln -sr f e/l; ln --relative -s d/x e/m" + links, files: tree},
		{name: "relative hard", script: "ln -r f e/l" + links, files: tree},
		{name: "no operand", script: "ln" + links, files: tree},
		{name: "target not dir", script: "ln -s f g h" + links, files: tree},
	})
}

func TestFileopsSandbox(t *testing.T) {
	t.Parallel()
	var escapes []sandboxEscape
	for _, n := range outsideNames {
		escapes = append(escapes,
			sandboxEscape{script: "mkdir " + n + "/new"},
			sandboxEscape{script: "mkdir -p " + n + "/a/b"},
			sandboxEscape{script: "rm -f " + n},
			sandboxEscape{script: "rm -rf " + n},
			sandboxEscape{script: "rmdir " + n},
			sandboxEscape{script: "touch " + n},
			sandboxEscape{script: "touch -c -d @0 " + n},
			sandboxEscape{script: "cp f " + n},
			sandboxEscape{script: "cp -r " + n + " copy"},
			sandboxEscape{script: "cp " + n + " copy"},
			sandboxEscape{script: "cp -rL secretlink copy"},
			sandboxEscape{script: "mv f " + n},
			sandboxEscape{script: "mv " + n + " here"},
			sandboxEscape{script: "ln f " + n + "/hard"},
			sandboxEscape{script: "ln " + n + " hard"},
			sandboxEscape{script: "ln -s f " + n + "/sym"},
			sandboxEscape{script: "ln -sf " + n + " link; cp link copy"},
			sandboxEscape{script: "touch -r " + n + " f"},
		)
	}
	escapes = append(escapes,
		sandboxEscape{script: "ln -s /etc x"},
		sandboxEscape{script: "ln -s ../.. x"},
		sandboxEscape{script: "cd d && ln -s ../../outside x"},
		sandboxEscape{script: "ln -s / x"},
		sandboxEscape{script: "cp -a out copy"},
		sandboxEscape{script: "rm -r .. ", line: "refusing to remove '.' or '..'"},
		sandboxEscape{script: "cd d && rm -rf ../../outside"},
		sandboxEscape{script: "mv d/hop d/hop2; ln -s ../../outside d/hop3"},
	)
	checkEscapes(t, fileopsTools, escapes)
}

// A link to an absolute path inside the root is allowed, and written
// relative so that it resolves inside the root alone.
func TestLnSandboxInside(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	os.WriteFile(filepath.Join(root, "f"), []byte("inside\n"), 0o644)
	s := sandboxSession(t, root, fileopsTools, nil)
	res, err := s.Run(context.Background(), "mkdir d && ln -sv "+root+"/f d/abs && ln -s ../f d/rel && ln -sr f d/r", kernel.RunOptions{})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("status %d, %q, %v", res.ExitCode, res.Stderr, err)
	}
	for link, want := range map[string]string{"d/abs": "../f", "d/rel": "../f", "d/r": "../f"} {
		if got, _ := os.Readlink(filepath.Join(root, link)); got != want {
			t.Errorf("%s -> %q, want %q", link, got, want)
		}
	}
}

// mkdir -p of an absolute name under the root makes what is missing
// from the deepest directory that exists; the root's ancestors, outside
// it, are not touched ($HOME/.config in the sandbox).
func TestMkdirParentsSandboxAbsolute(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	s := sandboxSession(t, root, fileopsTools, nil)
	res, err := s.Run(context.Background(), `mkdir -pv "$PWD/a/b" && mkdir -p "$HOME/.config/x" && mkdir -p "$PWD/a"`, kernel.RunOptions{})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("status %d, %q, %v", res.ExitCode, res.Stderr, err)
	}
	want := fmt.Sprintf("mkdir: created directory '%s/a'\nmkdir: created directory '%s/a/b'\n", root, root)
	if res.Stdout != want {
		t.Errorf("stdout %q, want %q", res.Stdout, want)
	}
	if fi, err := os.Stat(filepath.Join(root, "a", "b")); err != nil || !fi.IsDir() {
		t.Errorf("a/b: %v", err)
	}
}

// cp refuses a directory copied into itself before it copies anything
// (GNU copies until it meets its own copy).
func TestCpIntoItself(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"d/sub/x": ""})
	res := run(t, fileopsTools, dir, "", "cp -r d d/sub")
	if res.ExitCode != 1 || res.Stderr != "cp: cannot copy a directory, 'd', into itself, 'd/sub/d'\n" {
		t.Errorf("status %d, %q", res.ExitCode, res.Stderr)
	}
}

func TestRmInteractiveRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f": ""})
	res := run(t, fileopsTools, dir, "", "rm -i f")
	if res.ExitCode != 2 || res.Stderr != "rm: flag '-i' prompts on a terminal and there is none; allowed: -f/--force, no prompt flag\n" {
		t.Errorf("status %d, %q", res.ExitCode, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "f")); err != nil {
		t.Error(err)
	}
}
