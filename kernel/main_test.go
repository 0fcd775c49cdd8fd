package kernel

import (
	"flag"
	"os"
	"testing"

	"github.com/shelter-sh/shelter/internal/testpar"
	"github.com/shelter-sh/shelter/spawn"
)

func TestMain(m *testing.M) {
	spawn.Init() // confined children start through this binary
	flag.Parse()
	testpar.Raise()
	os.Exit(m.Run())
}
