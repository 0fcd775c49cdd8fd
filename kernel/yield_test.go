package kernel_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

func TestRunYield(t *testing.T) {
	dir := t.TempDir()
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{Dir: dir})
	ctx := context.Background()

	// A call that ends before its yield point is an ordinary call.
	res, _ := s.Run(ctx, "x=before; f() { echo f; }", kernel.RunOptions{Yield: time.Minute})
	if res.Yielded || res.ExitCode != 0 {
		t.Fatalf("quick call: %+v", res)
	}

	// This one cannot end before its input comes.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	res, _ = s.Run(ctx, `echo 1; read line; cd /; x=after; echo "end $line"`, kernel.RunOptions{Stdin: pr, Yield: 300 * time.Millisecond})
	if !res.Yielded || res.Stdout != "1\n" || res.ExitCode != -1 || res.Cwd != dir {
		t.Fatalf("yielded call: %+v", res)
	}
	// A yielded call has no status yet, and its JSON says none.
	if b, err := json.Marshal(res); err != nil || !strings.HasPrefix(string(b), `{"exit_code":null,"stdout":"1\n",`) || !strings.Contains(string(b), `"yielded":true`) {
		t.Fatalf("yielded call's JSON: %s, %v", b, err)
	}
	if len(res.Jobs) != 1 || res.Jobs[0].ID != 1 || !strings.Contains(res.Jobs[0].Command, "read line") {
		t.Fatalf("jobs of the yielded call: %+v", res.Jobs)
	}
	log := res.Jobs[0].Log

	// The session goes on meanwhile, from its state before the call.
	res, _ = s.Run(ctx, "jobs; echo $x; f", kernel.RunOptions{})
	if !strings.Contains(res.Stdout, "Running") || !strings.HasSuffix(res.Stdout, "before\nf\n") {
		t.Fatalf("during the job: %q", res.Stdout)
	}
	pw.WriteString("go\n")
	pw.Close()
	res, _ = s.Run(ctx, "wait %1; echo $? $x; pwd", kernel.RunOptions{})
	if want := "0 before\n" + dir + "\n"; res.Stdout != want {
		t.Fatalf("after wait: %q, want %q (stderr %q)", res.Stdout, want, res.Stderr)
	}
	b, err := os.ReadFile(log)
	if err != nil || string(b) != "end go\n" {
		t.Fatalf("job log: %q, %v", b, err)
	}
}

func TestRunYieldClose(t *testing.T) {
	k, err := kernel.New(withLaunchers(kernel.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: t.TempDir(), DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := s.Run(context.Background(), "sleep 30", kernel.RunOptions{Yield: 100 * time.Millisecond})
	if !res.Yielded || len(res.Jobs) != 1 {
		t.Fatalf("%+v", res)
	}
	done := make(chan struct{})
	go func() {
		s.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Close did not end the yielded call")
	}
}

// A job a yielded call starts after its yield point copies the call's
// state, not the session's.
func TestRunYieldJobOfTheCall(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	ctx := context.Background()
	res, _ := s.Run(ctx, `v=outside`, kernel.RunOptions{})
	res, _ = s.Run(ctx, `read line; v=inside; echo "job sees $v" & wait`, kernel.RunOptions{Stdin: pr, Yield: 200 * time.Millisecond})
	if !res.Yielded {
		t.Fatalf("%+v", res)
	}
	pw.WriteString("go\n")
	pw.Close()
	res, _ = s.Run(ctx, "wait %1; echo $v; cat "+res.Jobs[0].Log, kernel.RunOptions{})
	if res.Stdout != "outside\njob sees inside\n" {
		t.Fatalf("%q (stderr %q)", res.Stdout, res.Stderr)
	}
}

// A yielded call and the session share no state from the yield point
// on: what the call changes after it (variables, arrays in place,
// functions, the directory, options) stays the call's, and what the
// session changes meanwhile stays the session's. The session keeps the
// variables shelter answers (BASH_SUBSHELL, BASHPID, SECONDS…).
func TestRunYieldStateApart(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(dir+"/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{Dir: dir})
	ctx := context.Background()
	const show = `echo "$x ${arr[*]} ${m[k]} $e ${u-unset} $(f) ${PWD##*/} $([[ -o pipefail ]] && echo on || echo off) $#"`
	setup := `x=before; arr=(a b); declare -A m=([k]=v); export e=1; u=set; f() { echo old; }; cd sub; set -o pipefail; set -- p q`
	if res, _ := s.Run(ctx, setup, kernel.RunOptions{}); res.ExitCode != 0 {
		t.Fatalf("setup: %+v", res)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	call := `read line; ` + show + `; x=after; arr+=X; arr[2]=c; m[k]=w; e=2; unset u; f() { echo new; }; cd /; set +o pipefail; set -- r; ` + show
	res, _ := s.Run(ctx, call, kernel.RunOptions{Stdin: pr, Yield: 100 * time.Millisecond})
	if !res.Yielded {
		t.Fatalf("call: %+v", res)
	}
	log := res.Jobs[0].Log
	if res, _ = s.Run(ctx, `x=session; arr+=S; m[k]=s; `+show, kernel.RunOptions{}); res.Stdout != "session aS b s 1 set old sub on 2\n" {
		t.Fatalf("session during the call: %q (stderr %q)", res.Stdout, res.Stderr)
	}
	pw.WriteString("go\n")
	pw.Close()
	res, _ = s.Run(ctx, "wait %1; "+show+"; cat "+log, kernel.RunOptions{})
	want := "session aS b s 1 set old sub on 2\n" +
		"before a b v 1 set old sub on 2\n" +
		"after aX b c w 2 unset new  off 1\n"
	if res.Stdout != want {
		t.Fatalf("after the call:\n%s\nwant:\n%s(stderr %q)", res.Stdout, want, res.Stderr)
	}
	res, _ = s.Run(ctx, `echo "$BASH_SUBSHELL ${BASHPID:+pid} ${SECONDS:+seconds}"`, kernel.RunOptions{})
	if res.Stdout != "0 pid seconds\n" {
		t.Fatalf("shell variables after the call: %q", res.Stdout)
	}
}
