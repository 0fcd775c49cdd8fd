package bashcompat

import (
	"testing"

	"github.com/shelter-sh/shelter/kernel/internal/rewrite"
)

// TestSetOptionDefaults holds rewrite's copy of the set -o options
// mvdan/sh lacks, which [[ -o NAME ]] reads, to set's table.
func TestSetOptionDefaults(t *testing.T) {
	held := 0
	for _, opt := range setOptions {
		if mvdanOption(opt.name) {
			continue
		}
		held++
		if on, ok := rewrite.SetOptionDefaults[opt.name]; !ok || on != opt.on {
			t.Errorf("rewrite.SetOptionDefaults[%q] = %v, %v; set's table says %v", opt.name, on, ok, opt.on)
		}
	}
	if held != len(rewrite.SetOptionDefaults) {
		t.Errorf("rewrite.SetOptionDefaults has %d options, set's table %d", len(rewrite.SetOptionDefaults), held)
	}
}
