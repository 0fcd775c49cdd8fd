package bashcompat

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestFuncText(t *testing.T) {
	for src, want := range map[string]string{
		"f() { echo one; echo two; }":  "f () \n{ \n    echo one;\n    echo two\n}",
		"f() ( echo sub )":             "f () \n{ \n    ( echo sub )\n}",
		"f() { a && b | c; x & y; }":   "f () \n{ \n    a && b | c;\n    x & y\n}",
		"f() { while a; do b; done; }": "f () \n{ \n    while a; do\n        b;\n    done\n}",
		"f() { g() { :; }; }":          "f () \n{ \n    function g () \n    { \n        :\n    }\n}",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatal(err)
		}
		fd := f.Stmts[0].Cmd.(*syntax.FuncDecl)
		if got := funcText(fd.Name.Value, fd.Body, false); got != want {
			t.Errorf("%s:\n got %q\nwant %q", src, got, want)
		}
	}
}
