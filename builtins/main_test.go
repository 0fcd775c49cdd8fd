package builtins

import (
	goflag "flag"
	"os"
	"testing"

	"github.com/shelter-sh/shelter/internal/testpar"
)

func TestMain(m *testing.M) {
	goflag.Parse()
	testpar.Raise()
	os.Exit(m.Run())
}
