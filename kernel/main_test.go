package kernel

import (
	"flag"
	"os"
	"testing"

	"github.com/shelter-sh/shelter/internal/testpar"
)

func TestMain(m *testing.M) {
	flag.Parse()
	testpar.Raise()
	os.Exit(m.Run())
}
