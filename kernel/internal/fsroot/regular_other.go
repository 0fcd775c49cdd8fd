//go:build !linux

package fsroot

import (
	"context"
	"io"
)

// OpenRegular opens name for reading when the caller has it listed as a
// regular file; elsewhere than on Linux it is Open.
func (o *Opener) OpenRegular(ctx context.Context, name string) (io.ReadCloser, error) {
	return o.Open(ctx, name)
}
