package gitguard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, p, content string, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// repo lays out a checkout without git: .git with a config, a hook
// sample, info/exclude and a submodule's git directory; the submodule's
// .git file; a source file.
func repo(t *testing.T) string {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main\n", 0o644)
	write(t, filepath.Join(ws, ".git", "config"), "[core]\n", 0o644)
	write(t, filepath.Join(ws, ".git", "hooks", "pre-commit.sample"), "#!/bin/sh\n", 0o755)
	write(t, filepath.Join(ws, ".git", "info", "exclude"), "*.o\n", 0o644)
	write(t, filepath.Join(ws, ".git", "objects", "ab", "cdef"), "blob", 0o444)
	write(t, filepath.Join(ws, ".git", "modules", "sub", "HEAD"), "ref: refs/heads/main\n", 0o644)
	write(t, filepath.Join(ws, ".git", "modules", "sub", "config"), "[core]\n", 0o644)
	write(t, filepath.Join(ws, "sub", ".git"), "gitdir: ../.git/modules/sub\n", 0o644)
	write(t, filepath.Join(ws, "main.go"), "package main\n", 0o644)
	return ws
}

func TestGuarded(t *testing.T) {
	for _, tc := range []struct {
		rel  string
		want bool
	}{
		{"config", true}, {"config.worktree", true}, {"hooks", true}, {"hooks/pre-commit", true},
		{"info/attributes", true}, {"modules/sub/config", true}, {"modules/sub/hooks/post-checkout", true},
		{"worktrees/w/gitdir", true}, {"worktrees/w/commondir", true}, {"rebase-merge/git-rebase-todo", true},
		{"HEAD", false}, {"index", false}, {"packed-refs", false}, {"description", false}, {"modules/sub", false},
	} {
		if got := Guarded(tc.rel); got != tc.want {
			t.Errorf("Guarded(%q) = %v, want %v", tc.rel, got, tc.want)
		}
	}
}

func TestReadOnlyPaths(t *testing.T) {
	ws := repo(t)
	write(t, filepath.Join(ws, "node_modules", "x", ".git", "HEAD"), "x\n", 0o644)
	got, err := ReadOnlyPaths(ws, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(ws, ".git"), filepath.Join(ws, "sub", ".git")}
	if !slices.Equal(got, want) {
		t.Errorf("ReadOnlyPaths = %q, want %q", got, want)
	}
	// A linked worktree: its .git file only, the git directory outside.
	wt := t.TempDir()
	write(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(ws, ".git", "modules", "sub")+"\n", 0o644)
	if got, _ := ReadOnlyPaths(wt, 0); !slices.Equal(got, []string{filepath.Join(wt, ".git")}) {
		t.Errorf("worktree: ReadOnlyPaths = %q", got)
	}
	// Too large a tree: root's own .git still comes back.
	for i := 0; i < 5; i++ {
		if err := os.MkdirAll(filepath.Join(ws, "d", strings.Repeat("x", i+1)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got, err = ReadOnlyPaths(ws, 3)
	if err == nil || !slices.Equal(got, []string{filepath.Join(ws, ".git")}) {
		t.Errorf("over the bound: %q, %v", got, err)
	}
}

// TestGuardRestores plants every kind of change the guard must undo, as a
// build with no sandbox could, and checks each is put back and reported.
func TestGuardRestores(t *testing.T) {
	ws := repo(t)
	home := t.TempDir()
	global := filepath.Join(home, ".gitconfig")
	write(t, global, "[user]\n", 0o644)
	g, err := New(ws, Options{Extra: []string{global}})
	if err != nil {
		t.Fatal(err)
	}
	before, err := g.Take()
	if err != nil {
		t.Fatal(err)
	}
	dotGit := filepath.Join(ws, ".git")
	write(t, filepath.Join(dotGit, "config"), "[core]\n\tfsmonitor = touch pwned\n", 0o644)
	write(t, filepath.Join(dotGit, "hooks", "pre-commit"), "#!/bin/sh\ntouch pwned\n", 0o755)
	if err := os.Chmod(filepath.Join(dotGit, "hooks", "pre-commit.sample"), 0o777); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dotGit, "info", "attributes"), "* filter=evil\n", 0o644)
	if err := os.Remove(filepath.Join(dotGit, "info", "exclude")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dotGit, "modules", "sub", "config"), "[core]\n\thooksPath = /tmp\n", 0o644)
	write(t, filepath.Join(ws, "sub", ".git"), "gitdir: ../evil\n", 0o644)
	write(t, filepath.Join(ws, "vendored", ".git", "config"), "[core]\n\tfsmonitor = x\n", 0o644)
	write(t, global, "[core]\n\tpager = evil\n", 0o644)
	write(t, filepath.Join(dotGit, "objects", "ab", "new"), "blob", 0o444) // not guarded
	write(t, filepath.Join(ws, "main.go"), "package main // edited\n", 0o644)

	changes := g.Restore(before)
	for _, c := range changes {
		if !c.Restored {
			t.Errorf("not put back: %s", c)
		}
	}
	paths := map[string]bool{}
	for _, c := range changes {
		paths[c.Path] = true
	}
	for _, p := range []string{
		filepath.Join(dotGit, "config"), filepath.Join(dotGit, "hooks", "pre-commit"),
		filepath.Join(dotGit, "hooks", "pre-commit.sample"), filepath.Join(dotGit, "info", "attributes"),
		filepath.Join(dotGit, "info", "exclude"), filepath.Join(dotGit, "modules", "sub", "config"),
		filepath.Join(ws, "sub", ".git"), filepath.Join(ws, "vendored", ".git"), global,
	} {
		if !paths[p] {
			t.Errorf("change to %s not reported; got %v", p, changes)
		}
	}
	if len(changes) != 9 {
		t.Errorf("got %d changes, want 9: %v", len(changes), changes)
	}
	if got := read(t, filepath.Join(dotGit, "config")); got != "[core]\n" {
		t.Errorf("config = %q", got)
	}
	if _, err := os.Lstat(filepath.Join(dotGit, "hooks", "pre-commit")); err == nil {
		t.Error("planted hook still there")
	}
	if st, _ := os.Stat(filepath.Join(dotGit, "hooks", "pre-commit.sample")); st.Mode().Perm() != 0o755 {
		t.Errorf("sample hook mode %v", st.Mode())
	}
	if got := read(t, filepath.Join(dotGit, "info", "exclude")); got != "*.o\n" {
		t.Errorf("exclude = %q", got)
	}
	if got := read(t, filepath.Join(ws, "sub", ".git")); got != "gitdir: ../.git/modules/sub\n" {
		t.Errorf("sub/.git = %q", got)
	}
	if _, err := os.Lstat(filepath.Join(ws, "vendored", ".git")); err == nil {
		t.Error("planted nested repository still there")
	}
	if got := read(t, global); got != "[user]\n" {
		t.Errorf("global config = %q", got)
	}
	if got := read(t, filepath.Join(ws, "main.go")); !strings.Contains(got, "edited") {
		t.Error("the guard touched a work tree file")
	}
	if _, err := os.Lstat(filepath.Join(dotGit, "objects", "ab", "new")); err != nil {
		t.Error("the guard touched the object store")
	}
	if again := g.Restore(before); len(again) != 0 {
		t.Errorf("a second restore found changes: %v", again)
	}
}

// TestGuardPutsBackMovedGitDir: a build renames .git and writes a new one
// with a planted config; the original comes back, the planted one is
// moved aside.
func TestGuardPutsBackMovedGitDir(t *testing.T) {
	ws := repo(t)
	g, err := New(ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := g.Take()
	if err != nil {
		t.Fatal(err)
	}
	dotGit := filepath.Join(ws, ".git")
	if err := os.MkdirAll(filepath.Join(ws, "deep", "er"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dotGit, filepath.Join(ws, "deep", "er", "old")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dotGit, "HEAD"), "ref: refs/heads/main\n", 0o644)
	write(t, filepath.Join(dotGit, "config"), "[core]\n\tfsmonitor = x\n", 0o644)
	changes := g.Restore(before)
	if len(changes) == 0 || changes[0].Path != dotGit || !changes[0].Restored {
		t.Fatalf("changes = %v", changes)
	}
	if got := read(t, filepath.Join(dotGit, "config")); got != "[core]\n" {
		t.Errorf("config = %q; changes %v", got, changes)
	}
	if got := read(t, filepath.Join(ws, ".git.planted", "config")); !strings.Contains(got, "fsmonitor") {
		t.Errorf("planted .git not kept aside: %q", got)
	}
}

// TestGuardRefusesLinkedParent: a build replaces a folder above a guarded
// file with a link elsewhere; the guard writes nothing through it.
func TestGuardRefusesLinkedParent(t *testing.T) {
	ws := repo(t)
	g, err := New(ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := g.Take()
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	sub := filepath.Join(ws, ".git", "modules", "sub")
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, sub); err != nil {
		t.Fatal(err)
	}
	changes := g.Restore(before)
	var refused bool
	for _, c := range changes {
		if strings.HasPrefix(c.Path, sub) && !c.Restored {
			refused = true
		}
	}
	if !refused {
		t.Errorf("want a refused change under %s: %v", sub, changes)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("the guard wrote through a planted link: %v", ents)
	}
}

// TestGuardNoRepo: a workspace in no repository gets a .git removed when
// the build creates one.
func TestGuardNoRepo(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	g, err := New(ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := g.Take()
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, ".git", "config"), "[core]\n\tfsmonitor = x\n", 0o644)
	changes := g.Restore(before)
	if len(changes) != 1 || !changes[0].Restored {
		t.Errorf("changes = %v", changes)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".git")); err == nil {
		t.Error("planted .git still there")
	}
}

// TestGuardEntriesOnly: in a sandbox the git directories are read-only,
// so a change there is the user's and is left alone; a .git the build
// creates is still removed.
func TestGuardEntriesOnly(t *testing.T) {
	ws := repo(t)
	g, err := New(ws, Options{EntriesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	before, err := g.Take()
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, ".git", "hooks", "pre-commit"), "#!/bin/sh\n", 0o755) // the user's pre-commit install
	write(t, filepath.Join(ws, "lib", ".git", "config"), "[core]\n", 0o644)
	changes := g.Restore(before)
	if len(changes) != 1 || changes[0].Path != filepath.Join(ws, "lib", ".git") {
		t.Errorf("changes = %v", changes)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".git", "hooks", "pre-commit")); err != nil {
		t.Error("the user's hook was removed")
	}
}

// TestGuardLinkedWorktree guards a linked worktree: its .git file, its own
// folder under worktrees/ and the common directory; another worktree added
// meanwhile is left alone.
func TestGuardLinkedWorktree(t *testing.T) {
	main := repo(t)
	admin := filepath.Join(main, ".git", "worktrees", "wt")
	write(t, filepath.Join(admin, "HEAD"), "ref: refs/heads/wt\n", 0o644)
	write(t, filepath.Join(admin, "commondir"), "../..\n", 0o644)
	wt, _ := filepath.EvalSymlinks(t.TempDir())
	write(t, filepath.Join(admin, "gitdir"), filepath.Join(wt, ".git")+"\n", 0o644)
	write(t, filepath.Join(wt, ".git"), "gitdir: "+admin+"\n", 0o644)
	g, err := New(wt, Options{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := g.Take()
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(admin, "commondir"), "/elsewhere\n", 0o644)
	write(t, filepath.Join(main, ".git", "hooks", "post-checkout"), "#!/bin/sh\n", 0o755)
	write(t, filepath.Join(main, ".git", "worktrees", "other", "gitdir"), "/x/.git\n", 0o644)
	write(t, filepath.Join(wt, ".git"), "gitdir: /tmp/evil\n", 0o644)
	changes := g.Restore(before)
	if len(changes) != 3 {
		t.Errorf("changes = %v", changes)
	}
	if got := read(t, filepath.Join(admin, "commondir")); got != "../..\n" {
		t.Errorf("commondir = %q", got)
	}
	if got := read(t, filepath.Join(wt, ".git")); got != "gitdir: "+admin+"\n" {
		t.Errorf(".git = %q", got)
	}
	if _, err := os.Lstat(filepath.Join(main, ".git", "worktrees", "other", "gitdir")); err != nil {
		t.Error("another worktree's folder was touched")
	}
}

// FuzzPointer reads a .git file's content, which a repository (or a
// build) controls: never a panic, and a path is absolute and clean.
func FuzzPointer(f *testing.F) {
	for _, s := range []string{"gitdir: ../.git/modules/sub\n", "gitdir:\n", "gitdir: /abs\r\n", "junk", "gitdir: a\x00b\n"} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content string) {
		p := filepath.Join(dir, ".git")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		got := pointer(p, "gitdir:")
		if got != "" && (!filepath.IsAbs(got) || filepath.Clean(got) != got) {
			t.Errorf("pointer(%q) = %q", content, got)
		}
		_ = GitDirs(p)
	})
}
