// Package scripts holds the scripts that benchmarks of more than one
// package run (bench's side-by-side cases, the kernel's nesting scan), so
// that each measures the same text.
package scripts

import (
	"fmt"
	"strings"
)

// ThousandStatements is a script of 1,000 top-level statements: a mix of
// arithmetic, assignments, a builtin writing to /dev/null and a test,
// then one line that shows where they ended.
func ThousandStatements() string {
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

// ThousandStatementsOutput is what ThousandStatements prints.
const ThousandStatementsOutput = "x=249 y1=v245\n"
