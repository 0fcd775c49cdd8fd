package wrapped_test

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/spawn"
	"github.com/shelter-sh/shelter/wrapped"
)

// bashPath is a bash under /usr, which a confined program may execute
// (a shim under $HOME would not be).
const bashPath = "/usr/bin/bash"

// needConfinement skips t where the host cannot confine a program, and
// where there is no bash to be one.
func needConfinement(t *testing.T) {
	t.Helper()
	s := spawn.Probe()
	if missing := s.Missing(false); len(missing) > 0 {
		t.Skipf("this host cannot confine programs: %s (%s)", strings.Join(missing, ", "), s)
	}
	if _, err := os.Stat(bashPath); err != nil {
		t.Skipf("no %s", bashPath)
	}
}

// bashScript declares a command that runs script with bash, its one
// argument as $0; more widens what it may reach.
func bashScript(t *testing.T, name, script string, more func(*wrapped.CommandSpec)) *wrapped.Command {
	t.Helper()
	spec := wrapped.New(name, bashPath).Lead("-c", script).Root(wrapped.NewVerb("").Arg(wrapped.Arg("arg").Required()))
	if more != nil {
		more(spec)
	}
	c, err := spec.Build(wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestReachNetwork: in the sandbox a declared program cannot connect to
// a listener on the host's loopback; with network: true it can, and so
// can a verb that asks for it. In the agent profile, which does not
// confine its programs, all of them can.
func TestReachNetwork(t *testing.T) {
	needConfinement(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello from the host\n"))
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	const dial = `exec 3<>/dev/tcp/127.0.0.1/$0 && read -r line <&3 && echo "$line"`
	offline := bashScript(t, "offline", dial, nil)
	online := bashScript(t, "online", dial, func(c *wrapped.CommandSpec) { c.Network() })
	perVerb, err := wrapped.New("fetcher", bashPath).Lead("-c", dial).
		Verb(wrapped.NewVerb("build").OmitName().Arg(wrapped.Arg("port")),
			wrapped.NewVerb("download").OmitName().Network().Arg(wrapped.Arg("port"))).
		Build(wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := profileSession(t, kernel.ProfileSandbox, offline, online, perVerb)

	for _, script := range []string{"offline " + port, "fetcher build " + port} {
		res := run(t, s, script)
		if res.ExitCode == 0 || strings.Contains(res.Stdout, "hello") {
			t.Errorf("%s: reached the host's listener: exit %d stdout %q", script, res.ExitCode, res.Stdout)
		}
		if !strings.Contains(res.Stderr, "Connection refused") {
			t.Errorf("%s: stderr %q, want a refused connection", script, res.Stderr)
		}
	}
	for _, script := range []string{"online " + port, "fetcher download " + port} {
		res := run(t, s, script)
		if res.ExitCode != 0 || res.Stdout != "hello from the host\n" {
			t.Errorf("%s: exit %d stdout %q stderr %q; want the listener's line", script, res.ExitCode, res.Stdout, res.Stderr)
		}
	}
	// Where the session does not confine its programs, the key changes
	// nothing: every program has the host's network.
	host := profileSession(t, kernel.ProfileAgent, offline, online, perVerb)
	for _, script := range []string{"offline " + port, "fetcher build " + port, "online " + port} {
		if res := run(t, host, script); res.ExitCode != 0 || res.Stdout != "hello from the host\n" {
			t.Errorf("agent profile: %s: exit %d stdout %q stderr %q; want the listener's line", script, res.ExitCode, res.Stdout, res.Stderr)
		}
	}
}

// TestReachPaths: in the sandbox a declared program can neither write
// nor read a directory outside the root; write_paths lets it write
// there (and read), read_paths read only. Paths relative to the YAML
// file are the file's directory's.
func TestReachPaths(t *testing.T) {
	needConfinement(t)
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const write = `echo written >"$0/new" && echo ok`
	const read = `read -r line <"$0/secret" && echo "$line"`
	// The declarations sit in outside/decl, so ".." is outside.
	decl := filepath.Join(outside, "decl")
	if err := os.Mkdir(decl, 0o755); err != nil {
		t.Fatal(err)
	}
	src := `commands:
  writer:   {executable: ` + bashPath + `, lead: [-c, '` + write + `'], root: {positionals: [{name: dir}]}}
  reader:   {executable: ` + bashPath + `, lead: [-c, '` + read + `'], root: {positionals: [{name: dir}]}}
  cachewr:  {executable: ` + bashPath + `, lead: [-c, '` + write + `'], write_paths: [..], root: {positionals: [{name: dir}]}}
  cacherd:  {executable: ` + bashPath + `, lead: [-c, '` + read + `'], write_paths: [..], root: {positionals: [{name: dir}]}}
  viewer:   {executable: ` + bashPath + `, lead: [-c, '` + read + `'], read_paths: [..], root: {positionals: [{name: dir}]}}
  rowrite:  {executable: ` + bashPath + `, lead: [-c, '` + write + `'], read_paths: [..], root: {positionals: [{name: dir}]}}
`
	path := filepath.Join(decl, "tools.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := wrapped.LoadFile(path, wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := profileSession(t, kernel.ProfileSandbox, loaded...)
	if w := loaded[2].WritePaths(); len(w) != 1 || w[0] != outside {
		t.Fatalf("write_paths [..] from %s = %q, want %s", decl, w, outside)
	}

	// Control: inside the root every one of them writes.
	if res := run(t, s, "writer ."); res.ExitCode != 0 || res.Stdout != "ok\n" {
		t.Fatalf("writer inside the root: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	tests := []struct {
		call   string
		ok     bool
		stdout string
	}{
		{"writer", false, ""},
		{"reader", false, ""},
		{"rowrite", false, ""},
		{"viewer", true, "outside\n"},
		{"cacherd", true, "outside\n"},
		{"cachewr", true, "ok\n"},
	}
	for _, tc := range tests {
		t.Run(tc.call, func(t *testing.T) {
			os.Remove(filepath.Join(outside, "new"))
			res := run(t, s, tc.call+" "+outside)
			if !tc.ok {
				if res.ExitCode == 0 || !strings.Contains(res.Stderr, "Permission denied") {
					t.Errorf("exit %d stdout %q stderr %q; want permission denied", res.ExitCode, res.Stdout, res.Stderr)
				}
				if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
					t.Error("the program wrote outside the root")
				}
				return
			}
			if res.ExitCode != 0 || res.Stdout != tc.stdout {
				t.Errorf("exit %d stdout %q stderr %q; want %q", res.ExitCode, res.Stdout, res.Stderr, tc.stdout)
			}
		})
	}
	if data, err := os.ReadFile(filepath.Join(outside, "new")); err != nil || string(data) != "written\n" {
		t.Errorf("cachewr wrote %q, %v", data, err)
	}
}
