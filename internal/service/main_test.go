package service_test

import (
	"testing"

	"github.com/salve-dev/salve/internal/testdirs"
)

// TestMain keeps the salve serve and salve worker processes the tests
// start, whose heals build in salve's build cache and trim it after every
// job, out of the user's data, state and cache folders.
func TestMain(m *testing.M) { testdirs.Main(m) }
