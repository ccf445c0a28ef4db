package history

import (
	"errors"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/internal/heal"
)

func TestParseDiff(t *testing.T) {
	d := `commit 0123456789abcdef
Author: A <a@example.com>

    rename things
    diff --git a/not b/a-file

diff --git "a/dir/sp\303\251cial name.go" "b/dir/sp\303\251cial name.go"
index 1..2 100644
--- "a/dir/sp\303\251cial name.go"
+++ "b/dir/sp\303\251cial name.go"
@@ -1,2 +1,2 @@ package x
-old
+new
 same
\ No newline at end of file
diff --git a/gone.c b/gone.c
deleted file mode 100644
--- a/gone.c
+++ /dev/null
@@ -1 +0,0 @@
-int x;
diff --git a/img.png b/img.png
Binary files a/img.png and b/img.png differ
--- ../../etc/passwd
+++ /abs/path
@@ -3 +3 @@
-a
+b
`
	files, err := ParseDiff(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("%d files: %+v", len(files), files)
	}
	f := files[0]
	if f.OldPath != "dir/spécial name.go" || f.NewPath != f.OldPath || len(f.Hunks) != 1 {
		t.Errorf("file 0: %+v", f)
	}
	h := f.Hunks[0]
	if h.OldStart != 1 || h.OldLines != 2 || len(h.Lines) != 3 || h.Lines[0] != (Line{Op: Removed, Text: "old"}) || h.Lines[2].Op != Context {
		t.Errorf("hunk: %+v", h)
	}
	if files[1].Path() != "gone.c" || files[1].NewPath != "" || files[1].Hunks[0].NewLines != 0 {
		t.Errorf("deleted file: %+v", files[1])
	}
	// The binary file's entry takes the "---" and "+++" that follow it,
	// whose paths are not clean.
	if files[2].OldPath != "" || files[2].NewPath != "" || len(files[2].Hunks) != 1 {
		t.Errorf("paths that are not clean must be dropped: %+v", files[2])
	}
}

// TestParseDiffCombined: a merge's combined diff (git show of a merge)
// is no unified diff; it gives files without hunks, not an error.
func TestParseDiffCombined(t *testing.T) {
	d := "diff --cc a.go\nindex 1,2..3\n--- a/a.go\n+++ b/a.go\n@@@ -1,2 -1,2 +1,2 @@@\n- a\n -b\n++c\n"
	files, err := ParseDiff(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || len(files[0].Hunks) != 0 {
		t.Errorf("files = %+v", files)
	}
}

func TestParseDiffLongLine(t *testing.T) {
	long := strings.Repeat("é", MaxLineBytes)
	files, err := ParseDiff("--- a/x.js\n+++ b/x.js\n@@ -1 +1 @@\n-" + long + "\n+y\n")
	if err != nil {
		t.Fatal(err)
	}
	l := files[0].Hunks[0].Lines[0]
	if !l.Cut || len(l.Text) > MaxLineBytes || !strings.HasPrefix(long, l.Text) {
		t.Errorf("long line: cut %v, %d bytes", l.Cut, len(l.Text))
	}
}

func TestParseDiffRejects(t *testing.T) {
	for name, d := range map[string]string{
		"short hunk":        "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n",
		"long hunk":         "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n",
		"hunk without file": "@@ -1 +1 @@\n-a\n+b\n",
		"bad hunk line":     "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n*b\n",
		"huge counts":       "--- a/x\n+++ b/x\n@@ -1,99999999999 +1 @@\n",
		"bad header":        "--- a/x\n+++ b/x\n@@ -x +1 @@\n",
		"too large":         strings.Repeat("x", MaxDiffBytes+1),
		"too many files":    strings.Repeat("diff --git a/x b/x\n", MaxFiles+1),
	} {
		if _, err := ParseDiff(d); !errors.Is(err, ErrDiff) {
			t.Errorf("%s: err = %v, want ErrDiff", name, err)
		}
	}
}

func TestDiffPath(t *testing.T) {
	for in, want := range map[string]string{
		"a/x/y.go":                       "x/y.go",
		"a/x.go\t2024-01-01 10:00":       "x.go",
		`"a/t\tab.go"`:                   "t\tab.go",
		"/dev/null":                      "",
		"a/../x":                         "",
		"a/x/./y":                        "",
		`"a/bad`:                         "",
		"a/" + strings.Repeat("x", 5000): "",
	} {
		if got := diffPath(in, "a/"); got != want {
			t.Errorf("diffPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAnalyzeBounded: a diff built to make the analysis pair every line
// with every other stops at its work bound and says so; the tier then
// declines.
func TestAnalyzeBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an 8 MiB diff")
	}
	var b strings.Builder
	b.WriteString("--- a/x.go\n+++ b/x.go\n")
	blk := "@@ -1,16 +1,16 @@\n" + strings.Repeat("-f(f(f(f(f(a, b)))))\n", 16) + strings.Repeat("+f(f(f(f(f(a, b, c)))))\n", 16)
	for b.Len() < MaxDiffBytes-len(blk) {
		b.WriteString(blk)
	}
	files, err := ParseDiff(b.String())
	if err != nil {
		t.Fatal(err)
	}
	ev := Analyze(files, "a.go")
	if !ev.Truncated {
		t.Fatal("the analysis read the whole pathological diff")
	}
	_, err = Plan(heal.FixInput{Path: "a.go", Content: "f(a)\n"}, ev)
	if !errors.Is(err, results.ErrNoFix) || !strings.Contains(err.Error(), "too large") {
		t.Errorf("err = %v", err)
	}
}
