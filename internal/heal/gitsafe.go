package heal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrGitTampered is wrapped when a worktree's git directory, or a commit,
// is not what salve recorded: the run stops rather than trust it.
var ErrGitTampered = errors.New("the heal worktree's git metadata was tampered with")

// guardedGit is the git a heal uses inside its worktree. Before each
// action it puts back the worktree's .git file and checks the git
// directory's back-link; it creates the heal branch at the first commit;
// and after each commit it checks, in the user's repository, that the
// commit is the tip of the heal branch, so a commit made anywhere else is
// never reported.
type guardedGit struct {
	pinned   WorktreeGit
	user     Git
	repo     string // the user's repository (its main work tree)
	workTree string
	gitDir   string
	branch   string
	created  bool
	warn     func(msg string)
}

func (g *guardedGit) Commit(ctx context.Context, dir string, files []string, message string) (string, error) {
	if err := g.guard(); err != nil {
		return "", err
	}
	if !g.created {
		if err := g.pinned.CreateBranch(ctx, dir, g.branch); err != nil {
			return "", fmt.Errorf("heal: create branch %s: %w", g.branch, err)
		}
		g.created = true
	}
	if err := g.pinned.Commit(ctx, dir, files, message); err != nil {
		return "", err
	}
	// The new commit as the worktree sees it and the branch's tip as the
	// user's repository sees it: two reads, at once.
	type read struct {
		tip string
		err error
	}
	branchTip := Beside(func() read {
		tip, err := g.user.RevParse(ctx, g.repo, "refs/heads/"+g.branch)
		return read{tip, err}
	})
	h, err := g.pinned.Head(ctx, dir)
	t := branchTip()
	tip, tipErr := t.tip, t.err
	if err != nil {
		return "", fmt.Errorf("heal: read the new commit: %w", err)
	}
	if tipErr != nil {
		return "", fmt.Errorf("heal: commit %s is not on branch %s of %s: %w: %w", h, g.branch, g.repo, ErrGitTampered, tipErr)
	}
	if tip != h {
		return "", fmt.Errorf("heal: commit %s is not the tip of branch %s of %s (%s is): %w", h, g.branch, g.repo, tip, ErrGitTampered)
	}
	return h, nil
}

func (g *guardedGit) Push(ctx context.Context, dir, remote, branch string) error {
	if err := g.guard(); err != nil {
		return err
	}
	return g.pinned.Push(ctx, dir, remote, branch)
}

// PushLease pushes with a lease (see Options.PushLease).
func (g *guardedGit) PushLease(ctx context.Context, dir, remote, branch, expect string) error {
	if err := g.guard(); err != nil {
		return err
	}
	return g.pinned.PushLease(ctx, dir, remote, branch, expect)
}

func (g *guardedGit) Head(ctx context.Context, dir string) (string, error) {
	if err := g.guard(); err != nil {
		return "", err
	}
	return g.pinned.Head(ctx, dir)
}

// Detach detaches the worktree from the heal branch at commit.
func (g *guardedGit) Detach(ctx context.Context, commit string) error {
	if err := g.guard(); err != nil {
		return err
	}
	return g.pinned.Detach(ctx, g.workTree, commit)
}

// guard checks the git directory's back-link and puts the worktree's .git
// file back when something changed it.
func (g *guardedGit) guard() error {
	changed, err := RestoreGitFile(g.workTree, g.gitDir)
	if err != nil {
		return err
	}
	if changed && g.warn != nil {
		g.warn("the build changed the heal worktree's .git; salve put it back and never used it")
	}
	return checkGitDir(g.workTree, g.gitDir)
}

// gitFileContent is what git writes in a linked worktree's .git file.
func gitFileContent(gitDir string) string { return "gitdir: " + gitDir + "\n" }

// RestoreGitFile makes workTree/.git the regular file that points at
// gitDir, replacing whatever is there (a rewritten file, a directory, a
// symbolic link) without following links. It reports whether it had to.
// A worktree's remover calls it first, so git recognises its own worktree.
func RestoreGitFile(workTree, gitDir string) (bool, error) {
	if st, err := os.Lstat(workTree); err != nil || !st.IsDir() {
		return false, fmt.Errorf("heal: the heal worktree %s is gone or not a folder: %w", workTree, ErrGitTampered)
	}
	p := filepath.Join(workTree, ".git")
	want := gitFileContent(gitDir)
	if got, err := readSmallFile(p); err == nil && got == want {
		return false, nil
	}
	if err := os.RemoveAll(p); err != nil {
		return true, fmt.Errorf("heal: remove the rewritten %s: %w", p, err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return true, fmt.Errorf("heal: restore %s: %w", p, err)
	}
	_, err = f.WriteString(want)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return true, fmt.Errorf("heal: restore %s: %w", p, err)
	}
	return true, nil
}

// checkGitDir verifies that gitDir is a real directory whose gitdir file
// points back at workTree/.git, as git worktree add wrote it.
func checkGitDir(workTree, gitDir string) error {
	if st, err := os.Lstat(gitDir); err != nil || !st.IsDir() {
		return fmt.Errorf("heal: the git directory %s of the heal worktree is gone or not a folder: %w", gitDir, ErrGitTampered)
	}
	back, err := readSmallFile(filepath.Join(gitDir, "gitdir"))
	if err != nil {
		return fmt.Errorf("heal: read %s/gitdir: %w: %w", gitDir, ErrGitTampered, err)
	}
	back = filepath.Clean(strings.TrimSpace(back))
	want := filepath.Join(workTree, ".git")
	if back != want {
		if real, err := filepath.EvalSymlinks(workTree); err != nil || back != filepath.Join(real, ".git") {
			return fmt.Errorf("heal: %s/gitdir names %s, not %s: %w", gitDir, back, want, ErrGitTampered)
		}
	}
	return nil
}

// readSmallFile reads a regular file of at most 4 KiB without following a
// symbolic link.
func readSmallFile(p string) (string, error) {
	st, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() || st.Size() > 4096 {
		return "", fmt.Errorf("%s is not a small regular file", p)
	}
	b, err := os.ReadFile(p)
	return string(b), err
}

// pin sets up the guarded, pinned Git of the run's worktree: it finds the
// worktree's git directory from the repository's records (unless the add
// or the reuse already did) and, from then on, every git action of the
// run inside the worktree goes through it.
func (r *run) pin(ctx context.Context, top string) error {
	gd := r.gitDir // found by the add, or found and verified by reuse
	if gd == "" {
		var err error
		if gd, err = r.o.Worktrees.GitDir(ctx, top, r.o.WorktreeDir); err != nil {
			return fmt.Errorf("heal: find the git directory of %s: %w: %w", r.o.WorktreeDir, ErrEnvironment, err)
		}
	}
	if err := checkGitDir(r.o.WorktreeDir, gd); err != nil {
		return err
	}
	r.guard = &guardedGit{
		pinned: r.o.Worktrees.Pin(r.o.WorktreeDir, gd), user: r.o.Git,
		repo: top, workTree: r.o.WorktreeDir, gitDir: gd, branch: r.o.Branch, warn: r.warnOnce,
	}
	return nil
}

// warnOnce adds msg to the results' warnings (once) and logs it.
func (r *run) warnOnce(msg string) {
	for _, w := range r.res.Warnings {
		if w == msg {
			return
		}
	}
	r.res.Warnings = append(r.res.Warnings, msg)
	r.o.Logger.Warn(msg)
}
