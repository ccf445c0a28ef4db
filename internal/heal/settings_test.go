package heal

import (
	"context"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/integrity"
	"github.com/salve-dev/salve/internal/heal/results"
)

// TestRepoConfigApplied: the repository configuration the caller read is
// recorded in the results; its protected paths make the gate refuse a
// fix of a matching file (rule protected-path); allow_test_edits, given
// as AllowTestEdits, is recorded with who allowed it.
func TestRepoConfigApplied(t *testing.T) {
	cfg := &results.RepoConfig{File: SettingsFile, Rev: "abc123", Applied: []string{"protected_paths: [a.x]"}}
	for _, tc := range []struct {
		name      string
		protected []string
		testEdits bool
		outcome   string
		recorded  bool
	}{
		{"nothing protected", nil, false, results.OutcomeGreen, true},
		{"the fixed file is protected", []string{"*.x"}, false, results.OutcomeRed, true},
		{"test edits allowed by the file", nil, true, results.OutcomeGreen, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, _ := baseOptions(t, newRepo(t, map[string]string{"a.x": tenLines}), &fakeFixer{name: "f", fix: fixBug(0.9)})
			o.RepoConfig, o.ProtectedPaths = cfg, tc.protected
			if tc.testEdits {
				o.AllowTestEdits, o.AllowTestEditsBy = true, SettingsFile+" allow_test_edits"
			}
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != tc.outcome {
				t.Fatalf("outcome %s (%s), want %s", res.Outcome, res.Reason, tc.outcome)
			}
			if (res.RepoConfig != nil) != tc.recorded || (tc.recorded && res.RepoConfig.Rev != "abc123") {
				t.Errorf("repo_config %+v, want recorded %v", res.RepoConfig, tc.recorded)
			}
			if tc.outcome == results.OutcomeRed {
				refused := false
				for _, b := range res.Bugs {
					for _, a := range b.Attempts {
						refused = refused || strings.Contains(a.Reason, integrity.RuleProtectedPath)
					}
				}
				if !refused {
					t.Errorf("no attempt was refused by %s: %+v", integrity.RuleProtectedPath, res.Bugs)
				}
			}
			if want := map[bool]string{true: SettingsFile + " allow_test_edits"}[tc.testEdits]; res.AllowTestEdits != want {
				t.Errorf("allow_test_edits = %q, want %q", res.AllowTestEdits, want)
			}
		})
	}
}
