package harness_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/harness"
)

// TestReachYAML: network, read_paths and write_paths of an executable
// tool; relative paths are the file's directory's; help says what the
// program may reach.
func TestReachYAML(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"share", "cache"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := writeFile(t, dir, "tools.yaml", `tools:
  fetch:
    network: true
    read_paths: [share, /usr/share, ./share]
    write_paths: [`+filepath.Join(dir, "cache")+`]
    run: [/x]
  local:
    network: false
    read_paths: []
    run: [/x]
`)
	tools, err := harness.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fetch, local := tools[0].(*harness.Tool), tools[1].(*harness.Tool)
	d := fetch.Def()
	if !d.Network || !reflect.DeepEqual(d.ReadPaths, []string{filepath.Join(dir, "share"), "/usr/share"}) || !reflect.DeepEqual(d.WritePaths, []string{filepath.Join(dir, "cache")}) {
		t.Errorf("fetch: network %v read %q write %q", d.Network, d.ReadPaths, d.WritePaths)
	}
	help := fetch.Help()
	want := "\nnetwork: on\nalso reads: " + filepath.Join(dir, "share") + ", /usr/share\nalso writes: " + filepath.Join(dir, "cache") + "\n"
	if !strings.HasSuffix(help, want) {
		t.Errorf("fetch help does not end with %q:\n%s", want, help)
	}
	if d := local.Def(); d.Network || len(d.ReadPaths) != 0 || len(d.WritePaths) != 0 {
		t.Errorf("local: %+v", d)
	}
	if help := local.Help(); strings.Contains(help, "network") || strings.Contains(help, "also ") {
		t.Errorf("local help mentions a reach:\n%s", help)
	}
}

// TestReachDefErrors: a Go definition is refused alike; a relative path
// is the process's working directory's. A function tool runs in
// shelter's process, where a reach means nothing: it keeps none.
func TestReachDefErrors(t *testing.T) {
	tests := []struct {
		def  harness.Def
		want string
	}{
		{harness.Def{Name: "a", ReadPaths: []string{"/usr", ""}},
			"harness: tool a: read_paths: an empty path; allowed: existing files and directories"},
		{harness.Def{Name: "a", WritePaths: []string{"/tmp\x00"}},
			"harness: tool a: write_paths: a path contains a NUL byte"},
		{harness.Def{Name: "a", WritePaths: []string{"/no/such/cache"}},
			"harness: tool a: write_paths: '/no/such/cache' does not exist; allowed: existing files and directories"},
	}
	for _, tc := range tests {
		_, err := harness.Exec(tc.def, []string{helperPath})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%+v:\n got %v\nwant %s", tc.def, err, tc.want)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tool, err := harness.Exec(harness.Def{Name: "a", ReadPaths: []string{"../harness/."}}, []string{helperPath})
	if err != nil {
		t.Fatal(err)
	}
	if got := tool.(*harness.Tool).Def().ReadPaths; !reflect.DeepEqual(got, []string{wd}) {
		t.Errorf("relative read path = %q, want %s", got, wd)
	}
	fn, err := harness.Func(harness.Def{Name: "f", Network: true, ReadPaths: []string{"/usr"}}, func(context.Context, harness.Input) (any, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	if d := fn.(*harness.Tool).Def(); d.Network || d.ReadPaths != nil {
		t.Errorf("a function tool keeps a reach: %+v", d)
	}
}
