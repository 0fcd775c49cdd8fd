package beneath

import (
	"testing"

	"github.com/shelter-sh/shelter/internal/proctest"
)

// TestRemoveAllAsNobody runs the removal of a read-only tree as a user
// whom its permissions bind (root's are not checked).
func TestRemoveAllAsNobody(t *testing.T) {
	proctest.AsNobody(t, "^TestRemoveAllReadOnly$")
}
