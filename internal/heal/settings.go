package heal

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/salve-dev/salve/internal/safefile"
)

// SettingsFile is the repository's own heal settings, read from the
// committed tree the heal starts from.
const SettingsFile = ".salve.yml"

// maxSettings bounds the settings file.
const maxSettings = 64 << 10

// repoSettings are the settings a repository may give its heals.
type repoSettings struct {
	// AllowTestEdits lets fixes edit test files and test configuration.
	AllowTestEdits bool `yaml:"allow_test_edits"`
}

// readSettings reads SettingsFile at the root of a worktree. A
// missing file is no settings; an unreadable or malformed one is an error.
func readSettings(root string) (repoSettings, error) {
	var s repoSettings
	b, err := safefile.Read(filepath.Join(root, SettingsFile), maxSettings)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("heal: read %s: %w", SettingsFile, err)
	}
	if err := yaml.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("heal: %s: %w", SettingsFile, err)
	}
	return s, nil
}

// testEdits settles whether fixes may edit tests: the caller's option,
// else the repository's setting. When they may, it says so in the results
// and the log, on every heal.
func (r *run) testEdits() error {
	if !r.o.AllowTestEdits && !r.o.NoRepoSettings {
		s, err := readSettings(r.o.WorktreeDir)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrBadInput, err)
		}
		if s.AllowTestEdits {
			r.o.AllowTestEdits, r.o.AllowTestEditsBy = true, SettingsFile+" allow_test_edits"
		}
	}
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
