package rules

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
)

// TestExternalFixer runs the external row through a stand-in "ruff" script
// in PATH: the rules tier runs it on the file in place, returns the
// result, and puts the file back as it was.
func TestExternalFixer(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\n# stand-in for ruff check --fix --quiet -- FILE: rewrite the import block\n" +
		"[ \"$1 $2 $3 $4\" = \"check --fix --quiet --\" ] || exit 9\n" +
		"grep -v '^import os$' \"$5\" > \"$5.tmp\" && mv \"$5.tmp\" \"$5\"\n"
	if err := os.WriteFile(filepath.Join(bin, "ruff"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	src := "import os\nimport sys\n\nprint(sys.argv)\n"
	if err := os.WriteFile(filepath.Join(ws, "app.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	in := heal.FixInput{Workspace: ws, Path: "app.py", Content: src, Request: contract.FixRequest{
		BugReport: contract.BugReport{FilePath: "app.py", LineNumber: 1, ErrorType: contract.ErrImport, Message: "I001 [*] Import block is un-sorted or un-formatted"}}}
	f := &Fixer{Env: []string{"PATH=" + bin + ":/usr/bin:/bin"}}
	res, err := f.Fix(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if res.PatchedContent != "import sys\n\nprint(sys.argv)\n" || res.ConfidenceScore != 0.9 || res.FixReason != "apply ruff's own fix" {
		t.Errorf("result %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "app.py")); string(b) != src {
		t.Errorf("the file was not restored:\n%s", b)
	}
	// Without the tool installed, the row is skipped.
	f = &Fixer{Env: []string{"PATH=" + t.TempDir()}}
	if _, err := f.Fix(context.Background(), in); !errors.Is(err, results.ErrNoFix) {
		t.Errorf("without ruff: err = %v, want ErrNoFix", err)
	}
}
