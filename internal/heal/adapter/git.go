package adapter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/gitagent"
	"github.com/salve-dev/salve/internal/gitagent/server"
	"github.com/salve-dev/salve/internal/heal"
)

// Git implements heal.Git, and, once pinned (see Worktrees.Pin),
// heal.WorktreeGit, with gitagent.Client: the git_agent binary as a child
// process, one ActionRequest on stdin and one schema-checked
// ActionResponse on stdout per action (docs/contracts/git-agent.md §1.1).
// It is how the pipeline commits and pushes: never by calling git itself.
type Git struct {
	// Bin is the git_agent program.
	Bin string
	// Env is the agent's environment; nil means gitagent.ClientEnv().
	Env []string
	// ExtraEnv, when set, adds to the agent's environment before each
	// action (gitagent.Client.ExtraEnv): a GitHub App's push credential.
	ExtraEnv func(ctx context.Context, action string) ([]string, error)
	// Timeout bounds one action; zero means two minutes.
	Timeout time.Duration
	// GitDir and WorkTree, when set, pin every action to that git
	// directory and work tree: Worktrees.Pin sets them on a heal worktree.
	GitDir, WorkTree string
	// Identity, "NAME <EMAIL>", is who heal commits as where git knows no
	// identity; empty means DefaultIdentity. A configured identity (git
	// config, GIT_AUTHOR_* and GIT_COMMITTER_*) always wins.
	Identity string
}

// DefaultIdentity is who heal commits as on a machine where git knows no
// identity (every fresh CI runner): GitHub's bot naming, and a noreply
// address that receives no mail.
const DefaultIdentity = "salve[bot] <salve[bot]@users.noreply.github.com>"

var (
	_ heal.Git         = Git{}
	_ heal.WorktreeGit = Git{}
)

// client returns the gitagent client for dir.
func (g Git) client(dir string) *gitagent.Client {
	timeout := g.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	id := g.Identity
	if id == "" {
		id = DefaultIdentity
	}
	return &gitagent.Client{Binary: g.Bin, Dir: dir, NoRegister: true, Env: g.Env, ExtraEnv: g.ExtraEnv, Timeout: timeout, GitDir: g.GitDir, WorkTree: g.WorkTree, DefaultIdentity: id}
}

// do runs one action in dir and returns the result's data. A git agent
// that cannot be started wraps heal.ErrEnvironment.
func (g Git) do(ctx context.Context, dir string, cmd contract.GitAgentCommandV1) (string, error) {
	resp, err := g.client(dir).Do(ctx, cmd)
	if errors.Is(err, gitagent.ErrAgentUnavailable) {
		return "", fmt.Errorf("%w: %w", heal.ErrEnvironment, err)
	}
	if err != nil {
		return "", err
	}
	return resp.Result.Data, nil
}

// worktree runs one git_worktree action (salve's documented v1 extension)
// named ref in dir.
func (g Git) worktree(ctx context.Context, dir, ref string, cmd contract.GitAgentCommandV1) (string, error) {
	cmd.Type, cmd.Ref = gitagent.ActionGitWorktree, ref
	return g.do(ctx, dir, cmd)
}

// Commit stages files and commits them; Head reads the new commit.
func (g Git) Commit(ctx context.Context, dir string, files []string, message string) error {
	c := g.client(dir)
	if err := c.Add(ctx, files...); err != nil {
		return err
	}
	_, err := c.Do(ctx, contract.GitAgentCommandV1{Type: contract.ActionGitCommit, Message: &message})
	return err
}

// Push pushes branch to remote.
func (g Git) Push(ctx context.Context, dir, remote, branch string) error {
	return g.client(dir).Push(ctx, remote, branch)
}

// PushLease pushes branch, replacing the remote branch only if it is at
// expect.
func (g Git) PushLease(ctx context.Context, dir, remote, branch, expect string) error {
	return g.client(dir).PushLease(ctx, remote, branch, expect)
}

// Head returns the commit hash of HEAD.
func (g Git) Head(ctx context.Context, dir string) (string, error) {
	h, err := g.client(dir).Head(ctx)
	if errors.Is(err, gitagent.ErrAgentUnavailable) {
		return "", fmt.Errorf("%w: %w", heal.ErrEnvironment, err)
	}
	return strings.TrimSpace(h), err
}

// RevParse returns the commit of ref.
func (g Git) RevParse(ctx context.Context, dir, ref string) (string, error) {
	h, err := g.client(dir).RevParse(ctx, ref)
	return strings.TrimSpace(h), err
}

// Diff returns the unstaged changes of the work tree at dir.
func (g Git) Diff(ctx context.Context, dir string) (string, error) {
	return g.client(dir).Diff(ctx)
}

// CheckBranch returns an error when name is not a branch name the git
// agent accepts.
func (Git) CheckBranch(name string) error { return server.ValidateBranchName(name) }

// PruneBranches deletes the branches of repo starting with prefix that
// are merged into HEAD, and returns their names.
func (g Git) PruneBranches(ctx context.Context, repo, prefix string) ([]string, error) {
	out, err := g.do(ctx, repo, contract.GitAgentCommandV1{Type: gitagent.ActionGitBranchPrune, Branch: prefix})
	return strings.Fields(out), err
}

// CreateBranch creates branch at HEAD of dir and switches to it.
func (g Git) CreateBranch(ctx context.Context, dir, branch string) error {
	_, err := g.do(ctx, dir, contract.GitAgentCommandV1{Type: contract.ActionGitBranch, Branch: branch, Create: true})
	return err
}

// Reset checks commit out in dir, detached and forcefully.
func (g Git) Reset(ctx context.Context, dir, commit string) error {
	_, err := g.worktree(ctx, dir, gitagent.WorktreeReset, contract.GitAgentCommandV1{StartPoint: commit})
	return err
}

// Clean removes every untracked file of dir, ignored ones included.
func (g Git) Clean(ctx context.Context, dir string) error {
	_, err := g.worktree(ctx, dir, gitagent.WorktreeClean, contract.GitAgentCommandV1{})
	return err
}

// Untracked lists the untracked files of dir, ignored ones included.
func (g Git) Untracked(ctx context.Context, dir string) (string, error) {
	return g.worktree(ctx, dir, gitagent.WorktreeUntracked, contract.GitAgentCommandV1{})
}

// Gitlinks returns the paths of the index's submodule entries.
func (g Git) Gitlinks(ctx context.Context, dir string) ([]string, error) {
	out, err := g.worktree(ctx, dir, gitagent.WorktreeGitlinks, contract.GitAgentCommandV1{})
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// Detach detaches dir's work tree from its branch at commit.
func (g Git) Detach(ctx context.Context, dir, commit string) error {
	_, err := g.worktree(ctx, dir, gitagent.WorktreeDetach, contract.GitAgentCommandV1{StartPoint: commit})
	return err
}

// CommitDiff returns the change commit made (its diff against its first
// parent), read in dir: what the history tier reads of a breaking commit.
func (g Git) CommitDiff(ctx context.Context, dir, commit string) (string, error) {
	return g.do(ctx, dir, contract.GitAgentCommandV1{Type: gitagent.ActionGitCommitDiff, Ref: commit})
}

// Branch returns the name of the branch checked out in dir, "HEAD" when
// it is detached.
func (g Git) Branch(ctx context.Context, dir string) (string, error) {
	b, err := g.do(ctx, dir, contract.GitAgentCommandV1{Type: contract.ActionGitRevParse, Ref: server.RefBranch})
	return strings.TrimSpace(b), err
}

// ShowFile returns the content of path as commit rev holds it (the git
// agent's git_show_file): how heal reads the repository's configuration
// from the base, never from the change under heal.
func (g Git) ShowFile(ctx context.Context, dir, rev, path string) (string, error) {
	return g.do(ctx, dir, contract.GitAgentCommandV1{Type: gitagent.ActionGitShowFile, Ref: rev, Files: []string{path}})
}

// CurrentBranch returns the branch checked out at dir, or "HEAD" when it
// is detached.
func (g Git) CurrentBranch(ctx context.Context, dir string) (string, error) {
	out, err := g.do(ctx, dir, contract.GitAgentCommandV1{Type: contract.ActionGitRevParse, Ref: server.RefBranch})
	return strings.TrimSpace(out), err
}
