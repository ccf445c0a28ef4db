package worker

import (
	"testing"

	"github.com/salve-dev/salve/internal/testdirs"
)

// TestMain keeps the workers the tests run, which trim salve's build
// cache after every job, out of the user's cache folder.
func TestMain(m *testing.M) { testdirs.Main(m) }
