package builtins

import (
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func TestBasenameDirnameGNU(t *testing.T) {
	t.Parallel()
	names := "/ // /// //a //a/b a a/ a//b/ /a '' . .. a/b/.. ///a///b/// 'sp ace/x y' $'\\xff/\\x01'"
	cases := []gnuCase{
		{name: "basename each", script: "basename -a -- " + names},
		{name: "dirname each", script: "dirname -- " + names},
		{name: "dirname several", script: "dirname a/b /c d// ''"},
		{name: "dirname zero", script: "dirname -z a/b c"},
		{name: "dirname zero long", script: "dirname --zero a/b c"},
		{name: "dirname missing", script: "dirname"},
		{name: "dirname dashdash", script: "dirname -- -z/x"},
		{name: "suffix operand", script: "basename /x/y.c .c; basename a.c a.c; basename /x/ x; basename a.tar.gz .gz"},
		{name: "extra operand", script: "basename a b c"},
		{name: "missing", script: "basename"},
		{name: "multiple", script: "basename -a /a/b c/d/ e"},
		{name: "multiple long", script: "basename --multiple /a/b c/d/"},
		{name: "suffix flag", script: "basename -s .c a.c .c b /x/y.c"},
		{name: "suffix long", script: "basename --suffix=.c a.c b.c"},
		{name: "suffix long word", script: "basename --suffix .c a.c"},
		{name: "suffix attached", script: "basename -s.c a.c"},
		{name: "suffix empty", script: "basename -s '' a.c"},
		{name: "zero", script: "basename -z a/b"},
		{name: "zero long", script: "basename --zero -a a/b c/d"},
		{name: "clustered", script: "basename -zas .c x.c y.c"},
		{name: "multiple missing", script: "basename -a"},
		{name: "dashdash", script: "basename -- -a/-s"},
	}
	compareGNU(t, []kernel.Tool{cmdBasename, cmdDirname}, cases)
}
