package workspace

import (
	"encoding/hex"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"
)

// idTimeLayout is the timestamp segment of an agent id, in UTC.
const idTimeLayout = "20060102T150405Z"

// idPattern matches an agent id: one or more timestamp-hex pairs.
var idPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}(-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8})*$`)
})

// IsID reports whether s is shaped like an agent id: a root id
// `<yyyymmddTHHMMSSZ>-<8 lowercase hex>`, or a parent's id followed by
// another such pair.
func IsID(s string) bool { return idPattern().MatchString(s) }

// Depth returns an agent's depth: 0 for a root, 1 for its children, and so
// on. It returns -1 when id is not shaped like an id.
func Depth(id string) int {
	if !IsID(id) {
		return -1
	}
	return len(strings.Split(id, "-"))/2 - 1
}

// Parent returns the id of an agent's parent, or "" for a root agent or a
// string not shaped like an id.
func Parent(id string) string {
	if Depth(id) < 1 {
		return ""
	}
	segs := strings.Split(id, "-")
	return strings.Join(segs[:len(segs)-2], "-")
}

// mintSegment returns one `<timestamp>-<8 hex>` pair from the clock and the
// random source.
func mintSegment(now time.Time, random io.Reader) (string, error) {
	var b [4]byte
	if _, err := io.ReadFull(random, b[:]); err != nil {
		return "", fmt.Errorf("minting an agent id: %w", err)
	}
	return now.UTC().Format(idTimeLayout) + "-" + hex.EncodeToString(b[:]), nil
}
