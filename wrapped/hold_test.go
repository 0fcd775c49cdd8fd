package wrapped_test

import (
	"testing"

	"github.com/shelter-sh/shelter/wrapped"
)

// The declared choice is what Positional.Hold reports; Build refuses it on
// an argument that is not a path.
func TestHoldBuilder(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		arg            *wrapped.ArgSpec
		hold, declared bool
	}{
		{wrapped.Arg("a").Under(dir), false, false},
		{wrapped.Arg("a").Under(dir).Hold(true), true, true},
		{wrapped.Arg("a").Under(dir).Hold(false), false, true},
		{wrapped.Many("a").Under(dir).Hold(false).Hold(true), true, true},
	} {
		c, err := wrapped.New("py", helper).Root(wrapped.NewVerb("").Arg(tc.arg)).Build(wrapped.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		v, _ := c.Verb("")
		if hold, declared := v.Positionals()[0].Hold(); hold != tc.hold || declared != tc.declared {
			t.Errorf("Hold() = %v, %v; want %v, %v", hold, declared, tc.hold, tc.declared)
		}
	}
	_, err := wrapped.New("py", helper).Root(wrapped.NewVerb("").Arg(wrapped.Arg("a").Hold(true))).Build(wrapped.LoadOptions{})
	if want := "py: argument 'a': hold without path_under; only a path_under argument is held"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// hold: in YAML is the builder's Hold; null leaves the choice to the
// profile.
func TestHoldYAML(t *testing.T) {
	dir := t.TempDir()
	cmds := loadString(t, `
commands:
  py:
    executable: `+helper+`
    root:
      positionals:
        - {name: unset, path_under: `+dir+`}
        - {name: none, path_under: `+dir+`, hold: ~}
        - {name: held, path_under: `+dir+`, hold: true}
        - {name: path, path_under: `+dir+`, hold: false}
`)
	v, _ := cmds["py"].Verb("")
	want := map[string][2]bool{"unset": {false, false}, "none": {false, false}, "held": {true, true}, "path": {false, true}}
	for _, a := range v.Positionals() {
		hold, declared := a.Hold()
		if w := want[a.Name()]; hold != w[0] || declared != w[1] {
			t.Errorf("%s: Hold() = %v, %v; want %v, %v", a.Name(), hold, declared, w[0], w[1])
		}
	}
}
