package kernel_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// A session's descriptors above 2 live from one call to the next, as a
// shell's do; a subshell's and a statement's go with them.
func TestDescriptorsPersistAcrossCalls(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	steps := []struct{ script, stdout string }{
		{`exec 3>log {named}>other; ( exec 4>sub ); echo "$named"`, "10\n"},
		{`echo one >&3; echo two >&$named; echo x >&4 2>/dev/null || echo four-closed`, "four-closed\n"},
		{`exec 3>&- {named}>&-; cat log other`, "one\ntwo\n"},
		{`echo x >&3 2>/dev/null || echo closed`, "closed\n"},
	}
	for _, st := range steps {
		res := run(t, s, st.script)
		if res.Stdout != st.stdout || res.ExitCode != 0 {
			t.Fatalf("%s: status %d stdout %q stderr %q; want stdout %q", st.script, res.ExitCode, res.Stdout, res.Stderr, st.stdout)
		}
	}
}

// A background job's descriptors outlive the call that started it.
func TestDescriptorsOfAJobOutliveItsCall(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	res := run(t, s, `mkfifo go; { read -r x < go; echo "late $x" >&3; } 3>jobfile &`)
	if res.ExitCode != 0 {
		t.Fatalf("start: %+v", res)
	}
	res = run(t, s, `echo now > go; wait; cat jobfile`)
	if res.Stdout != "late now\n" {
		t.Fatalf("the job's descriptor 3: stdout %q stderr %q", res.Stdout, res.Stderr)
	}
}

// Every descriptor a session's redirections open is closed: by the
// statement, by exec's close, by the call's end (a subshell's, a
// timeout's) or by Close.
func TestDescriptorsLeaveNothingOpen(t *testing.T) {
	dir := t.TempDir()
	k, err := kernel.New(withLaunchers(kernel.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	warm, err := k.NewSession(kernel.SessionOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	run(t, warm, `exec 3>warm; cat <&3; sh -c 'echo >&3'`)
	warm.Close()
	before := openFDs(t)
	if before == 0 {
		t.Skip("no /proc/self/fd to count descriptors with")
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: dir, DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	scripts := []string{
		`exec 3>a 4<a 5<>b {n}>c; echo x >&3; exec 6>&3 7<&0 8>&1`,
		`for i in $(seq 200); do exec 3>loop; exec 3>&-; done; exec 3>a`,
		`for i in $(seq 200); do echo $i 9>f >&9; done; ( exec 9>g ); x=$(exec 9>h)`,
		`exec 3>&1 >out; echo in; exec >&3 3>&-; cat <<EOF 5<&0 <&5
doc
EOF`,
		`while read -r -u 5 l; do :; done 5<a; sh -c 'cat <&4 >/dev/null'; cat /dev/fd/5 2>/dev/null`,
		`{ exit 3; } 7>exited`,
		`exec 2>&-; ls nosuch; exec 0<&-; cat`,
	}
	for _, script := range scripts {
		res := run(t, s, script)
		if strings.Contains(res.Stderr, "panic") {
			t.Fatalf("%s: %s", script, res.Stderr)
		}
	}
	res, err := s.Run(t.Context(), `{ while :; do :; done; } 8>spin`, kernel.RunOptions{Timeout: 50 * time.Millisecond})
	if err != nil || !res.TimedOut {
		t.Fatalf("spin: %v %+v", err, res)
	}
	if during := openFDs(t); during <= before {
		t.Errorf("the session holds %d descriptors between calls; want its exec'd ones", during-before)
	}
	s.Close()
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors left open after Close", after-before)
	}
	if _, err := os.Stat(filepath.Join(dir, "spin")); err != nil {
		t.Errorf("the timed-out statement's file: %v", err)
	}
}
