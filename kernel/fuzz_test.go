package kernel_test

import (
	"context"
	"flag"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// crashSeeds are scripts that crashed mvdan/sh, panics and stack
// overflows, and their near misses: the fuzz targets start from them.
var crashSeeds = []string{
	"declare -A m; m=([k]=v); m+=([j]=w); m=(); echo ${#m[@]} \"${!m[@]}\"; (( m[$k]++ )); [[ -v m[k] ]]",
	"a=(1); a[0]+=x; ref='a[0]'; echo ${!ref} ${!ref:-d}; declare -n r=a; r[1]=2; echo \"${r[@]}\"; unset r",
	"(( a[0]++ ))",
	"(( m[k] += 1 ))",
	"echo $(( a[1] = 7 ))",
	"declare -A A=(1 2 3)",
	"declare -A a; echo \"${a[a+1]}\"",
	"a=(1); (( x++ )); a[0]=$(( a[0]+1 )); declare -A A=([k]=v); echo ${A[k]} ${a[i+1]}",
	"[ a = b = c ]; [[ -v '' ]]; unset ''; declare -n r=; echo $r",
	"o=\"( \"; c=\" )\"; for i in $(seq 3); do o=$o$o; c=$c$c; done; eval \"$o echo deep $c\"",
	strings.Repeat("( ", 1100) + "echo deep" + strings.Repeat(" )", 1100),
	"echo " + strings.Repeat("$(", 1100) + "x" + strings.Repeat(")", 1100),
	"a" + strings.Repeat(" | a", 1100),
	"cat <<EOF | wc -l\n$(echo (( ))\nEOF\ncase $x in a) f() { :; };; esac",
}

// FuzzCheck feeds arbitrary source to the static pass: parsing, the
// guard, launcher unwrapping and tools' static checks must never panic.
func FuzzCheck(f *testing.F) {
	for _, seed := range []string{
		"echo hi | cat; x=$(ls *.go); f() { journalctl -u x; }",
		"env -i A=1 timeout 5 nohup nice -n 3 xargs -0 sudo -u root journalctl",
		"export HOSTALIASES=x; HOSTALIASES=y curl z; declare -x A",
		"coproc cat; cat <(ls) >(wc)",
		"echo 'unterminated",
		"command -v help; type -t tools; \"$(echo x)\" --flag=$y",
		"a=(1 2 3); [[ $a == x* ]] && echo ${a[@]:1}; case $x in *) ;; esac",
		// The gap notes' constructs.
		"set -eux; trap 'echo $LINENO' ERR; IFS=:; f() { break; local x; }; for i in $v; do f; done 2>&1",
		"declare -A m; m=([k]=v); m+=([j]=w); echo ${#m[@]} \"x$@y\" ${v/#a/b} ${10} $_ $- >&3 {fd}>f 3<<E\"O\"T\nx\nEOT",
		"x=$(false; trap 'echo' EXIT) 2>&1; (( 09 )); echo $((1/i++)); let \"a = $x\"; readonly r; r=1",
		"declare -il n; read n; declare -p n; declare -u u=a$x; u=b$y; f() { local -r a=1 b=$a c=(x); }",
	} {
		f.Add(seed)
	}
	for _, seed := range crashSeeds {
		f.Add(seed)
	}
	k, err := kernel.New(withLaunchers(kernel.Config{Tools: []kernel.Tool{jsonTool{}, guarded{}}}))
	if err != nil {
		f.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, script string) {
		issues, err := s.Check(script)
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range issues {
			switch is.Severity {
			case kernel.SeverityError, kernel.SeverityWarning:
			case kernel.SeverityNote:
				if is.Code != kernel.CodeGap || is.Line < 1 || !strings.Contains(is.Message, "; workaround: ") {
					t.Errorf("a note without its code, place or workaround: %+v", is)
				}
			default:
				t.Errorf("issue with severity %q", is.Severity)
			}
		}
	})
}

// guarded replaces journalctl and HOSTALIASES, so the fuzzer reaches the
// guard.
type guarded struct{ jsonTool }

func (guarded) Name() string       { return "logs" }
func (guarded) Replaces() []string { return []string{"journalctl", "systemctl restart", "HOSTALIASES"} }

// FuzzRun runs arbitrary scripts, each in a fresh sandboxed session with
// a short timeout: no script may crash the process (a Go panic or a
// fatal error). It writes and signals nothing outside its temporary
// directory only as far as its inputs are filtered, so it runs only when
// asked for, with -fuzz, preferably as an unprivileged user:
//
//	go test -c ./kernel && setpriv --reuid=nobody --regid=nogroup --clear-groups \
//		./kernel.test -test.run '^$' -test.fuzz FuzzRun -test.fuzzcachedir /tmp/fuzzcache
func FuzzRun(f *testing.F) {
	if fl := flag.Lookup("test.fuzz"); fl == nil || fl.Value.String() == "" {
		f.Skip("runs only with -fuzz")
	}
	for _, seed := range crashSeeds {
		f.Add(seed)
	}
	dir := f.TempDir()
	empty := f.TempDir()
	cfg, _ := kernel.Preset(kernel.ProfileSandbox)
	cfg.Root = dir
	cfg.Timeout = 2 * time.Second
	cfg.KillGrace = 100 * time.Millisecond
	cfg.CoreEnv = []string{}
	cfg.Env["PATH"] = empty
	cfg.Env["HOME"] = dir
	cfg.Env["TMPDIR"] = dir
	k, err := kernel.New(withLaunchers(cfg))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, script string) {
		if unsafeToRun(script) {
			t.Skip()
		}
		s, err := k.NewSession(kernel.SessionOptions{Dir: dir, DiscardSpills: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.Run(context.Background(), script, kernel.RunOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}

// unsafeToRun keeps the fuzzer from writing files (a redirection, or one
// spelled with escapes for eval, or in a sourced host file) and from
// signalling processes.
func unsafeToRun(script string) bool {
	if strings.Contains(script, ">") || dotCommand.MatchString(script) {
		return true
	}
	for _, w := range []string{"kill", "$'", "printf", "-e", "@E", "source", "exec"} {
		if strings.Contains(script, w) {
			return true
		}
	}
	return false
}

var dotCommand = regexp.MustCompile(`(^|[\s;&|(){}!])\.($|[\s;&|()])`)
