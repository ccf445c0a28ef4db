package heal

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/salve-dev/salve/sandbox"
)

// GitWorktrees implements Worktrees with the git CLI through sandbox.Run.
//
// TEMPORARY, CLEARLY MARKED: worktree add/remove/list are not among the
// git agent's seed actions; this is the one place where heal runs git
// itself, and it will be replaced by the git agent's documented v1
// extension action git_worktree once that lands. It never touches the
// user's work tree, index or existing branches: it only adds a worktree on
// a new branch and removes heal worktrees.
type GitWorktrees struct {
	// Git is the git program; empty means "git".
	Git string
	// Env is the child environment; nil means sandbox.AllowedEnv().
	Env []string
}

var _ Worktrees = GitWorktrees{}

func (g GitWorktrees) run(ctx context.Context, repo string, args ...string) (string, error) {
	bin := g.Git
	if bin == "" {
		bin = "git"
	}
	env := g.Env
	if env == nil {
		env = sandbox.AllowedEnv()
	}
	res, err := sandbox.Run(ctx, sandbox.Cmd{Path: bin, Args: append([]string{"-C", repo}, args...), Env: env, Timeout: time.Minute})
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %w", args[0], ErrEnvironment, err)
	}
	if res.ExitCode != 0 {
		return "", fmt.Errorf("git %s: exit %d: %s", strings.Join(args[:min(2, len(args))], " "), res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	return string(res.Stdout), nil
}

// Add creates a locked worktree at path on a new branch at HEAD.
func (g GitWorktrees) Add(ctx context.Context, repo, path, branch, reason string) error {
	_, err := g.run(ctx, repo, "worktree", "add", "--lock", "--reason", reason, "-b", branch, "--", path, "HEAD")
	return err
}

// Remove unlocks and removes the worktree at path, then prunes what is
// left when the folder had already gone.
func (g GitWorktrees) Remove(ctx context.Context, repo, path string) error {
	_, _ = g.run(ctx, repo, "worktree", "unlock", "--", path)
	if _, err := g.run(ctx, repo, "worktree", "remove", "--force", "--", path); err != nil {
		if _, perr := g.run(ctx, repo, "worktree", "prune"); perr != nil {
			return fmt.Errorf("%w (prune: %w)", err, perr)
		}
		if still, lerr := g.has(ctx, repo, path); lerr != nil || still {
			return err
		}
	}
	return nil
}

func (g GitWorktrees) has(ctx context.Context, repo, path string) (bool, error) {
	list, err := g.List(ctx, repo)
	if err != nil {
		return false, err
	}
	for _, w := range list {
		if w.Path == path {
			return true, nil
		}
	}
	return false, nil
}

// List parses `git worktree list --porcelain`.
func (g GitWorktrees) List(ctx context.Context, repo string) ([]Worktree, error) {
	out, err := g.run(ctx, repo, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	return ParseWorktreeList(out), nil
}

// DeleteBranch deletes a local branch.
func (g GitWorktrees) DeleteBranch(ctx context.Context, repo, branch string) error {
	_, err := g.run(ctx, repo, "branch", "-D", "--", branch)
	return err
}

// ParseWorktreeList parses the porcelain output of `git worktree list`.
func ParseWorktreeList(out string) []Worktree {
	var list []Worktree
	for _, block := range strings.Split(strings.TrimSpace(out), "\n\n") {
		var w Worktree
		for _, line := range strings.Split(block, "\n") {
			k, v, _ := strings.Cut(line, " ")
			switch k {
			case "worktree":
				w.Path = v
			case "branch":
				w.Branch = strings.TrimPrefix(v, "refs/heads/")
			case "locked":
				w.Locked = v
				if w.Locked == "" {
					w.Locked = "locked"
				}
			}
		}
		if w.Path != "" {
			list = append(list, w)
		}
	}
	return list
}
