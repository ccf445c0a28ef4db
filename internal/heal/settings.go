package heal

import (
	"github.com/salve-dev/salve/internal/heal/repoconfig"
)

// SettingsFile is the repository's own heal configuration; the entry
// points read it from the base (package repoconfig), never from the
// change under heal or the work tree.
const SettingsFile = repoconfig.File

// protectedPaths returns the globs no fix may edit.
func (r *run) protectedPaths() []string { return r.o.ProtectedPaths }

// testEdits records the repository configuration the caller applied and
// whether fixes may edit tests. When they may, it says so in the results
// and the log, on every heal.
func (r *run) testEdits() error {
	r.res.RepoConfig = r.o.RepoConfig
	if !r.o.AllowTestEdits {
		return nil
	}
	by := r.o.AllowTestEditsBy
	if by == "" {
		by = "the caller"
	}
	r.res.AllowTestEdits = by
	w := "test edits are allowed (" + by + "): fixes may edit test files and test configuration; no fix may remove or loosen an assertion, change an expected value, skip a test or add a suppression"
	r.res.Warnings = append(r.res.Warnings, w)
	r.o.Logger.Warn(w)
	return nil
}
