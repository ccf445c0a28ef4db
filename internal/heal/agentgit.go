package heal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/gitagent"
)

// AgentGit implements Git with gitagent.Client: the git_agent binary as a
// child process, one ActionRequest on stdin and one schema-checked
// ActionResponse on stdout per action (docs/contracts/git-agent.md §1.1). It is how the pipeline
// commits and pushes: never by calling git itself.
type AgentGit struct {
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
	// directory and work tree (see Pin): set on a heal worktree.
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

var _ Git = AgentGit{}

// client returns the gitagent client for dir.
func (g AgentGit) client(dir string) *gitagent.Client {
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

// Do runs one action in dir and returns the result's data. A git agent
// that cannot be started wraps ErrEnvironment.
func (g AgentGit) Do(ctx context.Context, dir string, cmd contract.GitAgentCommandV1) (string, error) {
	resp, err := g.client(dir).Do(ctx, cmd)
	if errors.Is(err, gitagent.ErrAgentUnavailable) {
		return "", fmt.Errorf("%w: %w", ErrEnvironment, err)
	}
	if err != nil {
		return "", err
	}
	return resp.Result.Data, nil
}

// Commit stages files and commits them, returning the new HEAD.
func (g AgentGit) Commit(ctx context.Context, dir string, files []string, message string) (string, error) {
	h, err := g.client(dir).AddCommit(ctx, message, files...)
	return strings.TrimSpace(h), err
}

// Push pushes branch to remote.
func (g AgentGit) Push(ctx context.Context, dir, remote, branch string) error {
	return g.client(dir).Push(ctx, remote, branch)
}

// PushLease pushes branch, replacing the remote branch only if it is at
// expect.
func (g AgentGit) PushLease(ctx context.Context, dir, remote, branch, expect string) error {
	return g.client(dir).PushLease(ctx, remote, branch, expect)
}

// Head returns the commit hash of HEAD.
func (g AgentGit) Head(ctx context.Context, dir string) (string, error) {
	h, err := g.client(dir).Head(ctx)
	if errors.Is(err, gitagent.ErrAgentUnavailable) {
		return "", fmt.Errorf("%w: %w", ErrEnvironment, err)
	}
	return strings.TrimSpace(h), err
}

// RevParse returns the commit of ref.
func (g AgentGit) RevParse(ctx context.Context, dir, ref string) (string, error) {
	h, err := g.client(dir).RevParse(ctx, ref)
	return strings.TrimSpace(h), err
}

// Diff returns the unstaged changes of the work tree at dir.
func (g AgentGit) Diff(ctx context.Context, dir string) (string, error) {
	return g.client(dir).Diff(ctx)
}
