package heal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/sandbox"
)

// AgentGit implements Git by running the git_agent binary as a child
// process, one ActionRequest on stdin and one ActionResponse on stdout per
// action (seed 002). It is how the pipeline commits and pushes: never by
// calling git itself.
type AgentGit struct {
	// Bin is the git_agent program.
	Bin string
	// Env is the agent's environment; nil means the allowed variables plus
	// git's identity and configuration variables.
	Env []string
	// Timeout bounds one action; zero means two minutes.
	Timeout time.Duration
}

var _ Git = AgentGit{}

// gitAgentEnv lists the variables, beyond sandbox.DefaultAllowEnv, that
// git needs for identity and configuration.
var gitAgentEnv = []string{
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
	"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
	"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_CEILING_DIRECTORIES",
	"GIT_SSH", "GIT_SSH_COMMAND", "SSH_AUTH_SOCK", "XDG_CONFIG_HOME", "SALVE_REGISTRY_DB",
}

// ErrGitAgent is wrapped when the git agent answered with an error or
// could not be run.
var ErrGitAgent = errors.New("git agent")

// Do runs one action in dir and returns the result's data.
func (g AgentGit) Do(ctx context.Context, dir string, cmd contract.GitAgentCommandV1) (string, error) {
	payload, err := json.Marshal(contract.GitAgentRequestV1{Command: cmd})
	if err != nil {
		return "", fmt.Errorf("%w: encode %s: %w", ErrGitAgent, cmd.Type, err)
	}
	v := contract.APIVersionV1
	req := contract.ActionRequest{RequestID: uuid.NewString(), APIVersion: &v, Tool: contract.ToolGitAgent, Action: cmd.Type, Payload: payload}
	body, err := json.Marshal(req)
	if err != nil {
		return "", fmt.Errorf("%w: encode %s: %w", ErrGitAgent, cmd.Type, err)
	}
	env := g.Env
	if env == nil {
		env = sandbox.AllowedEnv(gitAgentEnv...)
	}
	timeout := g.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	res, err := sandbox.Run(ctx, sandbox.Cmd{Path: g.Bin, Args: []string{"-C", dir, "--no-register"}, Env: env, Stdin: bytes.NewReader(body), Timeout: timeout})
	if err != nil {
		return "", fmt.Errorf("%w: run %s: %w: %w", ErrGitAgent, g.Bin, ErrEnvironment, err)
	}
	var resp contract.ActionResponse
	if err := json.Unmarshal(res.Stdout, &resp); err != nil {
		return "", fmt.Errorf("%w: %s: exit %d, unreadable response: %w (stderr: %s)", ErrGitAgent, cmd.Type, res.ExitCode, err, strings.TrimSpace(lastLine(string(res.Stderr))))
	}
	if resp.RequestID != req.RequestID {
		return "", fmt.Errorf("%w: %s: response for request %q, sent %q", ErrGitAgent, cmd.Type, resp.RequestID, req.RequestID)
	}
	if resp.Status != contract.StatusSuccess || resp.Result == nil {
		msg := ""
		if resp.Error != nil {
			msg = *resp.Error
		} else if resp.Result != nil {
			msg = resp.Result.Data
		}
		return "", fmt.Errorf("%w: %s failed: %s", ErrGitAgent, cmd.Type, strings.TrimSpace(msg))
	}
	return resp.Result.Data, nil
}

// Commit stages files and commits them, returning the new HEAD.
func (g AgentGit) Commit(ctx context.Context, dir string, files []string, message string) (string, error) {
	if _, err := g.Do(ctx, dir, contract.GitAgentCommandV1{Type: contract.ActionGitAdd, Files: files}); err != nil {
		return "", err
	}
	if _, err := g.Do(ctx, dir, contract.GitAgentCommandV1{Type: contract.ActionGitCommit, Message: &message}); err != nil {
		return "", err
	}
	return g.Head(ctx, dir)
}

// Push pushes branch to remote.
func (g AgentGit) Push(ctx context.Context, dir, remote, branch string) error {
	_, err := g.Do(ctx, dir, contract.GitAgentCommandV1{Type: contract.ActionGitPush, Remote: remote, Branch: branch})
	return err
}

// Head returns the commit hash of HEAD.
func (g AgentGit) Head(ctx context.Context, dir string) (string, error) {
	out, err := g.Do(ctx, dir, contract.GitAgentCommandV1{Type: contract.ActionGitRevParse, Ref: "HEAD"})
	return strings.TrimSpace(out), err
}
