package main

import (
	"reflect"
	"testing"
)

// TestScriptOnlyAgreesWithTheFlagSet holds the shortcut parseFlags takes
// for `-c SCRIPT` to what the flag set makes of the same line, and to
// declining every line it is not sure of.
func TestScriptOnlyAgreesWithTheFlagSet(t *testing.T) {
	for _, tc := range []struct {
		verb  string
		args  []string
		taken bool
	}{
		{"run", []string{"-c", "true"}, true},
		{"run", []string{"-c", "echo $0 $1", "name", "one", "--json"}, true},
		{"run", []string{"-c", "-x", "-"}, true},
		{"run", []string{"-c", "", ""}, true},
		{"check", []string{"-c", "echo"}, true},
		{"run", []string{"-c", "true", "--json"}, false},
		{"run", []string{"-c", "true", "--", "x"}, false},
		{"run", []string{"-c", "true", "-c", "false"}, false},
		{"run", []string{"--c", "true"}, false},
		{"run", []string{"-c=true"}, false},
		{"run", []string{"--json", "-c", "true"}, false},
		{"run", []string{"-c"}, false},
		{"run", []string{"script.sh"}, false},
		{"tools", []string{"-c", "true"}, false},
	} {
		var short options
		rest, ok := short.scriptOnly(tc.verb, tc.args)
		if ok != tc.taken {
			t.Errorf("%s %q: taken %v, want %v", tc.verb, tc.args, ok, tc.taken)
		}
		if !ok {
			continue
		}
		var full options
		fs := full.flagSet(tc.verb)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%s %q: %v", tc.verb, tc.args, err)
		}
		if !reflect.DeepEqual(short, full) || !reflect.DeepEqual(rest, fs.Args()) {
			t.Errorf("%s %q: shortcut %+v %q, flag set %+v %q", tc.verb, tc.args, short, rest, full, fs.Args())
		}
	}
}
