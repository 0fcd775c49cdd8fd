package mvdanpriv

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/interp"
)

func TestCheck(t *testing.T) {
	if err := Check(); err != nil {
		t.Fatal(err)
	}
}

// A field that is not there, or not of the type read, gives one line
// that names it, the version built and the version checked.
func TestCheckReportsTheField(t *testing.T) {
	runner := reflect.TypeFor[interp.Runner]()
	for _, tc := range []struct {
		table []field
		want  LayoutError
		line  string
	}{{
		table: []field{runnerField, {runner, "xxx", "int", is[int]}, breaksField},
		want:  LayoutError{Version: "v3.15.0", Struct: "interp.Runner", Field: "xxx"},
		line:  "shelter: mvdan.cc/sh/v3 v3.15.0: interp.Runner has no field 'xxx' (checked against " + CheckedVersion + ")",
	}, {
		table: []field{{runner, "breakEnclosing", "string", is[string]}},
		want:  LayoutError{Version: "v3.15.0", Struct: "interp.Runner", Field: "breakEnclosing", Problem: "is int, not string"},
		line:  "shelter: mvdan.cc/sh/v3 v3.15.0: interp.Runner field 'breakEnclosing' is int, not string (checked against " + CheckedVersion + ")",
	}} {
		err := check(tc.table, "v3.15.0")
		var le *LayoutError
		if !errors.As(err, &le) {
			t.Fatalf("check = %v, want a *LayoutError", err)
		}
		if *le != tc.want {
			t.Errorf("check = %+v, want %+v", *le, tc.want)
		}
		if err.Error() != tc.line {
			t.Errorf("check's line:\n got %s\nwant %s", err, tc.line)
		}
	}
	if err := check(fields, "v3.15.0"); err != nil {
		t.Fatalf("check of the readers' own fields: %v", err)
	}
}

// The readers were checked against CheckedVersion: a go.mod that names
// another mvdan/sh must send someone to recheck them.
func TestCheckedVersionIsBuilt(t *testing.T) {
	built := builtVersion()
	if built == "(unknown)" {
		built = goModVersion(t)
	}
	if built != CheckedVersion {
		t.Fatalf("mvdan.cc/sh/v3 is %s but the private readers were checked against %s: recheck kernel/internal/mvdanpriv and docs/mvdan.md, then update CheckedVersion", built, CheckedVersion)
	}
}

// goModVersion is the version of mvdan.cc/sh/v3 the module's go.mod
// requires, for a test binary built without module information.
func goModVersion(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			for line := range strings.Lines(string(data)) {
				f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require"))
				if len(f) >= 2 && f[0] == modulePath {
					return f[1]
				}
			}
			t.Fatalf("%s requires no %s", filepath.Join(dir, "go.mod"), modulePath)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// A binary that records its dependencies names the mvdan/sh go.mod
// requires; test binaries record none (go test builds them so), and
// the pin test reads go.mod then.
func TestBuiltVersionIsGoMods(t *testing.T) {
	got := builtVersion()
	if got == "(unknown)" {
		t.Skip("the test binary records no dependencies")
	}
	if want := goModVersion(t); got != want {
		t.Fatalf("builtVersion = %s, go.mod has %s", got, want)
	}
}
