package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/salve-dev/salve/heal"
	"github.com/salve-dev/salve/sandbox"
	"github.com/salve-dev/salve/service"
)

// heal clones the job's repository and heals it on the job's branch. When
// an earlier delivery already pushed that branch (its worker died before
// recording the outcome), the heal resumes from the pushed branch, so the
// job still has one branch, never a second.
func (w *Worker) heal(ctx context.Context, msg service.Message, log *slog.Logger) (*heal.Results, bool, string, error) {
	repo, ref := msg.Request.Repo, msg.Request.Ref
	branch := service.BranchFor(msg.ID)
	tmp, err := os.MkdirTemp(w.TempDir, "salve-job-")
	if err != nil {
		return nil, false, "", fmt.Errorf("worker: temp dir: %w", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	if ref != "" {
		sha, err := lsRemote(ctx, repo, "refs/heads/"+ref)
		if err != nil {
			return nil, false, "", err
		}
		if sha == "" {
			return nil, false, "", permanent(fmt.Errorf("the ref %q does not exist in %s", ref, repo))
		}
	}
	prev, err := lsRemote(ctx, repo, "refs/heads/"+branch)
	if err != nil {
		return nil, false, "", err
	}
	dir := filepath.Join(tmp, "repo")
	args := []string{"clone", "--quiet", "--no-tags", "--single-branch"}
	if ref != "" {
		args = append(args, "--branch", ref)
	}
	if _, err := git(ctx, tmp, append(args, "--", repo, dir)...); err != nil {
		return nil, false, "", classify(fmt.Errorf("clone %s: %w", repo, err))
	}
	resumed := prev != ""
	if resumed {
		log.Info("the heal branch was already pushed by an earlier delivery; resuming from it", "branch", branch, "commit", prev)
		if _, err := git(ctx, dir, "fetch", "--quiet", "--no-tags", "origin", "+refs/heads/"+branch+":refs/remotes/origin/"+branch); err != nil {
			return nil, true, "", fmt.Errorf("fetch %s: %w", branch, err)
		}
		if _, err := git(ctx, dir, "checkout", "--quiet", "--detach", "refs/remotes/origin/"+branch); err != nil {
			return nil, true, "", fmt.Errorf("check out %s: %w", branch, err)
		}
	}
	res, err := w.Heal(ctx, Spec{Dir: dir, Branch: branch, RunID: msg.ID, Cmd: msg.Request.Cmd, Fixers: msg.Request.Fixers, Logger: log})
	if res != nil {
		res.Repo = repo // the job's repository, not the temporary clone
	}
	if err != nil {
		if errors.Is(err, heal.ErrBadInput) {
			err = permanent(err)
		}
		return res, resumed, "", fmt.Errorf("heal: %w", err)
	}
	commit, err := lsRemote(ctx, repo, "refs/heads/"+branch)
	if err != nil {
		return res, resumed, "", fmt.Errorf("read back the heal branch: %w", err)
	}
	if len(res.Commits) > 0 && commit == "" {
		return res, resumed, "", fmt.Errorf("the heal committed %d fix(es) but branch %s is not on the remote", len(res.Commits), branch)
	}
	return res, resumed, commit, nil
}

// lsRemote returns the commit of ref on repo, or "" when it has none.
func lsRemote(ctx context.Context, repo, ref string) (string, error) {
	out, err := git(ctx, "", "ls-remote", "--", repo, ref)
	if err != nil {
		return "", classify(fmt.Errorf("git ls-remote %s: %w", repo, err))
	}
	for _, l := range strings.Split(out, "\n") {
		if sha, name, ok := strings.Cut(l, "\t"); ok && name == ref {
			return sha, nil
		}
	}
	return "", nil
}

// defaultBranch returns the branch the remote's HEAD points at.
func defaultBranch(ctx context.Context, repo string) (string, error) {
	out, err := git(ctx, "", "ls-remote", "--symref", "--", repo, "HEAD")
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "ref: refs/heads/"); ok {
			if b, _, ok := strings.Cut(rest, "\t"); ok {
				return b, nil
			}
		}
	}
	return "", fmt.Errorf("%s has no default branch", repo)
}

// classify makes errors that no retry can mend permanent: a repository that
// does not exist or is not a git repository.
func classify(err error) error {
	s := err.Error()
	for _, p := range []string{"does not appear to be a git repository", "Repository not found", "not found", "No such file or directory", "not a git repository"} {
		if strings.Contains(s, p) {
			return permanent(err)
		}
	}
	return err
}

// gitEnv is the environment of the worker's git: the allowed basics plus
// what git's own credentials need (ssh agent, credential helpers through
// HOME and git's config variables, proxies). These come from the worker's
// environment, never from the job.
var gitEnv = []string{
	"SSH_AUTH_SOCK", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM",
	"XDG_CONFIG_HOME", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy",
	"GIT_SSL_CAINFO", "SSL_CERT_FILE", "SSL_CERT_DIR",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
}

// git runs git with prompts off and the ext and fd transports refused, so
// a hostile URL can neither hang the worker nor run a command.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	env := sandbox.MergeEnv(sandbox.AllowedEnv(gitEnv...), map[string]string{"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
	res, err := sandbox.Run(ctx, sandbox.Cmd{
		Path: "git", Args: append([]string{"-c", "protocol.ext.allow=never", "-c", "protocol.fd.allow=never"}, args...),
		Dir: dir, Env: env, Timeout: 30 * time.Minute,
	})
	if err != nil {
		return "", err
	}
	if res.ExitCode != 0 {
		return "", fmt.Errorf("git %s: exit %d: %s", args[0], res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	return string(res.Stdout), nil
}
