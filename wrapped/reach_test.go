package wrapped_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/wrapped"
)

// TestReachYAML: network, read_paths and write_paths at the command and
// the verb level; relative paths are taken from the file's directory;
// a verb gets the command's and its own; help says what it may reach.
func TestReachYAML(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"cache", "data", "extra"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src := `commands:
  go:
    executable: ` + helper + `
    read_paths: [data, /usr/share]
    write_paths: [./cache]
    verbs:
      build: {}
      download:
        network: true
        read_paths: [data, extra]
        write_paths: [` + filepath.Join(dir, "extra") + `]
  local:
    executable: ` + helper + `
    network: false
    read_paths: []
    write_paths:
    root: {}
`
	path := filepath.Join(dir, "tools.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds, err := wrapped.LoadFile(path, wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gocmd, local := cmds[0], cmds[1]
	data, cache, extra := filepath.Join(dir, "data"), filepath.Join(dir, "cache"), filepath.Join(dir, "extra")
	if gocmd.Network() || !reflect.DeepEqual(gocmd.ReadPaths(), []string{data, "/usr/share"}) || !reflect.DeepEqual(gocmd.WritePaths(), []string{cache}) {
		t.Errorf("command: network %v read %q write %q", gocmd.Network(), gocmd.ReadPaths(), gocmd.WritePaths())
	}
	build, _ := gocmd.Verb("build")
	if build.Network() || !reflect.DeepEqual(build.ReadPaths(), gocmd.ReadPaths()) || !reflect.DeepEqual(build.WritePaths(), gocmd.WritePaths()) {
		t.Errorf("build: network %v read %q write %q; want the command's", build.Network(), build.ReadPaths(), build.WritePaths())
	}
	download, _ := gocmd.Verb("download")
	if !download.Network() || !reflect.DeepEqual(download.ReadPaths(), []string{data, "/usr/share", extra}) || !reflect.DeepEqual(download.WritePaths(), []string{cache, extra}) {
		t.Errorf("download: network %v read %q write %q", download.Network(), download.ReadPaths(), download.WritePaths())
	}
	root, _ := local.Verb("")
	if local.Network() || root.Network() || root.ReadPaths() != nil || root.WritePaths() != nil {
		t.Errorf("local: network %v read %q write %q; want nothing", root.Network(), root.ReadPaths(), root.WritePaths())
	}

	help := download.Help()
	for _, want := range []string{"\nnetwork: on\n", "\nalso reads: " + data + ", /usr/share, " + extra + "\n", "\nalso writes: " + cache + ", " + extra + "\n"} {
		if !strings.Contains(help, want) {
			t.Errorf("download help lacks %q:\n%s", want, help)
		}
	}
	if help := build.Help(); strings.Contains(help, "network:") {
		t.Errorf("build help mentions the network:\n%s", help)
	}
	if help := local.Help(); strings.Contains(help, "network:") || strings.Contains(help, "also ") {
		t.Errorf("local help mentions a reach:\n%s", help)
	}
}

// TestReachLoadErrors: each refusal is one line naming the command (or
// the verb), what is wrong and what is allowed, at the value at fault.
func TestReachLoadErrors(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "tools.yaml")
	head := "commands:\n  git:\n    executable: " + helper + "\n"
	cases := []struct {
		name, src, want string
	}{
		{"network not a boolean", head + "    root: {}\n    network: yes please\n",
			"5:14: git: network must be true or false; got 'yes please'"},
		{"network a string", head + "    root: {}\n    network: 'true'\n",
			"5:14: git: network must be true or false; got 'true'"},
		{"network a list", head + "    root: {}\n    network: [true]\n",
			"5:14: git: network must be true or false; got a list"},
		{"verb network not a boolean", head + "    verbs:\n      fetch: {network: on}\n",
			"5:24: git fetch: network must be true or false; got 'on'"},
		{"read_paths not a list", head + "    root: {}\n    read_paths: /usr\n",
			"5:17: git: read_paths must be a list of paths"},
		{"write_paths item not a string", head + "    root: {}\n    write_paths: [/tmp, {a: b}]\n",
			"5:25: git: write_paths must be a list of paths"},
		{"write_paths null item", head + "    root: {}\n    write_paths: [~]\n",
			"5:19: git: write_paths must be a list of paths"},
		{"read_paths missing", head + "    root: {}\n    read_paths: [/usr, nowhere]\n",
			"5:24: git: read_paths: '" + filepath.Join(dir, "nowhere") + "' does not exist; allowed: existing files and directories"},
		{"verb write_paths missing", head + "    verbs:\n      fetch:\n        write_paths: [/no/such/cache]\n",
			"6:23: git fetch: write_paths: '/no/such/cache' does not exist; allowed: existing files and directories"},
		{"root read_paths empty", head + "    root:\n      read_paths: ['']\n",
			"5:20: git: read_paths: an empty path; allowed: existing files and directories"},
		{"unknown key near the reach", head + "    root: {}\n    networks: true\n",
			"5:5: unknown key 'networks' in command 'git'; allowed: about, annotations, env, executable, lead, network, pass_env, read_paths, root, tty, verbs, write_paths"},
		{"unknown verb key near the reach", head + "    verbs:\n      fetch: {read_path: [/usr]}\n",
			"5:15: unknown key 'read_path' in git fetch; allowed: about, annotations, examples, flags, json, lead, network, omit_name, positionals, read_paths, stdin, tail, write_paths"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := wrapped.LoadBytes(file, []byte(tc.src), wrapped.LoadOptions{})
			if want := file + ":" + tc.want; err == nil || err.Error() != want {
				t.Fatalf("got  %v\nwant %s", err, want)
			}
		})
	}
	// The Go declaration is refused alike, without a position.
	_, err = wrapped.New("git", helper).Root(wrapped.NewVerb("").WritePaths("/no/such/cache")).Build(wrapped.LoadOptions{})
	if want := "git: write_paths: '/no/such/cache' does not exist; allowed: existing files and directories"; err == nil || err.Error() != want {
		t.Errorf("Go declaration: got %v, want %s", err, want)
	}
	_, err = wrapped.New("git", helper).ReadPaths("/usr\x00").Root(wrapped.NewVerb("")).Build(wrapped.LoadOptions{})
	if want := "git: read_paths: a path contains a NUL byte"; err == nil || err.Error() != want {
		t.Errorf("Go declaration: got %v, want %s", err, want)
	}
}
