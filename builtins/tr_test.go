package builtins

import (
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func TestTrGNU(t *testing.T) {
	in := "Hello, World!\n\taabbcc  dd\x00\xff\xfe\n123 abc-xyz [x] \\ end"
	cases := []gnuCase{
		{name: "translate", script: "tr a-z A-Z", stdin: in},
		{name: "classes", script: "tr '[:lower:][:digit:]' '[:upper:]#'", stdin: in},
		{name: "upper-lower", script: "tr '[:upper:]' '[:lower:]'", stdin: in},
		{name: "pad", script: "tr a-f xy", stdin: in},
		{name: "truncate", script: "tr -t a-f xy", stdin: in},
		{name: "truncate-long", script: "tr --truncate-set1 abc xy", stdin: in},
		{name: "delete", script: "tr -d '[:space:]'", stdin: in},
		{name: "delete-long", script: "tr --delete a", stdin: in},
		{name: "clustered", script: "tr -dsc 'a-z' 'a'", stdin: in},
		{name: "abbrev-long", script: "tr --compl --del 'a-z'", stdin: in},
		{name: "delete-complement", script: "tr -cd 'a-z\\n'", stdin: in},
		{name: "delete-C", script: "tr -Cd '[:alnum:]'", stdin: in},
		{name: "complement-translate", script: "tr -c 'a-zA-Z\\n' '_'", stdin: in},
		{name: "complement-long", script: "tr --complement '[:print:]' '?'", stdin: in},
		{name: "squeeze", script: "tr -s 'a-c '", stdin: in},
		{name: "squeeze-long", script: "tr --squeeze-repeats '[:blank:]'", stdin: in},
		{name: "squeeze-translate", script: "tr -s a-z X", stdin: in},
		{name: "squeeze-complement", script: "tr -cs '[:alpha:]' '\\n'", stdin: in},
		{name: "delete-squeeze", script: "tr -ds a-c ' '", stdin: in},
		{name: "octal", script: "tr '\\000\\377\\376' 'XYZ'", stdin: in},
		{name: "octal-ambiguous", script: "tr '\\400' x", stdin: in},
		{name: "escapes", script: "tr '\\n\\t\\\\' 'NT/'", stdin: in},
		{name: "repeat", script: "tr a-f '[x*2]yz'", stdin: in},
		{name: "repeat-fill", script: "tr a-f 'x[y*]z'", stdin: in},
		{name: "repeat-octal", script: "tr abcdefghij '[x*010]y'", stdin: in},
		{name: "equiv", script: "tr '[=a=]' x", stdin: in},
		{name: "literal-bracket", script: "tr '[ab]' 'xyzw'", stdin: in},
		{name: "literal-dash", script: "tr 'a-' 'xy'", stdin: "a-c\n"},
		{name: "escaped-dash", script: "tr 'a\\-c' 'xyz'", stdin: "a-c b\n"},
		{name: "punct-graph", script: "tr -d '[:punct:]'", stdin: in},
		{name: "cntrl", script: "tr '[:cntrl:]' '@'", stdin: in},
		{name: "xdigit", script: "tr -d '[:xdigit:]'", stdin: in},
		{name: "graph", script: "tr -d '[:graph:]'", stdin: in},
		{name: "dashdash", script: "tr -- -a xy", stdin: "-a-\n"},
		{name: "trailing-backslash", script: "tr 'a\\' xy", stdin: in},
		{name: "no-operand", script: "tr"},
		{name: "missing-set2", script: "tr a"},
		{name: "missing-set2-ds", script: "tr -ds a"},
		{name: "extra-delete", script: "tr -d a b"},
		{name: "extra", script: "tr a b c"},
		{name: "empty-set2", script: "tr a ''", stdin: "a"},
		{name: "reverse-range", script: "tr z-a x"},
		{name: "bad-class", script: "tr '[:foo:]' x"},
		{name: "class-in-set2", script: "tr a '[:digit:]'"},
		{name: "repeat-in-set1", script: "tr '[a*]' x"},
		{name: "misaligned", script: "tr a-c '[:upper:]'"},
		{name: "ends-with-class", script: "tr 'a[:digit:]' '[:upper:]x'"},
		{name: "equiv-in-set2", script: "tr a '[=b=]'"},
		{name: "two-fills", script: "tr abc '[x*][y*]'"},
		{name: "binary", script: "tr '\\000-\\037' '[.*]'", stdin: "\x00\x01\x02abc\x1f\xff\n"},
	}
	compareGNU(t, []kernel.Tool{cmdTr}, cases)
}
