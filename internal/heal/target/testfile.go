package target

import (
	"strings"

	"github.com/salve-dev/salve/internal/lang"
)

// isTestFile reports whether rel, a repo-relative slash path, is a test
// file (the project's one table of test-file conventions) or test data,
// which the resolver never returns as code to patch.
func isTestFile(rel string) bool {
	return lang.IsTestFile(rel) || strings.HasPrefix(rel, "testdata/") || strings.Contains(rel, "/testdata/")
}
