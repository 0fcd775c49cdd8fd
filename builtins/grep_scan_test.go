package builtins

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// A plain literal is searched a buffer at a time: line numbers, counts
// and names must come out as GNU's across buffer boundaries, past lines
// longer than a buffer, and when a NUL byte turns up far into the file.
func TestGrepScanGNU(t *testing.T) {
	var big, long, late strings.Builder
	for i := range 30000 {
		fmt.Fprintf(&big, "line %d %s\n", i, map[bool]string{true: "needle", false: "hay"}[i%997 == 0])
	}
	long.WriteString(strings.Repeat("a", 300<<10) + "needle\nshort needle\n" + strings.Repeat("b", 200<<10) + "\nend needle")
	late.WriteString(big.String()[:200<<10] + "\nneedle\x00binary\nneedle after\n")
	files := map[string]string{"big": big.String(), "long": long.String(), "late": late.String(), "other": "no match\n"}
	var cases []gnuCase
	for _, script := range []string{
		"grep needle big", "grep -n needle big", "grep -c needle big", "grep -nH needle big other",
		"grep -l needle big other", "grep -L needle big other", "grep -q needle big; echo $?",
		"grep -n needle long | cut -c1-20", "grep -c needle long",
		"grep -c needle late",
		"cat big | grep -n needle", "grep -n 'line 2' big | tail -3",
	} {
		cases = append(cases, gnuCase{name: script, script: script, files: files})
	}
	compareGNU(t, []kernel.Tool{cmdGrep, cmdCut, cmdTail, cmdCat}, cases)
}

// Where a NUL byte turns up far into a file, GNU marks its buffer binary
// from the buffer's start, and so stops printing a few lines earlier than
// shelter (docs/sandbox.md); the buffer-at-a-time search must give what
// the line loop gives (-i keeps the search on the line loop).
func TestGrepScanLateNUL(t *testing.T) {
	var late strings.Builder
	for i := range 12000 {
		fmt.Fprintf(&late, "line %d %s\n", i, map[bool]string{true: "needle", false: "hay"}[i%97 == 0])
	}
	late.WriteString("needle\x00binary\nneedle after\n")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"late": late.String()})
	fast := run(t, []kernel.Tool{cmdGrep}, dir, "", "grep -nH needle late")
	slow := run(t, []kernel.Tool{cmdGrep}, dir, "", "grep -nHi needle late")
	if fast.Stdout != slow.Stdout || fast.Stderr != slow.Stderr || fast.ExitCode != slow.ExitCode {
		t.Errorf("buffered search:\n%.300q\n%q %d\nline loop:\n%.300q\n%q %d", fast.Stdout, fast.Stderr, fast.ExitCode, slow.Stdout, slow.Stderr, slow.ExitCode)
	}
	if !strings.Contains(fast.Stderr, "binary file matches") {
		t.Errorf("stderr %q", fast.Stderr)
	}
}
