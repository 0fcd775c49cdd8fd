package builtins

import (
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func TestLsGNU(t *testing.T) {
	t.Parallel()
	tree := map[string]string{"b": "bb\n", "a": "a\n", "c.sh": "#!/bin/sh\n", ".hidden": "h", "d/x": "xx", "d/sub/y": "y", "e/": "", "big": string(make([]byte, 5000))}
	// Fixed times, so that the six-month rule and -t give one answer, and
	// that a case whose two runs straddle a minute prints one time (a
	// link's own time is set with touch -h).
	const setup = "touch -d '2020-01-02 03:04:05' a b c.sh .hidden d d/x d/sub d/sub/y e big .; touch -d '2021-06-07 08:09' b; " +
		"touch -d \"$(date -d '2 hours ago' '+%Y-%m-%d %H:00')\" big; chmod 755 c.sh; chmod 750 d; "
	compareGNU(t, []kernel.Tool{cmdLs}, []gnuCase{
		{name: "plain", script: "ls", files: tree},
		{name: "one", script: "ls -1", files: tree},
		{name: "all", script: "ls -a", files: tree},
		{name: "all long name", script: "ls --all d", files: tree},
		{name: "almost all", script: "ls -A; ls --almost-all d", files: tree},
		{name: "a then A", script: "ls -aA", files: tree},
		{name: "long", script: setup + "ls -l", files: tree},
		{name: "long all", script: setup + "ls -la", files: tree},
		{name: "long human", script: setup + "ls -lh; ls -l --human-readable big", files: tree},
		{name: "long numeric", script: setup + "ls -n; ls --numeric-uid-gid a", files: tree},
		{name: "long inode", script: setup + "ls -li a | awk '{$1=\"\"; print}'; ls -i a | cut -d' ' -f2", files: tree},
		{name: "long link", script: setup + "ln -s a la; ln -s nowhere dang; ln -s d ld; touch -h -d '2020-01-02 03:04:05' la dang ld; ls -l la dang ld; ls -lF", files: tree},
		{name: "link to dir operand", script: "ln -s d ld; ls ld; ls -d ld; ls -F ld; ls -l ld | cut -c1", files: tree},
		{name: "directory", script: "ls -d d e; ls --directory .; ls -d", files: tree},
		{name: "classify", script: "mkfifo p; ln -s a la; ls -F; ls --classify d", files: tree},
		{name: "slash", script: "ls -p; ls -ap d", files: tree},
		{name: "reverse", script: "ls -r; ls --reverse -a", files: tree},
		{name: "recursive", script: "ls -R; ls --recursive d", files: tree},
		{name: "recursive long", script: setup + "ls -lR d", files: tree},
		{name: "recursive dir flag", script: "ls -Rd d", files: tree},
		{name: "size", script: "ls -S; ls -Sr", files: tree},
		{name: "time", script: setup + "ls -t; ls -tr; ls -lt", files: tree},
		{name: "time then size", script: setup + "ls -tS; ls -St", files: tree},
		{name: "operands", script: "ls b a d e", files: tree},
		{name: "operands one dir", script: "ls d", files: tree},
		{name: "operands files only", script: "ls c.sh a", files: tree},
		{name: "missing", script: "ls nope a; echo $?", files: tree},
		{name: "missing only", script: "ls nope", files: tree},
		{name: "missing quoted", script: "ls \"it's\" 'a b'", files: tree},
		{name: "color never", script: "ls --color=never", files: tree},
		{name: "dashdash", script: "ls -- -x", files: map[string]string{"-x": ""}},
		{name: "special names", script: "ls", files: map[string]string{"a b": "", "it's": "", "tab\tx": "", "bin\xff": ""}},
		{name: "old and future", script: "touch -d 2000-01-01 old; touch -d 2099-01-01 future; ls -l old future", files: tree},
		{name: "modes", script: "touch -d '2020-01-02 03:04:05' s; chmod 4755 s; mkdir t; chmod 1777 t; mkdir g; chmod 2750 g; touch -d '2020-01-02 03:04:05' t g; ls -ld s t g", files: tree},
		{name: "device", script: "ls -l /dev/null", files: tree},
	})
}

func TestLsHuman(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 1023: "1023", 1024: "1.0K", 1025: "1.1K", 1536: "1.5K", 10240: "10K", 10241: "11K",
		1048575: "1.0M", 1048576: "1.0M", 5 << 30: "5.0G", 1<<20*9 + 1: "9.1M", 1<<20*10 - 1: "10M"} {
		if got := lsHuman(n); got != want {
			t.Errorf("lsHuman(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestLsSandbox(t *testing.T) {
	t.Parallel()
	var escapes []sandboxEscape
	for _, n := range outsideNames {
		escapes = append(escapes, sandboxEscape{script: "ls " + n}, sandboxEscape{script: "ls -lR " + n}, sandboxEscape{script: "ls -d " + n})
	}
	escapes = append(escapes,
		sandboxEscape{script: "ls /"}, sandboxEscape{script: "ls /etc"}, sandboxEscape{script: "ls .."},
		sandboxEscape{script: "ls -L out", line: "ls: unknown flag '-L'"},
		sandboxEscape{script: "ls out/"}, sandboxEscape{script: "ls chain/"},
		// Listing the root shows the links, never what they lead to.
		sandboxEscape{script: "ls -lR . && ls -R out", line: "ls: cannot"},
	)
	checkEscapes(t, []kernel.Tool{cmdLs}, escapes)
}
