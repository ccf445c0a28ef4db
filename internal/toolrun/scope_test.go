package toolrun_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/toolrun"
)

func TestScopeViolationsAreReverted(t *testing.T) {
	root := newWorkTree(t)
	if err := os.Chmod(filepath.Join(root, "docs/x.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	req := aiderRequest(t, root, []string{"src/app.py"},
		"write src/app.py def main():\\n    return 2",
		"append README.md sneaky edit",
		"write new/deep/file.txt created out of scope",
		"delete src/util.py",
		"chmod docs/x.md 755")
	out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Result.ExitCode != 0 {
		t.Fatalf("result %+v", out.Result)
	}
	rec := out.Record
	if rec.Status != contract.RunScopeViolated {
		t.Errorf("status %q", rec.Status)
	}
	wantViolations := []string{"README.md", "docs/x.md", "new/deep/file.txt", "src/util.py"}
	if strings.Join(rec.ScopeViolations, ",") != strings.Join(wantViolations, ",") {
		t.Errorf("violations %v want %v", rec.ScopeViolations, wantViolations)
	}
	// The tree is back to its pre-run state outside the scope.
	for p, want := range baseTree {
		if p == "src/app.py" {
			want = "def main():\n    return 2\n"
		}
		if got := readFile(t, filepath.Join(root, p)); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	if st, err := os.Stat(filepath.Join(root, "docs/x.md")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode of docs/x.md not restored: %v %v", st.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(root, "new")); !os.IsNotExist(err) {
		t.Errorf("folders created out of scope are left: %v", err)
	}
	// git agrees: only the in-scope file differs from the commit.
	if status := git(t, root, "status", "--porcelain", "--untracked-files=all", "--", ".", ":!.aider*"); status != " M src/app.py\n" {
		t.Errorf("git status %q", status)
	}
	var reverted []string
	for _, p := range rec.Patches {
		if !p.InScope {
			if !p.Reverted || p.Diff == "" {
				t.Errorf("out-of-scope patch %+v", p)
			}
			reverted = append(reverted, p.Operation+" "+p.FilePath)
		}
	}
	sort.Strings(reverted)
	if want := "create new/deep/file.txt,delete src/util.py,edit README.md,edit docs/x.md"; strings.Join(reverted, ",") != want {
		t.Errorf("reverted patches %v", reverted)
	}
	errorEvents := 0
	for _, ev := range rec.Events {
		if ev.Level == contract.LevelError && strings.HasPrefix(ev.Message, "Reverted out-of-scope") {
			errorEvents++
			if ev.Context["file_path"] == nil || ev.Context["patch_id"] == nil {
				t.Errorf("revert event without file/patch: %+v", ev)
			}
		}
	}
	if errorEvents != 4 {
		t.Errorf("%d revert ERROR events, want 4", errorEvents)
	}
	if got := toolrun.FilesChanged(rec.Patches); strings.Join(got, ",") != "src/app.py" {
		t.Errorf("files changed %v", got)
	}
}

func TestScopeFromContextAndFolders(t *testing.T) {
	root := newWorkTree(t)
	// A folder entry lets the tool create files under it.
	req := aiderRequest(t, root, []string{"src"}, "write src/new.py x = 1", "write docs/y.md no")
	out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
	if strings.Join(out.Record.ScopeViolations, ",") != "docs/y.md" || strings.Join(toolrun.FilesChanged(out.Record.Patches), ",") != "src/new.py" {
		t.Errorf("violations %v patches %+v", out.Record.ScopeViolations, out.Record.Patches)
	}
	// A glob entry.
	req = aiderRequest(t, root, []string{"**/*.md"}, "append docs/x.md more", "append src/util.py no")
	out = newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
	if strings.Join(out.Record.ScopeViolations, ",") != "src/util.py" {
		t.Errorf("glob scope: violations %v", out.Record.ScopeViolations)
	}
	// No scope at all: every change is reverted.
	req = aiderRequest(t, root, nil, "append README.md no")
	out = newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Record.Status != contract.RunScopeViolated || readFile(t, filepath.Join(root, "README.md")) != "# demo\n" {
		t.Errorf("empty scope: %s %q", out.Record.Status, readFile(t, filepath.Join(root, "README.md")))
	}
}

func TestRevertDoesNotFollowPlantedLinks(t *testing.T) {
	root := newWorkTree(t)
	outside := t.TempDir()
	// The tool replaces docs/ with a link to a folder outside the tree.
	req := aiderRequest(t, root, []string{"src/app.py"}, "rmtree docs", "symlink "+outside+" docs")
	out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Record.Status != contract.RunScopeViolated {
		t.Fatalf("status %s", out.Record.Status)
	}
	entries, err := os.ReadDir(outside)
	if err != nil || len(entries) != 0 {
		t.Errorf("revert wrote outside the tree: %v %v", entries, err)
	}
	st, err := os.Lstat(filepath.Join(root, "docs"))
	if err != nil || !st.IsDir() || readFile(t, filepath.Join(root, "docs/x.md")) != "docs\n" {
		t.Errorf("docs not restored as a folder: %v %v", st, err)
	}
}

func TestPatchesApplyWithGit(t *testing.T) {
	root := newWorkTree(t)
	pre := t.TempDir()
	git(t, pre, "clone", "-q", root, "tree")
	clone := filepath.Join(pre, "tree")
	writeTree(t, root, map[string]string{"src/noeol.py": "no newline"})
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "noeol")
	git(t, clone, "pull", "-q")
	scope := []string{"src/app.py", "src/util.py", "src/noeol.py", "src/bin.dat", "src/new dir/tab\there.py", "src/link", "src/run.sh", `src/q"uote.py`}
	req := aiderRequest(t, root, scope,
		"write src/app.py def main():\\n    return 2\\n\\n\\nprint(main())",
		"delete src/util.py",
		"append src/noeol.py  and now one",
		"write src/bin.dat \\0\\0binary\\0data",
		"write src/new\\sdir/tab\\there.py x = 1",
		"symlink app.py src/link",
		"write src/run.sh #!/bin/sh",
		"chmod src/run.sh 755",
		`write src/q"uote.py q = 1`)
	out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Result.ExitCode != 0 || out.Record.Status != contract.RunSucceeded {
		t.Fatalf("result %+v status %s events %+v", out.Result, out.Record.Status, out.Record.Events)
	}
	if len(out.Record.Patches) != len(scope) {
		t.Fatalf("%d patches, want %d: %+v", len(out.Record.Patches), len(scope), out.Record.Patches)
	}
	var all strings.Builder
	for _, p := range out.Record.Patches {
		if p.Diff == "" {
			t.Errorf("patch of %s has no diff", p.FilePath)
		}
		// Each patch applies on its own to the pre-run tree.
		if code, msg := gitStatus(t, clone, p.Diff, "apply", "--check", "-"); code != 0 {
			t.Errorf("git apply --check rejects the patch of %s: %s\n%s", p.FilePath, msg, p.Diff)
		}
		all.WriteString(p.Diff)
	}
	if code, msg := gitStatus(t, clone, all.String(), "apply", "-"); code != 0 {
		t.Fatalf("git apply: %s", msg)
	}
	// The clone now matches the work tree.
	git(t, clone, "add", "-A")
	git(t, root, "add", "-A", "--", ".", ":!.aider*")
	if a, b := git(t, clone, "write-tree"), git(t, root, "write-tree"); a != b {
		t.Errorf("trees differ after git apply: %s vs %s", a, b)
	}
}

// TestSymlinkedCwd runs in a work tree reached through a symbolic link:
// changes are still seen and out-of-scope ones reverted.
func TestSymlinkedCwd(t *testing.T) {
	root := newWorkTree(t)
	link := filepath.Join(t.TempDir(), "tree")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	req := aiderRequest(t, link, []string{"src/app.py"}, "write src/app.py x = 5", "append README.md no")
	out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Record.Status != contract.RunScopeViolated || len(out.Record.Patches) != 2 {
		t.Fatalf("status %s patches %+v", out.Record.Status, out.Record.Patches)
	}
	if got := readFile(t, filepath.Join(root, "README.md")); got != baseTree["README.md"] {
		t.Errorf("README.md not reverted through the link: %q", got)
	}
}
