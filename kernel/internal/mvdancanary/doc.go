// Package mvdancanary holds the canaries of shelter's workarounds for
// mvdan.cc/sh/v3: one test for every rewrite, replaced builtin and
// refusal that exists because of a bug or gap of mvdan/sh. Each canary
// runs bare mvdan/sh (its syntax and interp packages, nothing of
// shelter) on a small script and asserts that the bug is still there.
//
// When an upgrade of mvdan/sh fixes one, its canary fails with one line
// that names the shelter code to delete or simplify and the section of
// docs/mvdan.md that describes the bug; the test also fails when the
// named code moved without the table following it. The package has no
// code of its own: only its tests.
package mvdancanary
