//go:build unix

package toolrun_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/toolrun"
)

// nlink returns the link count of path.
func nlink(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return uint64(fi.Sys().(*syscall.Stat_t).Nlink)
}

// TestHardLinkOutsideIsUnsafe: a tool that replaces files of the tree by
// hard links to files outside it (in scope, out of scope, and new) fails
// the run with exit_code -5; each link is replaced by a fresh copy of the
// pre-run file or removed, and salve never writes into the outside files.
// On main the in-scope link was kept as an ordinary edit (the run
// succeeded), and the out-of-scope one was reverted by writing the
// pre-run content through it, into the outside file.
func TestHardLinkOutsideIsUnsafe(t *testing.T) {
	root := newWorkTree(t)
	outside := t.TempDir()
	victims := map[string]string{"in.txt": "outside in\n", "out.txt": "outside out\n", "new.txt": "outside new\n"}
	writeTree(t, outside, victims)
	req := aiderRequest(t, root, []string{"src/app.py", "src/new.py"},
		"delete src/app.py",
		"hardlink "+filepath.Join(outside, "in.txt")+" src/app.py",
		"delete README.md",
		"hardlink "+filepath.Join(outside, "out.txt")+" README.md",
		"hardlink "+filepath.Join(outside, "new.txt")+" src/new.py")
	out := runWithin(t, newAdapter(t), req)
	if out.Result.ExitCode != toolrun.ExitUnsafeChange || out.Result.Success {
		t.Errorf("result %+v, want exit_code %d", out.Result, toolrun.ExitUnsafeChange)
	}
	for name, want := range victims {
		if got := readFile(t, filepath.Join(outside, name)); got != want {
			t.Errorf("outside %s = %q, want %q: salve wrote through the link", name, got, want)
		}
	}
	for _, p := range []string{"src/app.py", "README.md"} {
		full := filepath.Join(root, p)
		wantRegular(t, full, baseTree[p])
		if n := nlink(t, full); n != 1 {
			t.Errorf("%s has %d names after the run", p, n)
		}
		if !hasEvent(out.Record, contract.LevelError, "The tool made "+p+" a hard link") {
			t.Errorf("no ERROR event names %s: %+v", p, out.Record.Events)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, "src/new.py")); err == nil {
		t.Errorf("the new hard link src/new.py was kept")
	}
	for _, p := range toolrun.FilesChanged(out.Record.Patches) {
		t.Errorf("%s kept as a change", p)
	}
}

// TestHardLinkSameContentIsUnsafe: a link to an outside file whose
// content equals the file it replaced is no content change at all, and is
// caught all the same. On main nothing was reported.
func TestHardLinkSameContentIsUnsafe(t *testing.T) {
	root := newWorkTree(t)
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"twin.py": baseTree["src/app.py"]})
	req := aiderRequest(t, root, []string{"src/app.py"},
		"delete src/app.py", "hardlink "+filepath.Join(outside, "twin.py")+" src/app.py")
	out := runWithin(t, newAdapter(t), req)
	if out.Result.ExitCode != toolrun.ExitUnsafeChange {
		t.Errorf("result %+v, want exit_code %d", out.Result, toolrun.ExitUnsafeChange)
	}
	if n := nlink(t, filepath.Join(root, "src/app.py")); n != 1 {
		t.Errorf("src/app.py has %d names after the run", n)
	}
}

// TestHardLinkInsideTreeIsKept: two names for one file, both in the
// tree, send no write outside: an in-scope one is an ordinary change. It
// guards the hard-link check against over-reporting, and passes on main
// too (main had no such check).
func TestHardLinkInsideTreeIsKept(t *testing.T) {
	root := newWorkTree(t)
	req := aiderRequest(t, root, []string{"src/copy.py"}, "hardlink src/util.py src/copy.py")
	out := runWithin(t, newAdapter(t), req)
	if out.Result.ExitCode != 0 || out.Record.Status != contract.RunSucceeded {
		t.Errorf("result %+v status %s events %+v", out.Result, out.Record.Status, out.Record.Events)
	}
	wantRegular(t, filepath.Join(root, "src/copy.py"), baseTree["src/util.py"])
}

// TestUsersOwnHardLinkIsRestoredInPlace: a file that already had a second
// name outside the tree before the run (the user's own link) and that the
// tool edits out of scope is put back in place, so both names hold the
// pre-run content again and stay one file; it is a scope violation, not
// an unsafe change. It guards the rename-over reverts against breaking
// the user's links, and passes on main too (main wrote in place).
func TestUsersOwnHardLinkIsRestoredInPlace(t *testing.T) {
	root := newWorkTree(t)
	other := filepath.Join(t.TempDir(), "readme-copy.md")
	if err := os.Link(filepath.Join(root, "README.md"), other); err != nil {
		t.Fatal(err)
	}
	req := aiderRequest(t, root, []string{"src/app.py"}, "write README.md changed")
	out := runWithin(t, newAdapter(t), req)
	if out.Result.ExitCode != 0 || out.Record.Status != contract.RunScopeViolated {
		t.Errorf("result %+v status %s", out.Result, out.Record.Status)
	}
	wantRegular(t, filepath.Join(root, "README.md"), baseTree["README.md"])
	if got := readFile(t, other); got != baseTree["README.md"] {
		t.Errorf("the user's other name holds %q", got)
	}
	if n := nlink(t, other); n != 2 {
		t.Errorf("the user's link was broken: %d names", n)
	}
}
