package builtins

import (
	goflag "flag"
	"os"
	"testing"

	"github.com/shelter-sh/shelter/internal/testpar"
	"github.com/shelter-sh/shelter/spawn"
)

func TestMain(m *testing.M) {
	spawn.Init() // confined children start through this binary
	goflag.Parse()
	testpar.Raise()
	os.Exit(m.Run())
}
