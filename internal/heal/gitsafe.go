package heal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// PinnableGit is a Git that can be pinned to one worktree: every git
// command it runs there then uses the git directory salve recorded when it
// created the worktree (GIT_DIR and GIT_WORK_TREE), never the worktree's
// .git file, which the build can rewrite. AgentGit is one.
type PinnableGit interface {
	Git
	// Pin returns the Git for the worktree at workTree whose git directory
	// is gitDir.
	Pin(workTree, gitDir string) PinnableGit
	// CreateBranch creates branch at the current HEAD of dir and switches
	// to it.
	CreateBranch(ctx context.Context, dir, branch string) error
	// Do runs one git agent command in dir and returns its output.
	Do(ctx context.Context, dir string, cmd contract.GitAgentCommandV1) (string, error)
}

// GitDirFinder finds a worktree's git directory from the repository's own
// records (not from the worktree). AgentWorktrees is one.
type GitDirFinder interface {
	GitDir(ctx context.Context, repo, path string) (string, error)
}

// ErrGitTampered is wrapped when a worktree's git directory, or a commit,
// is not what salve recorded: the run stops rather than trust it.
var ErrGitTampered = errors.New("the heal worktree's git metadata was tampered with")

// guardedGit is the Git a heal uses inside its worktree once pinned. Before
// each action it puts back the worktree's .git file and checks the git
// directory's back-link; it creates the heal branch at the first commit;
// and after each commit it checks, in the user's repository, that the
// commit is the tip of the heal branch, so a commit made anywhere else is
// never reported.
type guardedGit struct {
	pinned   PinnableGit
	user     Git
	create   func(ctx context.Context, dir, branch string) error
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
		if err := g.create(ctx, dir, g.branch); err != nil {
			return "", fmt.Errorf("heal: create branch %s: %w", g.branch, err)
		}
		g.created = true
	}
	h, err := g.pinned.Commit(ctx, dir, files, message)
	if err != nil {
		return "", err
	}
	tip, err := g.user.RevParse(ctx, g.repo, "refs/heads/"+g.branch)
	if err != nil {
		return "", fmt.Errorf("heal: commit %s is not on branch %s of %s: %w: %w", h, g.branch, g.repo, ErrGitTampered, err)
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

// PushLease pushes with a lease through the pinned Git (see
// Options.PushLease).
func (g *guardedGit) PushLease(ctx context.Context, dir, remote, branch, expect string) error {
	if err := g.guard(); err != nil {
		return err
	}
	lp, ok := g.pinned.(LeasePusher)
	if !ok {
		return fmt.Errorf("heal: this git cannot replace %s with a lease", branch)
	}
	return lp.PushLease(ctx, dir, remote, branch, expect)
}

func (g *guardedGit) Head(ctx context.Context, dir string) (string, error) {
	if err := g.guard(); err != nil {
		return "", err
	}
	return g.pinned.Head(ctx, dir)
}

func (g *guardedGit) RevParse(ctx context.Context, dir, ref string) (string, error) {
	if err := g.guard(); err != nil {
		return "", err
	}
	return g.pinned.RevParse(ctx, dir, ref)
}

// guardedDo runs one git agent command in the worktree, guarded.
func (g *guardedGit) guardedDo(ctx context.Context, cmd contract.GitAgentCommandV1) (string, error) {
	if err := g.guard(); err != nil {
		return "", err
	}
	return g.pinned.Do(ctx, g.workTree, cmd)
}

// guard checks the git directory's back-link and puts the worktree's .git
// file back when something changed it.
func (g *guardedGit) guard() error {
	changed, err := restoreGitFile(g.workTree, g.gitDir)
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

// restoreGitFile makes workTree/.git the regular file that points at
// gitDir, replacing whatever is there (a rewritten file, a directory, a
// symbolic link) without following links. It reports whether it had to.
func restoreGitFile(workTree, gitDir string) (bool, error) {
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

// Pin returns g with git pinned to the worktree at workTree whose git
// directory is gitDir (git_agent --git-dir/--work-tree).
func (g AgentGit) Pin(workTree, gitDir string) PinnableGit {
	g.GitDir, g.WorkTree = gitDir, workTree
	return g
}

// CreateBranch creates branch at HEAD of dir and switches to it.
func (g AgentGit) CreateBranch(ctx context.Context, dir, branch string) error {
	_, err := g.Do(ctx, dir, contract.GitAgentCommandV1{Type: contract.ActionGitBranch, Branch: branch, Create: true})
	return err
}

var _ PinnableGit = AgentGit{}

// pin sets up the guarded, pinned Git of the run's worktree: it finds the
// worktree's git directory from the repository's records and, from then
// on, every git action of the run inside the worktree goes through it.
func (r *run) pin(ctx context.Context, top string) error {
	pg, ok := r.o.Git.(PinnableGit)
	if !ok {
		return nil
	}
	finder, ok := r.o.Worktrees.(GitDirFinder)
	if !ok {
		return fmt.Errorf("heal: the worktrees cannot name their git directory, so git cannot be pinned: %w", ErrEnvironment)
	}
	gd := r.gitDir // found and verified by reuse
	if gd == "" {
		var err error
		if gd, err = finder.GitDir(ctx, top, r.o.WorktreeDir); err != nil {
			return fmt.Errorf("heal: find the git directory of %s: %w: %w", r.o.WorktreeDir, ErrEnvironment, err)
		}
	}
	if err := checkGitDir(r.o.WorktreeDir, gd); err != nil {
		return err
	}
	pinned := pg.Pin(r.o.WorktreeDir, gd)
	r.guard = &guardedGit{
		pinned: pinned, user: r.o.Git, create: pinned.CreateBranch,
		repo: top, workTree: r.o.WorktreeDir, gitDir: gd, branch: r.o.Branch, warn: r.warnOnce,
	}
	r.o.Git = r.guard
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
