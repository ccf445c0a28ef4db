package toolrun

import (
	"context"
	"errors"
	"github.com/salve-dev/salve/internal/sandbox"
	"strings"
	"testing"
)

// TestRenderDiffsOddNames checks that every file gets its own section of
// git's output, whatever git must quote in its name.
func TestRenderDiffsOddNames(t *testing.T) {
	names := []string{"plain.txt", "sp ace.txt", "tab\there.txt", `quo"te.txt`, `back\slash.txt`, "new\nline.txt", "ctl\x01.txt", "ümlaut.txt", "d/e/f.txt"}
	var changes []change
	for i, n := range names {
		st := fileState{Perm: 0o644, Content: []byte("v1\n"), Kept: true}
		switch i % 3 {
		case 0:
			changes = append(changes, change{Path: n, Op: opCreate, After: st})
		case 1:
			changes = append(changes, change{Path: n, Op: opDelete, Before: st})
		default:
			after := st
			after.Content = []byte("v2\n")
			changes = append(changes, change{Path: n, Op: opEdit, Before: st, After: after})
		}
	}
	diffs, err := renderDiffs(context.Background(), "git", changes)
	if errors.Is(err, sandbox.ErrNotFound) {
		t.Skipf("git: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		d := diffs[c.Path]
		wantHeader := "diff --git " + quoteGitPath("a/"+c.Path) + " " + quoteGitPath("b/"+c.Path) + "\n"
		if !strings.HasPrefix(d, wantHeader) || strings.Count(d, "diff --git ") != 1 {
			t.Errorf("%q (%s): diff %q", c.Path, c.Op, d)
		}
	}
	if got := quoteGitPath("a/x\x7fy"); got != `"a/x\177y"` {
		t.Errorf("quoteGitPath DEL = %s", got)
	}
}
