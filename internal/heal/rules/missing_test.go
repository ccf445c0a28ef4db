package rules

import (
	"testing"

	"github.com/salve-dev/salve/internal/heal/missing"
)

// TestMissingNameWordingsHaveOneHome: every wording of a missing name
// that the rules tier's own patterns read is known to package missing,
// the one table of them, with the same name: a wording added here and
// not there fails.
func TestMissingNameWordingsHaveOneHome(t *testing.T) {
	for _, tc := range []struct {
		re   string
		msgs []string
	}{
		{"python", []string{
			"NameError: name 'json' is not defined",
			"undefined name 'json'",
			"undefined name `json`",
			`"json" is not defined`,
		}},
		{"js", []string{
			"ReferenceError: path is not defined",
			"Cannot find name 'path'.",
			"'path' is not defined.",
			"path is not defined",
		}},
	} {
		re := rePyUndefined
		if tc.re == "js" {
			re = reJSUndefined
		}
		for _, msg := range tc.msgs {
			m := re.FindStringSubmatch(msg)
			if m == nil {
				t.Errorf("%s: the rules tier no longer reads %q: drop it from this test", tc.re, msg)
				continue
			}
			name := ""
			for _, g := range m[1:] {
				if g != "" {
					name = g
				}
			}
			a, ok := missing.Of(msg)
			if !ok || a.Need != missing.Name || a.Name != name {
				t.Errorf("%s: %q names %q to the rules tier, but missing.Of gives %+v, %v", tc.re, msg, name, a, ok)
			}
		}
	}
}
