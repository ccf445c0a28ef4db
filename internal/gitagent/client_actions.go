package gitagent

import (
	"context"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/gitagent/server"
)

// text runs cmd and returns result.data of a success.
func (c *Client) text(ctx context.Context, cmd contract.GitAgentCommandV1) (string, error) {
	resp, err := c.Do(ctx, cmd)
	if err != nil {
		return "", err
	}
	return resp.Result.Data, nil
}

// Status returns the output of git status.
func (c *Client) Status(ctx context.Context) (string, error) {
	return c.text(ctx, contract.GitAgentCommandV1{Type: contract.ActionGitStatus})
}

// Diff returns the unstaged diff, of the listed files only when any are
// given.
func (c *Client) Diff(ctx context.Context, files ...string) (string, error) {
	return c.text(ctx, contract.GitAgentCommandV1{Type: contract.ActionGitDiff, Files: files})
}

// Log returns the last limit commits, as git log prints them.
func (c *Client) Log(ctx context.Context, limit uint32) (string, error) {
	return c.text(ctx, contract.GitAgentCommandV1{Type: contract.ActionGitLog, Limit: &limit})
}

// Add stages the listed files (at least one).
func (c *Client) Add(ctx context.Context, files ...string) error {
	_, err := c.Do(ctx, contract.GitAgentCommandV1{Type: contract.ActionGitAdd, Files: files})
	return err
}

// Commit commits the staged changes with message and returns the new
// commit's hash.
func (c *Client) Commit(ctx context.Context, message string) (string, error) {
	if _, err := c.Do(ctx, contract.GitAgentCommandV1{Type: contract.ActionGitCommit, Message: &message}); err != nil {
		return "", err
	}
	return c.Head(ctx)
}

// AddCommit stages the listed files and commits them with message,
// returning the new commit's hash.
func (c *Client) AddCommit(ctx context.Context, message string, files ...string) (string, error) {
	if err := c.Add(ctx, files...); err != nil {
		return "", err
	}
	return c.Commit(ctx, message)
}

// CreateBranch creates branch name at startPoint (empty means HEAD) and
// switches to it.
func (c *Client) CreateBranch(ctx context.Context, name, startPoint string) error {
	_, err := c.Do(ctx, contract.GitAgentCommandV1{Type: contract.ActionGitBranch, Branch: name, StartPoint: startPoint, Create: true})
	return err
}

// SwitchBranch switches to the existing branch name.
func (c *Client) SwitchBranch(ctx context.Context, name string) error {
	_, err := c.Do(ctx, contract.GitAgentCommandV1{Type: contract.ActionGitBranch, Branch: name})
	return err
}

// Restore discards the changes to the listed files, staged and unstaged,
// restoring them as they are in HEAD.
func (c *Client) Restore(ctx context.Context, files ...string) error {
	_, err := c.Do(ctx, contract.GitAgentCommandV1{Type: contract.ActionGitRestore, Files: files})
	return err
}

// PushLease pushes branch to remote, replacing the remote branch only if
// it is at the commit expect (git push --force-with-lease).
func (c *Client) PushLease(ctx context.Context, remote, branch, expect string) error {
	_, err := c.Do(ctx, contract.GitAgentCommandV1{Type: contract.ActionGitPush, Remote: remote, Branch: branch, ForceWithLease: expect})
	return err
}

// Push pushes branch to remote. Empty remote means [server.DefaultRemote]; empty
// branch means the current one.
func (c *Client) Push(ctx context.Context, remote, branch string) error {
	_, err := c.Do(ctx, contract.GitAgentCommandV1{Type: contract.ActionGitPush, Remote: remote, Branch: branch})
	return err
}

// RevParse returns the commit hash of ref (empty means HEAD).
func (c *Client) RevParse(ctx context.Context, ref string) (string, error) {
	out, err := c.text(ctx, contract.GitAgentCommandV1{Type: contract.ActionGitRevParse, Ref: ref})
	return strings.TrimSpace(out), err
}

// Head returns the hash of the HEAD commit.
func (c *Client) Head(ctx context.Context) (string, error) { return c.RevParse(ctx, "HEAD") }

// CurrentBranch returns the name of the checked-out branch ("HEAD" when
// detached).
func (c *Client) CurrentBranch(ctx context.Context) (string, error) {
	return c.RevParse(ctx, server.RefBranch)
}
