package builtins

import (
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func TestRealpathGNU(t *testing.T) {
	t.Parallel()
	tools := []kernel.Tool{cmdRealpath, cmdReadlink}
	tree := map[string]string{"f": "x", "d/g": "y"}
	// The links are made by the script, relative, so that both runs have
	// the same; printed paths show the run's directory as PWD. Each script
	// starts with realpath, the word compareGNU checks is GNU's.
	const links = "ln -s f l; ln -s d ld; ln -s nowhere dang; ln -s loop2 loop1; ln -s loop1 loop2; ln -s ld/../f up; "
	const rel = " | sed \"s|$PWD|PWD|g\""
	compareGNU(t, tools, []gnuCase{
		{name: "plain", script: "realpath . >/dev/null; { " + links + "realpath f l ld ld/g up . d/.. /; }" + rel, files: tree},
		{name: "missing last", script: "realpath . >/dev/null; { " + links + "realpath nope dang; echo $?; }" + rel, files: tree},
		{name: "missing dir", script: "realpath . >/dev/null; { " + links + "realpath a/b f/x; echo $?; }" + rel, files: tree},
		{name: "existing", script: "realpath . >/dev/null; { " + links + "realpath -e f nope dang; echo $?; realpath --canonicalize-existing l; }" + rel, files: tree},
		{name: "missing ok", script: "realpath . >/dev/null; { " + links + "realpath -m a/b/../c f/x dang; realpath --canonicalize-missing nope; }" + rel, files: tree},
		{name: "strip", script: "realpath . >/dev/null; { " + links + "realpath -s l ld/g ./x; realpath --strip up; realpath --no-symlinks -e nope; }" + rel, files: tree},
		{name: "quiet", script: "realpath . >/dev/null; { " + links + "realpath -q nope/x f; echo $?; realpath --quiet -e nope; }" + rel, files: tree},
		{name: "zero", script: "realpath . >/dev/null; { " + links + "realpath -z f l | tr '\\0' '\\n'; realpath --zero d; }" + rel, files: tree},
		{name: "clustered", script: "realpath . >/dev/null; { " + links + "realpath -sz l ld | tr '\\0' '\\n'; realpath -eq f nope; }" + rel, files: tree},
		{name: "relative to", script: "realpath . >/dev/null; { " + links + "realpath --relative-to=d f ld/g; realpath --relative-to=. d/g; }" + rel, files: tree},
		{name: "loop", script: "realpath . >/dev/null; { " + links + "realpath loop1; echo $?; }" + rel, files: tree},
		{name: "trailing slash", script: "realpath . >/dev/null; { " + links + "realpath f/; realpath d/; echo $?; }" + rel, files: tree},
		{name: "no operand", script: "realpath", files: tree},
		{name: "quoted name", script: "realpath -e \"it's\" 'a b'", files: tree},
		{name: "dashdash", script: "realpath -- -x" + rel, files: map[string]string{"-x": ""}},
		{name: "readlink", script: links + "readlink l ld dang; readlink f; echo $?; readlink nope; echo $?", files: tree},
		{name: "readlink verbose", script: links + "readlink -v f nope; echo $?; readlink --verbose l", files: tree},
		{name: "readlink f", script: "realpath . >/dev/null; { " + links + "readlink -f l ld/g up dang nope; echo $?; readlink -f a/b; echo $?; }" + rel, files: tree},
		{name: "readlink e", script: "realpath . >/dev/null; { " + links + "readlink -e l dang; echo $?; readlink --canonicalize-existing ld; }" + rel, files: tree},
		{name: "readlink m", script: "realpath . >/dev/null; { " + links + "readlink -m dang/x a/../b; readlink --canonicalize-missing nope; }" + rel, files: tree},
		{name: "readlink canonicalize", script: "realpath . >/dev/null; { " + links + "readlink --canonicalize up; }" + rel, files: tree},
		{name: "readlink n", script: "realpath . >/dev/null; { " + links + "readlink -n l; echo; readlink --no-newline l ld; readlink -fn f; }" + rel, files: tree},
		{name: "readlink z", script: links + "readlink -z l ld | tr '\\0' '\\n'; readlink --zero l | od -c", files: tree},
		{name: "readlink quiet", script: links + "readlink -q -f nope/x; echo $?; readlink -s -e nope; readlink --silent --quiet -e nope; echo $?", files: tree},
		{name: "readlink ev", script: links + "readlink -ev nope loop1; echo $?", files: tree},
		{name: "readlink no operand", script: "readlink", files: tree},
	})
}

func TestRealpathSandbox(t *testing.T) {
	t.Parallel()
	tools := []kernel.Tool{cmdRealpath, cmdReadlink}
	var escapes []sandboxEscape
	for _, n := range outsideNames {
		escapes = append(escapes,
			sandboxEscape{script: "realpath " + n}, sandboxEscape{script: "realpath -e " + n},
			sandboxEscape{script: "realpath -m " + n + "/x"}, sandboxEscape{script: "readlink -v -f " + n},
			sandboxEscape{script: "readlink -v -e " + n}, sandboxEscape{script: "readlink -v -m " + n + "/x"})
	}
	escapes = append(escapes,
		sandboxEscape{script: "realpath /etc/passwd"}, sandboxEscape{script: "realpath -m .."}, sandboxEscape{script: "realpath -s .."},
		sandboxEscape{script: "realpath -m ../../x"}, sandboxEscape{script: "readlink -v $OUT/secret"},
		sandboxEscape{script: "realpath --relative-to=.. f"},
	)
	checkEscapes(t, tools, escapes)
}
