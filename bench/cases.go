package bench

import (
	"fmt"
	"strconv"
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

// manyLines prints n lines, about 12 bytes each: under the agent
// profile's 32 KiB limit nearly all of it spills to a file.
func manyLines(n int) string {
	return fmt.Sprintf("for ((i = 0; i < %d; i++)); do echo \"line $i\"; done\n", n)
}

// heavyLines is the line count of the heavy-output case.
const heavyLines = 200000

// smallScriptOutput is what smallScript prints, in bash as in shelter.
const smallScriptOutput = "hello shelter (one)\nsum=55 sub two\n"

// linesBytes is the size of what manyLines(n) prints.
func linesBytes(n int) int64 {
	var size int64
	for i := range n {
		size += int64(len("line \n") + len(strconv.Itoa(i)))
	}
	return size
}
