package bench

import (
	"fmt"
	"strconv"
	"strings"
)

// smallScript is what an agent's typical call looks like: assignments, an
// if, a loop of ten, a function call and a command substitution.
const smallScript = `a=1
b=two
name=shelter
if [ "$a" -eq 1 ]; then msg=one; else msg=other; fi
greet() { echo "hello $1 ($msg)"; }
sum=0
for i in 1 2 3 4 5 6 7 8 9 10; do sum=$((sum + i)); done
greet "$name"
echo "sum=$sum $(echo sub "$b")"
`

// thousandStatements is a script of 1,000 top-level statements: a mix of
// arithmetic, assignments, a builtin writing to /dev/null and a test,
// then one line that shows where they ended.
func thousandStatements() string {
	var b strings.Builder
	b.WriteString("x=0\n")
	for i := 1; i < 999; i++ {
		switch i % 4 {
		case 0:
			b.WriteString("x=$((x+1))\n")
		case 1:
			fmt.Fprintf(&b, "y%d=\"v$x\"\n", i%10)
		case 2:
			b.WriteString("echo \"$x\" >/dev/null\n")
		case 3:
			b.WriteString("[ \"$x\" -ge 0 ]\n")
		}
	}
	b.WriteString("echo \"x=$x y1=$y1\"\n")
	return b.String()
}

// manyLines prints n lines, about 12 bytes each: under the agent
// profile's 32 KiB limit nearly all of it spills to a file.
func manyLines(n int) string {
	return fmt.Sprintf("for ((i = 0; i < %d; i++)); do echo \"line $i\"; done\n", n)
}

// heavyLines is the line count of the heavy-output case.
const heavyLines = 200000

// smallScriptOutput is what smallScript prints, in bash as in shelter.
const smallScriptOutput = "hello shelter (one)\nsum=55 sub two\n"

// thousandStatementsOutput is what thousandStatements prints.
const thousandStatementsOutput = "x=249 y1=v245\n"

// linesBytes is the size of what manyLines(n) prints.
func linesBytes(n int) int64 {
	var size int64
	for i := range n {
		size += int64(len("line \n") + len(strconv.Itoa(i)))
	}
	return size
}
