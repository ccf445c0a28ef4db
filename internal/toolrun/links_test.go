package toolrun_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/toolrun"
)

// linkTree makes a work tree with links to a folder outside it: out.txt
// (a file), outdir (a folder) and dangling (a file that does not exist
// yet). It returns the root and the outside folder.
func linkTree(t *testing.T) (root, outside string) {
	t.Helper()
	root = newWorkTree(t)
	outside = t.TempDir()
	writeTree(t, outside, map[string]string{"secret.txt": "outside file\n", "dir/keep.txt": "keep\n"})
	for link, target := range map[string]string{
		"out.txt":  filepath.Join(outside, "secret.txt"),
		"outdir":   filepath.Join(outside, "dir"),
		"dangling": filepath.Join(outside, "made-by-tool.txt"),
		"src/lib":  filepath.Join(outside, "dir"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func TestScopeEntryLinkingOutIsRefused(t *testing.T) {
	for _, scope := range [][]string{{"out.txt"}, {"src/lib/x.py"}, {"outdir/**/*.py"}, {"dangling"}} {
		t.Run(strings.Join(scope, ","), func(t *testing.T) {
			root, outside := linkTree(t)
			req := aiderRequest(t, root, scope, "write "+scope[0]+" pwned")
			out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
			if out.Result.ExitCode != contract.ExitRejected || !strings.Contains(out.Result.Stderr, "leads out of the work tree") {
				t.Fatalf("result %+v", out.Result)
			}
			if got := readFile(t, filepath.Join(outside, "secret.txt")); got != "outside file\n" {
				t.Errorf("outside file written: %q", got)
			}
			if _, err := os.Stat(filepath.Join(outside, "made-by-tool.txt")); err == nil {
				t.Errorf("file created outside")
			}
		})
	}
}

func TestWritesThroughLinksAreCaught(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		check func(t *testing.T, root, outside string)
	}{
		{"file written through an out-of-scope link", []string{"write out.txt pwned"}, func(t *testing.T, _, outside string) {
			if got := readFile(t, filepath.Join(outside, "secret.txt")); got != "outside file\n" {
				t.Errorf("outside file = %q", got)
			}
		}},
		{"file created through a link to a folder", []string{"write outdir/planted.sh x", "append outdir/keep.txt more"}, func(t *testing.T, _, outside string) {
			if _, err := os.Lstat(filepath.Join(outside, "dir/planted.sh")); err == nil {
				t.Errorf("planted file left outside")
			}
		}},
		{"file created through a dangling link", []string{"write dangling x"}, func(t *testing.T, _, outside string) {
			if _, err := os.Lstat(filepath.Join(outside, "made-by-tool.txt")); err == nil {
				t.Errorf("file created outside left")
			}
		}},
		{"in-scope file replaced by a link out", []string{"delete src/app.py", "symlink /etc/passwd src/app.py"}, func(t *testing.T, root, _ string) {
			st, err := os.Lstat(filepath.Join(root, "src/app.py"))
			if err != nil || !st.Mode().IsRegular() || readFile(t, filepath.Join(root, "src/app.py")) != baseTree["src/app.py"] {
				t.Errorf("src/app.py not restored: %v %v", st, err)
			}
		}},
		{"in-scope folder replaced by a link out", []string{"rmtree src", "symlink OUTSIDE src"}, func(t *testing.T, root, outside string) {
			// The deletions of the scope's files are kept; the link is not.
			st, err := os.Lstat(filepath.Join(root, "src"))
			if err != nil || !st.IsDir() {
				t.Errorf("src is not a folder again: %v %v", st, err)
			}
			if ents, _ := os.ReadDir(filepath.Join(outside, "dir")); len(ents) != 1 {
				t.Errorf("outside folder changed: %v", ents)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, outside := linkTree(t)
			var lines []string
			for _, l := range tc.lines {
				lines = append(lines, strings.ReplaceAll(l, "OUTSIDE", outside))
			}
			req := aiderRequest(t, root, []string{"src/app.py", "src/util.py"}, lines...)
			out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
			if out.Result.ExitCode != toolrun.ExitUnsafeChange || out.Record.Status != contract.RunScopeViolated {
				t.Fatalf("result %+v status %s", out.Result, out.Record.Status)
			}
			errs := 0
			for _, ev := range out.Record.Events {
				if ev.Level == contract.LevelError && (strings.Contains(ev.Message, "outside the work tree") || strings.Contains(ev.Message, "link out of the work tree")) {
					errs++
				}
			}
			if errs == 0 {
				t.Errorf("no ERROR event: %+v", out.Record.Events)
			}
			tc.check(t, root, outside)
			if got := readFile(t, filepath.Join(outside, "dir/keep.txt")); got != "keep\n" && tc.name != "file created through a link to a folder" {
				t.Errorf("keep.txt = %q", got)
			}
		})
	}
}

// TestLinkInsideTreeIsKept: a link the tool makes inside the tree, in
// scope, is a normal change.
func TestLinkInsideTreeIsKept(t *testing.T) {
	root := newWorkTree(t)
	req := aiderRequest(t, root, []string{"src/alias.py"}, "symlink app.py src/alias.py")
	out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Result.ExitCode != 0 || out.Record.Status != contract.RunSucceeded {
		t.Fatalf("result %+v status %s", out.Result, out.Record.Status)
	}
	if target, err := os.Readlink(filepath.Join(root, "src/alias.py")); err != nil || target != "app.py" {
		t.Errorf("link %q %v", target, err)
	}
}
