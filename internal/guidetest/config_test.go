package guidetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/repoconfig"
)

// TestGuideCoversRepoConfig: the guide's .salve.yml page documents every
// key salve reads, in its table, and every yaml example on any guide page
// is a file salve accepts.
func TestGuideCoversRepoConfig(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(repoRoot, "docs", "guide", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range repoconfig.Keys() {
		if !strings.Contains(string(page), "\n| `"+k+"` |") {
			t.Errorf("the guide's table does not document the key %q", k)
		}
	}
	n := 0
	for _, b := range guideBlocks(t) {
		if b.lang != "yaml" || !strings.Contains(b.text, "# "+repoconfig.File) {
			continue
		}
		n++
		c, err := repoconfig.Parse([]byte(b.text))
		if err != nil {
			t.Errorf("%s: salve refuses the example: %v", b.name(), err)
			continue
		}
		for _, k := range repoconfig.Keys() {
			if !strings.Contains(b.text, "\n"+k+":") {
				t.Errorf("%s: the example leaves out %q", b.name(), k)
			}
		}
		if c.Command == "" || len(c.ProtectedPaths) == 0 {
			t.Errorf("%s: the example parsed to %+v", b.name(), c)
		}
	}
	if n == 0 {
		t.Error("no guide page shows a .salve.yml example")
	}
}
