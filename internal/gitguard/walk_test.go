package gitguard

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
)

// walked returns what WalkGitDir passes to fn: folders with a trailing
// slash.
func walked(t *testing.T, dir string, o WalkOptions) []string {
	t.Helper()
	var got []string
	err := WalkGitDir(dir, o, func(p, rel string, d fs.DirEntry) error {
		if p != filepath.Join(dir, filepath.FromSlash(rel)) {
			t.Errorf("path %s for %s", p, rel)
		}
		if d.IsDir() {
			rel += "/"
		}
		got = append(got, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	return got
}

// TestWalkGitDir: the walk passes every folder and every guarded entry,
// never enters a data folder (LFS and git-annex content included, at any
// depth), and enters worktrees/ unless told not to.
func TestWalkGitDir(t *testing.T) {
	ws := repo(t)
	dotGit := filepath.Join(ws, ".git")
	write(t, filepath.Join(dotGit, "annex", "journal", "config"), "data", 0o444)
	write(t, filepath.Join(dotGit, "lfs", "tmp", "hooks", "y"), "data", 0o444)
	write(t, filepath.Join(dotGit, "modules", "sub", "annex", "config"), "data", 0o444)
	write(t, filepath.Join(dotGit, "refs", "heads", "main"), "abc\n", 0o644)
	write(t, filepath.Join(dotGit, "logs", "HEAD"), "log\n", 0o644)
	write(t, filepath.Join(dotGit, "worktrees", "w", "commondir"), "../..\n", 0o644)
	write(t, filepath.Join(dotGit, "packed-refs"), "", 0o644)
	want := []string{
		"config", "hooks/", "hooks/pre-commit.sample", "info/", "info/exclude",
		"modules/", "modules/sub/", "modules/sub/config",
		"worktrees/", "worktrees/w/", "worktrees/w/commondir",
	}
	if got := walked(t, dotGit, WalkOptions{Strict: true}); !slices.Equal(got, want) {
		t.Errorf("walk = %q, want %q", got, want)
	}
	want = slices.DeleteFunc(want, func(s string) bool { return s[0] == 'w' })
	if got := walked(t, dotGit, WalkOptions{SkipWorktrees: true}); !slices.Equal(got, want) {
		t.Errorf("walk without worktrees = %q, want %q", got, want)
	}
	for _, name := range []string{"objects", "refs", "logs", "lfs", "annex"} {
		if !DataDir(name) {
			t.Errorf("DataDir(%q) = false", name)
		}
	}
	err := WalkGitDir(dotGit, WalkOptions{MaxEntries: 3}, func(string, string, fs.DirEntry) error { return nil })
	if !errors.Is(err, ErrTooMany) {
		t.Errorf("over the bound: %v", err)
	}
}

// TestWalkGitDirStrict: an unreadable folder fails a strict walk and is
// passed over otherwise.
func TestWalkGitDirStrict(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder")
	}
	ws := repo(t)
	hooks := filepath.Join(ws, ".git", "hooks")
	if err := os.Chmod(hooks, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(hooks, 0o755) })
	nop := func(string, string, fs.DirEntry) error { return nil }
	if err := WalkGitDir(filepath.Join(ws, ".git"), WalkOptions{Strict: true}, nop); err == nil {
		t.Error("strict walk passed over an unreadable folder")
	}
	if err := WalkGitDir(filepath.Join(ws, ".git"), WalkOptions{}, nop); err != nil {
		t.Errorf("lenient walk: %v", err)
	}
}

// TestFindEntriesSkip: by default the search passes over dependency and
// tool caches; a caller's own Skip replaces that list.
func TestFindEntriesSkip(t *testing.T) {
	ws := repo(t)
	write(t, filepath.Join(ws, ".gradle", "x", ".git", "HEAD"), "x\n", 0o644)
	write(t, filepath.Join(ws, "node_modules", "y", ".git"), "gitdir: z\n", 0o644)
	got, err := FindEntries(ws, FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(ws, ".git"), filepath.Join(ws, "sub", ".git")}; !slices.Equal(got, want) {
		t.Errorf("FindEntries = %q, want %q", got, want)
	}
	got, err = FindEntries(ws, FindOptions{Skip: func(name string) bool { return name == "node_modules" }})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(ws, ".git"), filepath.Join(ws, ".gradle", "x", ".git"), filepath.Join(ws, "sub", ".git")}; !slices.Equal(got, want) {
		t.Errorf("FindEntries with Skip = %q, want %q", got, want)
	}
}

// TestFindFolder finds a moved git directory by identity, in a
// dependency folder too, and stops at its bound.
func TestFindFolder(t *testing.T) {
	ws := repo(t)
	dotGit := filepath.Join(ws, ".git")
	fi, err := os.Lstat(dotGit)
	if err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(ws, "node_modules", "x", "moved")
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dotGit, moved); err != nil {
		t.Fatal(err)
	}
	if got := FindFolder(ws, fi, 0); got != moved {
		t.Errorf("FindFolder = %q, want %q", got, moved)
	}
	if got := FindFolder(ws, fi, 1); got != "" {
		t.Errorf("FindFolder past its bound = %q", got)
	}
}

func TestGlobalConfig(t *testing.T) {
	got := GlobalConfig("/home/u", "/xdg")
	want := []string{"/etc/gitconfig", "/home/u/.gitconfig", "/home/u/.config/git/config", "/xdg/git/config"}
	if !slices.Equal(got, want) {
		t.Errorf("GlobalConfig = %q, want %q", got, want)
	}
	if got := GlobalConfig("", "relative"); !slices.Equal(got, []string{"/etc/gitconfig"}) {
		t.Errorf("GlobalConfig without a home = %q", got)
	}
}
