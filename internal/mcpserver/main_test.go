package mcpserver

import (
	"os"
	"testing"

	"github.com/salve-dev/salve/internal/testdirs"
)

// TestMain keeps the heals the tests run out of the user's data folders.
func TestMain(m *testing.M) {
	clean := testdirs.Isolate()
	code := m.Run()
	clean()
	os.Exit(code)
}
