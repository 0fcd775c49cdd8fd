package spawn_test

import (
	"flag"
	"os"
	"testing"

	"github.com/shelter-sh/shelter/internal/testpar"
	"github.com/shelter-sh/shelter/spawn"
)

func TestMain(m *testing.M) {
	spawn.Init()
	flag.Parse()
	testpar.Raise()
	os.Exit(m.Run())
}
