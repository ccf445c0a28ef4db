package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/internal/gitagent/server"
	"github.com/salve-dev/salve/internal/gitguard"
	"github.com/salve-dev/salve/internal/gitremote"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/service"
)

// heal makes the job's repository ready (a fetch into the repository's
// kept clone, then a clone of the job's own from it) and heals it on the
// job's branch. When an earlier delivery already pushed that branch (its
// worker died before recording the outcome), the heal resumes from the
// pushed branch, so the job still has one branch, never a second.
func (w *Worker) heal(ctx context.Context, msg service.Message, log *slog.Logger) (*results.Results, bool, string, error) {
	began := time.Now()
	repo, ref := msg.Request.Repo, msg.Request.Ref
	if err := w.checkRemote(ctx, repo); err != nil {
		return nil, false, "", err
	}
	src := source{Base: repo}
	if up := msg.Request.Upstream; up != "" {
		// A fork's change: the fork is fetched into its own namespace; the
		// upstream's branches (its rules among them) are the trusted ones.
		if err := w.checkRemote(ctx, up); err != nil {
			return nil, false, "", err
		}
		src.Base, src.Fork = up, repo
	}
	branch := service.BranchFor(msg.ID)
	tmp, err := os.MkdirTemp(w.TempDir, "salve-job-")
	if err != nil {
		return nil, false, "", fmt.Errorf("worker: temp dir: %w", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	names := []string{"refs/heads/" + branch}
	if ref != "" {
		names = append(names, "refs/heads/"+ref)
	}
	head, refs, err := remoteHeads(ctx, repo, names...)
	if err != nil {
		return nil, false, "", err
	}
	if ref != "" && refs["refs/heads/"+ref] == "" {
		return nil, false, "", permanent(fmt.Errorf("the ref %q does not exist in %s", ref, repo))
	}
	prev := refs["refs/heads/"+branch]
	resumed := prev != ""
	src.Ref = ref
	if ref == "" {
		if src.Ref = head; head == "" || refs["HEAD"] == "" {
			return nil, false, "", permanent(fmt.Errorf("%s has no default branch", repo))
		}
	}
	// The repository's rules come from its default branch (the upstream's
	// for a fork), never from the commit under heal (the assembly checks
	// the branch does not hold it: a push to the default branch has no
	// base).
	src.Target, err = head, nil
	targetTip := refs["HEAD"]
	if src.Fork != "" {
		src.Target, targetTip, err = remoteDefault(ctx, src.Base)
	} else if refs["HEAD"] == "" {
		err = fmt.Errorf("%s has no default branch", repo)
	}
	if err != nil {
		log.Warn("the remote's default branch is unknown; the repository's .salve.yml is not read", "error", err)
		src.Target = ""
	}
	switch sha := msg.Request.Sha; {
	case resumed:
		src.Resume = branch
		log.Info("the heal branch was already pushed by an earlier delivery; resuming from it", "branch", branch, "commit", prev)
	case sha != "":
		src.Sha, src.Local = sha, ref
		log.Info("healing the commit that failed", "sha", sha)
	default:
		src.Local = src.Ref
	}
	// What the remote said its branches are at: a branch the kept clone
	// already has at that commit is not fetched again.
	refTip := refs["refs/heads/"+ref]
	if ref == "" {
		refTip = refs["HEAD"]
	}
	src.Tips = map[string]string{}
	for _, t := range []struct {
		branch, sha string
		fork        bool
	}{{src.Target, targetTip, false}, {src.Ref, refTip, src.Fork != ""}, {src.Resume, prev, src.Fork != ""}} {
		if t.branch != "" && t.sha != "" {
			src.Tips[src.dst(t.branch, t.fork)] = t.sha
		}
	}
	co, err := w.checkout(ctx, tmp, src, log)
	if err != nil {
		return nil, resumed, "", err
	}
	defer co.release()
	w.Metrics.checkout(co.How)
	log.Info("repository ready", "how", co.How, "seconds", time.Since(began).Seconds())
	pushEnv, err := w.Forges.PushEnv(repo, msg.Request.Source, msg.Request.Installation)
	if err != nil {
		return nil, resumed, "", fmt.Errorf("worker: push as the GitHub App: %w", err)
	}
	identity, untrusted := cacheKey(msg.Request)
	worktree := "" // the heal's persistent worktree of the job's clone, which stays in its job folder
	if co.How == HowPrivate {
		worktree = filepath.Join(tmp, "heal-worktree")
	}
	res, err := w.Heal(ctx, Spec{Dir: co.Dir, WorktreeDir: worktree, Branch: branch, RunID: msg.ID, Cmd: msg.Request.Cmd, Fixers: msg.Request.Fixers,
		Models: msg.Request.Models, Sha: msg.Request.Sha, PushEnv: pushEnv, RepoIdentity: identity, Untrusted: untrusted,
		Ref: ref, Target: src.Target, Logger: log})
	if res != nil {
		res.Repo = repo // the job's repository, not the job's clone
	}
	if err != nil {
		if errors.Is(err, heal.ErrBadInput) {
			err = permanent(err)
		}
		return res, resumed, "", fmt.Errorf("heal: %w", err)
	}
	// The branch's commit on the remote: the heal pushes after every
	// commit and fails when a push fails, so a heal that pushed left the
	// remote's branch at its last commit (the remote accepted it); one that
	// pushed nothing left it where an earlier delivery pushed it, or made
	// none.
	commit := ""
	switch {
	case res.Pushed:
		commit = res.HeadCommit
	case resumed:
		commit = prev
	}
	if len(res.Commits) > 0 && (!res.Pushed || commit == "") {
		return res, resumed, "", fmt.Errorf("the heal committed %d fix(es) but did not push branch %s", len(res.Commits), branch)
	}
	return res, resumed, commit, nil
}

func refOrDefault(ref string) string {
	if ref == "" {
		return "default branch"
	}
	return "branch " + ref
}

// remoteHeads reads repo's refs in one ls-remote: the branch its HEAD
// names ("" when none), and the commit of HEAD and of each of refs that
// exists (exact names).
func remoteHeads(ctx context.Context, repo string, refs ...string) (string, map[string]string, error) {
	out, err := git(ctx, "", append([]string{"ls-remote", "--symref", "--", repo, "HEAD"}, refs...)...)
	if err != nil {
		return "", nil, classify(fmt.Errorf("git ls-remote %s: %w", repo, err))
	}
	head, commits := parseHeads(out, refs)
	return head, commits, nil
}

// parseHeads reads the output of git ls-remote --symref (a remote's
// answer, so anything): the branch HEAD names, when it is a branch name
// the git agent accepts (it becomes part of refspecs), and the commits of
// HEAD and of the exact names in refs; every other line is passed over.
func parseHeads(out string, refs []string) (string, map[string]string) {
	head, commits := "", map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "ref: refs/heads/"); ok {
			if b, name, ok := strings.Cut(rest, "\t"); ok && name == "HEAD" && server.ValidateBranchName(b) == nil {
				head = b
			}
			continue
		}
		if sha, name, ok := strings.Cut(l, "\t"); ok && (name == "HEAD" || slices.Contains(refs, name)) {
			commits[name] = sha
		}
	}
	return head, commits
}

// defaultBranch returns the branch the remote's HEAD points at.
func defaultBranch(ctx context.Context, repo string) (string, error) {
	head, _, err := remoteDefault(ctx, repo)
	return head, err
}

// remoteDefault returns the branch the remote's HEAD points at, and its
// commit.
func remoteDefault(ctx context.Context, repo string) (branch, sha string, err error) {
	head, commits, err := remoteHeads(ctx, repo)
	if err != nil {
		return "", "", err
	}
	if head == "" || commits["HEAD"] == "" {
		return "", "", fmt.Errorf("%s has no default branch", repo)
	}
	return head, commits["HEAD"], nil
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

// EnvAllowPrivateRemotes, set to "1" or "true" in a worker's environment,
// lets its jobs' repositories live at loopback, link-local or private
// addresses (a git server on the worker's own network). Without it the
// worker refuses them, so that a job cannot make it reach the services
// around it (see docs/security.md).
const EnvAllowPrivateRemotes = "SALVE_WORKER_ALLOW_PRIVATE_REMOTES"

// lookupTimeout bounds the name resolution of checkRemote.
const lookupTimeout = 10 * time.Second

// checkRemote refuses, as a permanent failure, a job repository the worker
// must not reach: a transport outside https, ssh, git, file and local
// paths (gitremote.Check, git_agent's own policy), credentials in the URL,
// and, unless EnvAllowPrivateRemotes is set, a loopback, link-local or
// private address.
func (w *Worker) checkRemote(ctx context.Context, repo string) error {
	if err := gitremote.Check(repo); err != nil {
		return permanent(fmt.Errorf("worker: the repository is refused: %w", err))
	}
	if err := gitremote.CheckCredentials(repo); err != nil {
		return permanent(fmt.Errorf("worker: the repository is refused: %w", err))
	}
	if w.allowPrivateRemotes() {
		return nil
	}
	lookup := func(ctx context.Context, host string) ([]netip.Addr, error) {
		ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
		defer cancel()
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}
	if err := gitremote.CheckPublic(ctx, repo, lookup); err != nil {
		return permanent(fmt.Errorf("worker: the repository is refused: %w (a worker allows such addresses only with %s=1 in its environment)", err, EnvAllowPrivateRemotes))
	}
	return nil
}

func (w *Worker) allowPrivateRemotes() bool {
	if w.AllowPrivateRemotes {
		return true
	}
	getenv := w.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	v, _ := strconv.ParseBool(getenv(EnvAllowPrivateRemotes))
	return v
}

// git runs git with gitguard's rule for an untrusted repository: its
// hardened settings and environment (no hooks, prompts, pagers or
// submodule recursion) and the transports gitguard.Remote allows, so a
// hostile URL or repository can neither hang the worker nor run a command.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	return gitIn(ctx, dir, nil, args...)
}

// gitIn is git with stdin as git's standard input (nil: none).
func gitIn(ctx context.Context, dir string, stdin io.Reader, args ...string) (string, error) {
	over := gitguard.Env()
	over["LC_ALL"] = "C" // git's messages are read by classify
	env := sandbox.MergeEnv(sandbox.AllowedEnv(gitEnv...), over)
	res, err := sandbox.Run(ctx, sandbox.Cmd{
		Path: "git", Args: gitguard.Args(gitguard.Remote, args...),
		Dir: dir, Env: env, Stdin: stdin, Timeout: 30 * time.Minute,
	})
	if err != nil {
		return "", err
	}
	if res.ExitCode != 0 {
		return "", fmt.Errorf("git %s: exit %d: %s", args[0], res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	return string(res.Stdout), nil
}
