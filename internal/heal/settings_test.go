package heal

import (
	"context"
	"strings"
	"testing"
)

// TestRepoSettingsAllowTestEdits: a repository's .salve.yml may allow test
// edits, and the heal records who allowed it; a heal of a change salve did
// not write (NoRepoSettings) never reads it; a malformed file is bad input.
func TestRepoSettingsAllowTestEdits(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings string
		noRepo   bool
		want     string // Results.AllowTestEdits
		badInput bool
	}{
		{"no settings", "", false, "", false},
		{"allowed by the repository", "allow_test_edits: true\n", false, SettingsFile + " allow_test_edits", false},
		{"not allowed", "allow_test_edits: false\n", false, "", false},
		{"a job ignores the repository's settings", "allow_test_edits: true\n", true, "", false},
		{"malformed", "allow_test_edits: [\n", false, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"a.x": "fine\n"}
			if tc.settings != "" {
				files[SettingsFile] = tc.settings
			}
			o, _ := baseOptions(t, newRepo(t, files))
			o.NoRepoSettings = tc.noRepo
			res, err := Run(context.Background(), o)
			if tc.badInput {
				if err == nil || !strings.Contains(err.Error(), SettingsFile) {
					t.Fatalf("err = %v, want bad input naming %s", err, SettingsFile)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.AllowTestEdits != tc.want {
				t.Errorf("allow_test_edits = %q, want %q", res.AllowTestEdits, tc.want)
			}
			if warned := strings.Contains(strings.Join(res.Warnings, "\n"), "test edits are allowed"); warned != (tc.want != "") {
				t.Errorf("warnings %q", res.Warnings)
			}
		})
	}
}
