package toolrun_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/toolrun"
)

// gitState fingerprints a git directory except its object store: every
// file's path, mode and content (links by target). Two equal states mean
// the guard put everything back byte for byte.
func gitState(t *testing.T, gitDir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(gitDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(gitDir, p)
		if d.IsDir() && (d.Name() == "objects" || d.Name() == "logs") {
			return filepath.SkipDir
		}
		// git rewrites the index on its own (stat refresh); it runs nothing.
		if rel == "index" {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			lines = append(lines, fmt.Sprintf("%s link %s", rel, target))
		case fi.IsDir():
			lines = append(lines, fmt.Sprintf("%s dir %v", rel, fi.Mode().Perm()))
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			lines = append(lines, fmt.Sprintf("%s %v %x", rel, fi.Mode(), sha256.Sum256(b)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// plantMarker returns a shell command that creates a marker file, and the
// marker's path: the planted hooks and fsmonitor of the tests run it, so
// the marker's absence proves nothing planted ran.
func plantMarker(t *testing.T) (cmd, marker string) {
	marker = filepath.Join(t.TempDir(), "PLANTED-RAN")
	return "touch " + marker, marker
}

// esc escapes spaces for the fake's directives.
func esc(s string) string { return strings.ReplaceAll(s, " ", `\s`) }

// userGit runs what a user runs next in the work tree: status, diff and a
// commit, which run fsmonitor, filters, pagers and hooks.
func userGit(t *testing.T, root string) {
	t.Helper()
	gitStatus(t, root, "", "status")
	gitStatus(t, root, "", "diff")
	gitStatus(t, root, "", "commit", "-q", "--allow-empty", "-m", "user commit")
	gitStatus(t, root, "", "checkout", "-q", "-b", "user-branch")
}

func TestGitTamperingIsRevertedAndFails(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines func(cmd, root string) []string
	}{
		{"hook written", func(cmd, _ string) []string {
			return []string{
				"write .git/hooks/pre-commit #!/bin/sh\\n" + esc(cmd),
				"chmod .git/hooks/pre-commit 755",
				"write .git/hooks/post-checkout #!/bin/sh\\n" + esc(cmd),
				"chmod .git/hooks/post-checkout 755",
			}
		}},
		{"fsmonitor by git config", func(cmd, _ string) []string {
			return []string{"git config core.fsmonitor " + esc(cmd+"; false")}
		}},
		{"pager, diff and filter config", func(cmd, _ string) []string {
			return []string{
				"git config core.pager " + esc(cmd+"; cat"),
				"git config diff.external " + esc(cmd),
				"git config filter.x.clean " + esc(cmd+"; cat"),
				"write .git/info/attributes *\\sfilter=x",
			}
		}},
		{"hooksPath into the tree", func(cmd, _ string) []string {
			return []string{
				"git config core.hooksPath evilhooks",
				"write evilhooks/pre-commit #!/bin/sh\\n" + esc(cmd),
				"chmod evilhooks/pre-commit 755",
			}
		}},
		{"hooks folder replaced by a link", func(cmd, root string) []string {
			return []string{
				"write ../evil-hooks/pre-commit #!/bin/sh\\n" + esc(cmd),
				"chmod ../evil-hooks/pre-commit 755",
				"rmtree .git/hooks",
				"symlink " + filepath.Join(filepath.Dir(root), "evil-hooks") + " .git/hooks",
			}
		}},
		{".git moved and replaced by a gitdir file", func(cmd, _ string) []string {
			return []string{
				"rename .git .git-moved",
				"git --git-dir=.git-moved config core.fsmonitor " + esc(cmd+"; false"),
				"write .git gitdir:\\s.git-moved",
			}
		}},
		{".git moved deep into the tree", func(cmd, _ string) []string {
			// If the scope check walked the moved repository, it would
			// remove its objects as files created out of scope.
			return []string{
				"write sub/deep/x y",
				"rename .git sub/deep/moved",
				"git --git-dir=sub/deep/moved config core.fsmonitor " + esc(cmd+"; false"),
				"write .git gitdir:\\ssub/deep/moved",
			}
		}},
		{".git moved into node_modules", func(cmd, _ string) []string {
			return []string{
				"write node_modules/x/index.js y",
				"rename .git node_modules/x/moved",
				"write .git gitdir:\\snode_modules/x/moved",
			}
		}},
		{"config replaced by a folder", func(cmd, _ string) []string {
			return []string{"delete .git/config", "write .git/config/x y"}
		}},
		{"nested repository created", func(cmd, _ string) []string {
			return []string{"git init -q sub", "git -C sub config core.fsmonitor " + esc(cmd+"; false"), "write sub/a.py x"}
		}},
		{"rebase todo planted", func(cmd, _ string) []string {
			return []string{"write .git/rebase-merge/git-rebase-todo exec\\s" + esc(cmd)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			root := filepath.Join(base, "repo")
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			writeTree(t, root, baseTree)
			git(t, root, "init", "-q", "-b", "main")
			git(t, root, "add", "-A")
			git(t, root, "commit", "-q", "-m", "base")
			pre := gitState(t, filepath.Join(root, ".git"))
			cmd, marker := plantMarker(t)
			req := aiderRequest(t, root, []string{"src/app.py"},
				append([]string{"write src/app.py x = 2"}, tc.lines(cmd, root)...)...)
			a := newAdapter(t)
			a.Env = sandbox.MergeEnv(a.Env, map[string]string{"HOME": t.TempDir(), "GIT_CONFIG_NOSYSTEM": "1"})
			out := a.RunAider(context.Background(), req, toolrun.RunOptions{})
			if out.Result.ExitCode != toolrun.ExitUnsafeChange || out.Result.Succeeded() || !strings.Contains(out.Result.Stderr, "unsafe changes") {
				t.Fatalf("result %+v", out.Result)
			}
			if out.Record.Status != contract.RunScopeViolated {
				t.Errorf("status %s", out.Record.Status)
			}
			found := false
			for _, ev := range out.Record.Events {
				if ev.Level == contract.LevelError && strings.Contains(ev.Message, "which git could use to run a program; reverted") {
					found = true
				}
				if strings.Contains(ev.Message, "NOT reverted") {
					t.Errorf("event %s", ev.Message)
				}
			}
			if !found {
				t.Errorf("no ERROR event for the git change: %+v", out.Record.Events)
			}
			if got := gitState(t, filepath.Join(root, ".git")); got != pre {
				t.Errorf("git directory not restored:\nbefore:\n%s\nafter:\n%s", pre, got)
			}
			// The in-scope edit is kept.
			if readFile(t, filepath.Join(root, "src/app.py")) != "x = 2\n" {
				t.Errorf("in-scope edit lost")
			}
			if st := git(t, root, "status", "--porcelain", "--untracked-files=all", "--", ".", ":!.aider*"); st != " M src/app.py\n" {
				t.Errorf("git status %q", st)
			}
			userGit(t, root)
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("a planted command ran on the user's next git command")
			}
		})
	}
}

// TestGitWorktreeGuarded runs the tool in a linked worktree: its .git
// file and the worktree's admin folder (commondir, config.worktree) in the
// main repository are put back.
func TestGitWorktreeGuarded(t *testing.T) {
	main := newWorkTree(t)
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, main, "worktree", "add", "-q", "-b", "wt", wt)
	common := filepath.Join(main, ".git")
	admin := filepath.Join(common, "worktrees", "wt")
	preCommon := gitState(t, common)
	preDotGit := readFile(t, filepath.Join(wt, ".git"))
	cmd, marker := plantMarker(t)
	evil := filepath.Join(t.TempDir(), "evil")
	git(t, filepath.Dir(evil), "init", "-q", "--bare", evil)
	git(t, evil, "config", "core.fsmonitor", cmd+"; false")
	req := aiderRequest(t, wt, []string{"src/app.py"},
		"write src/app.py x = 3",
		"write "+filepath.Join(admin, "commondir")+" "+evil,
		"write "+filepath.Join(admin, "config.worktree")+" [core]\\n\\tfsmonitor\\s=\\s"+esc(cmd+"; false"),
		"git config extensions.worktreeConfig true",
		"write .git gitdir:\\s"+evil)
	a := newAdapter(t)
	a.Env = sandbox.MergeEnv(a.Env, map[string]string{"HOME": t.TempDir(), "GIT_CONFIG_NOSYSTEM": "1"})
	out := a.RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Result.ExitCode != toolrun.ExitUnsafeChange {
		t.Fatalf("result %+v", out.Result)
	}
	if got := readFile(t, filepath.Join(wt, ".git")); got != preDotGit {
		t.Errorf(".git file %q, want %q", got, preDotGit)
	}
	if got := gitState(t, common); got != preCommon {
		t.Errorf("common git directory not restored:\nbefore:\n%s\nafter:\n%s", preCommon, got)
	}
	userGit(t, wt)
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a planted command ran on the user's next git command")
	}
}

// TestGlobalGitConfigGuarded: the user's own ~/.gitconfig is put back too.
func TestGlobalGitConfigGuarded(t *testing.T) {
	root := newWorkTree(t)
	home := t.TempDir()
	pre := "[user]\n\tname = me\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(pre), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, _ := plantMarker(t)
	req := aiderRequest(t, root, []string{"src/app.py"},
		"git config --global core.fsmonitor "+esc(cmd+"; false"),
		"write "+filepath.Join(home, ".config/git/config")+" [core]\\n\\tpager\\s=\\s"+esc(cmd))
	a := newAdapter(t)
	a.Env = sandbox.MergeEnv(a.Env, map[string]string{"HOME": home})
	out := a.RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Result.ExitCode != toolrun.ExitUnsafeChange {
		t.Fatalf("result %+v", out.Result)
	}
	if got := readFile(t, filepath.Join(home, ".gitconfig")); got != pre {
		t.Errorf("~/.gitconfig = %q", got)
	}
	if _, err := os.Lstat(filepath.Join(home, ".config/git/config")); err == nil {
		t.Errorf("planted XDG git config left")
	}
}

// TestGitUntouchedRunSucceeds: a run that leaves git alone still succeeds
// (git's own index refresh is not a change the guard reports).
func TestGitUntouchedRunSucceeds(t *testing.T) {
	root := newWorkTree(t)
	req := aiderRequest(t, root, []string{"src/app.py"}, "write src/app.py x = 2", "git status --porcelain", "git diff")
	out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Result.ExitCode != 0 || out.Record.Status != contract.RunSucceeded {
		t.Fatalf("result %+v status %s events %+v", out.Result, out.Record.Status, out.Record.Events)
	}
}

// TestToolCommitIsReported: a commit by the tool moves HEAD, which runs
// nothing: a WARN event, not a failure.
func TestToolCommitIsReported(t *testing.T) {
	root := newWorkTree(t)
	req := aiderRequest(t, root, []string{"src/app.py"}, "write src/app.py x = 2", "git commit -q -am tool-commit")
	a := newAdapter(t)
	a.Env = sandbox.MergeEnv(a.Env, map[string]string{"HOME": t.TempDir(), "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "tool", "GIT_AUTHOR_EMAIL": "tool@example.invalid", "GIT_COMMITTER_NAME": "tool", "GIT_COMMITTER_EMAIL": "tool@example.invalid"})
	out := a.RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Result.ExitCode != 0 || out.Record.Status != contract.RunSucceeded {
		t.Fatalf("result %+v status %s", out.Result, out.Record.Status)
	}
	found := false
	for _, ev := range out.Record.Events {
		if ev.Level == contract.LevelWarn && strings.HasPrefix(ev.Message, "HEAD of .git moved (ref: refs/heads/main ") {
			found = true
		}
	}
	if !found {
		t.Errorf("no WARN event for the moved HEAD: %+v", out.Record.Events)
	}
}

// TestGitGuardAboveCwd: with cwd a folder inside the repository, the
// repository's own git directory (above the tree) is guarded too.
func TestGitGuardAboveCwd(t *testing.T) {
	repo := newWorkTree(t)
	cwd := filepath.Join(repo, "src")
	pre := gitState(t, filepath.Join(repo, ".git"))
	cmd, marker := plantMarker(t)
	req := aiderRequest(t, cwd, []string{"app.py"},
		"write app.py x = 2",
		"write ../.git/hooks/pre-commit #!/bin/sh\\n"+esc(cmd),
		"chmod ../.git/hooks/pre-commit 755",
		"git config core.fsmonitor "+esc(cmd+"; false"))
	a := newAdapter(t)
	a.Env = sandbox.MergeEnv(a.Env, map[string]string{"HOME": t.TempDir(), "GIT_CONFIG_NOSYSTEM": "1"})
	out := a.RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Result.ExitCode != toolrun.ExitUnsafeChange {
		t.Fatalf("result %+v", out.Result)
	}
	if got := gitState(t, filepath.Join(repo, ".git")); got != pre {
		t.Errorf("git directory not restored:\nbefore:\n%s\nafter:\n%s", pre, got)
	}
	userGit(t, repo)
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a planted command ran on the user's next git command")
	}
}

// TestGitDataFoldersNotGuarded: what a tool writes in a git directory's
// data folders (LFS and git-annex content here) runs nothing, even under a
// guarded name such as config: the guard, which never enters them, neither
// reports nor reverts it.
func TestGitDataFoldersNotGuarded(t *testing.T) {
	root := newWorkTree(t)
	req := aiderRequest(t, root, []string{"src/app.py"},
		"write src/app.py x = 2",
		"write .git/annex/journal/config data",
		"write .git/lfs/tmp/hooks/x data")
	out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Result.ExitCode != 0 || out.Record.Status != contract.RunSucceeded {
		t.Fatalf("result %+v status %s events %+v", out.Result, out.Record.Status, out.Record.Events)
	}
	if got := readFile(t, filepath.Join(root, ".git/annex/journal/config")); got != "data\n" {
		t.Errorf("annex content %q", got)
	}
}
