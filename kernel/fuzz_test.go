package kernel_test

import (
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

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
	} {
		f.Add(seed)
	}
	k, err := kernel.New(kernel.Config{Tools: []kernel.Tool{jsonTool{}, guarded{}}})
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
			if is.Severity != kernel.SeverityError && is.Severity != kernel.SeverityWarning {
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
