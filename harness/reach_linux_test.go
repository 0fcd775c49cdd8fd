package harness_test

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/harness"
	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/spawn"
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

// bashTool is an executable tool that runs script with bash.
func bashTool(t *testing.T, def harness.Def, script string) kernel.Tool {
	t.Helper()
	tool, err := harness.Exec(def, []string{bashPath, "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// TestReachNetwork: in the sandbox an executable tool cannot connect to
// a listener on the host's loopback; with network: true it can.
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
	dial := `exec 3<>/dev/tcp/127.0.0.1/` + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port) + ` && read -r line <&3 && echo "$line"`
	s := sandboxSession(t, []kernel.Tool{
		bashTool(t, harness.Def{Name: "offline"}, dial),
		bashTool(t, harness.Def{Name: "online", Network: true}, dial),
	})
	res := run(t, s, "offline")
	if res.ExitCode == 0 || strings.Contains(res.Stdout, "hello") || !strings.Contains(res.Stderr, "Connection refused") {
		t.Errorf("offline: exit %d stdout %q stderr %q; want a refused connection", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = run(t, s, "online")
	if res.ExitCode != 0 || res.Stdout != "hello from the host\n" {
		t.Errorf("online: exit %d stdout %q stderr %q; want the listener's line", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// TestReachPaths: in the sandbox an executable tool can neither write
// nor read a directory outside the root; write_paths lets it write there
// (and read), read_paths read only. The declarations are YAML, their
// paths relative to the file.
func TestReachPaths(t *testing.T) {
	needConfinement(t)
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, outside, "secret", "outside\n")
	decl := filepath.Join(outside, "decl")
	if err := os.Mkdir(decl, 0o755); err != nil {
		t.Fatal(err)
	}
	write := `'echo written >` + outside + `/new && echo ok'`
	read := `'read -r line <` + outside + `/secret && echo "$line"'`
	path := writeFile(t, decl, "tools.yaml", `tools:
  writer:  {run: [`+bashPath+`, -c, `+write+`]}
  reader:  {run: [`+bashPath+`, -c, `+read+`]}
  cachewr: {run: [`+bashPath+`, -c, `+write+`], write_paths: [..]}
  cacherd: {run: [`+bashPath+`, -c, `+read+`], write_paths: [..]}
  viewer:  {run: [`+bashPath+`, -c, `+read+`], read_paths: [..]}
  rowrite: {run: [`+bashPath+`, -c, `+write+`], read_paths: [..]}
`)
	tools, err := harness.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sandboxSession(t, tools)
	tests := []struct {
		call, stdout string
		ok           bool
	}{
		{"writer", "", false},
		{"reader", "", false},
		{"rowrite", "", false},
		{"viewer", "outside\n", true},
		{"cacherd", "outside\n", true},
		{"cachewr", "ok\n", true},
	}
	for _, tc := range tests {
		t.Run(tc.call, func(t *testing.T) {
			os.Remove(filepath.Join(outside, "new"))
			res := run(t, s, tc.call)
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
