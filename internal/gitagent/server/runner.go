package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
)

// Defaults of an [Runner] whose fields are zero.
const (
	// DefaultGitTimeout bounds one git command.
	DefaultGitTimeout = 5 * time.Minute
	// DefaultMaxOutput caps each of git's streams kept for the response;
	// longer output keeps its head and tail and is flagged truncated.
	DefaultMaxOutput = 8 << 20
)

// PassEnv lists the variables, beyond [sandbox.DefaultAllowEnv], that the
// agent passes on to git: identity, configuration and transport settings.
// GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE are deliberately absent: they
// would point git away from the repository the paths were checked against.
var PassEnv = []string{
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
	"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
	"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_CEILING_DIRECTORIES",
	"GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_AUTH_SOCK", "XDG_CONFIG_HOME",
}

// GitEnv returns the environment the agent gives git: the allowed variables
// of this process, with terminal prompts off, so a push never waits for a
// password. (git's own protocol policy already refuses the "ext" transport.)
//
// Of git's environment configuration (GIT_CONFIG_COUNT and its keys and
// values) only http.extraHeader passes ([ConfigEnv]).
func GitEnv() []string {
	return sandbox.MergeEnv(append(sandbox.AllowedEnv(PassEnv...), processConfigEnv()...), map[string]string{
		"GIT_TERMINAL_PROMPT": "0",
	})
}

// Runner runs git actions. The zero value runs "git" from PATH in the
// current directory with [GitEnv], [DefaultGitTimeout] and
// [DefaultMaxOutput], and logs nothing.
type Runner struct {
	// Dir is the directory git runs in (git -C Dir); it may be anywhere in
	// the work tree. Empty means the process's working directory.
	Dir string
	// Git is the git program; empty means "git" from PATH.
	Git string
	// Env is git's whole environment; nil means [GitEnv].
	Env []string
	// Timeout bounds each git command; zero means [DefaultGitTimeout].
	Timeout time.Duration
	// MaxOutput caps each captured stream; zero means [DefaultMaxOutput].
	MaxOutput int
	// Logger receives one record per git command; nil discards them.
	Logger *slog.Logger
	// Pin, when set, fixes git's directory and work tree (GIT_DIR and
	// GIT_WORK_TREE), so the work tree's .git is never read. Dir then
	// defaults to Pin.WorkTree.
	Pin *Pin
	// DefaultIdentity, when set, is who a git_commit is made as where git
	// knows no identity (no user.name or user.email in its configuration,
	// no GIT_AUTHOR_* or GIT_COMMITTER_* variables): a fresh CI runner.
	// A configured identity always wins. Nil leaves git to fail.
	DefaultIdentity *Identity
}

// Identity is a git author or committer.
type Identity struct {
	Name, Email string
}

// Execute runs the git command of req and returns its result. It never
// fails: problems come back as an error result (output_type "error") whose
// metadata holds error_kind, and exit_code when git itself failed.
func (a *Runner) Execute(ctx context.Context, req *Request) contract.ActionResult {
	spec, ok := actionTable[req.Action]
	if !ok {
		return failure(KindUnsupportedAction, fmt.Sprintf("unknown action %q", req.Action), nil)
	}
	if a.Pin != nil {
		if err := a.Pin.Check(); err != nil {
			return failure(KindInvalidInvocation, "git_agent: "+err.Error(), nil)
		}
	}
	dir, err := a.dir()
	if err != nil {
		return failure(KindInternal, err.Error(), nil)
	}
	if req.Action == ActionGitWorktree && req.Command.Ref == WorktreeGitDir {
		return a.worktreeGitDir(ctx, dir, req.Command.Files[0])
	}
	if req.Action == ActionGitWorktree && req.Command.Ref == WorktreeGitlinks {
		return a.worktreeGitlinks(ctx, dir)
	}
	if req.Action == ActionGitBranchPrune {
		return a.pruneBranches(ctx, dir, req.Command)
	}
	var paths []string
	if spec.paths && len(req.Command.Files) > 0 {
		root, res := a.root(ctx, dir)
		if res != nil {
			return *res
		}
		base, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return failure(KindInternal, fmt.Sprintf("resolve working directory: %v", err), nil)
		}
		if paths, err = repoPaths(root, base, req.Command.Files); err != nil {
			return failure(KindPathRefused, err.Error(), nil)
		}
		dir = root
	}
	args, stdin := spec.build(req.Command, paths)
	if req.Action == ActionGitWorktree && req.Command.Ref == WorktreeAdd {
		return a.worktreeAdd(ctx, dir, req.Command.Files[0], args)
	}
	if req.Action == contract.ActionGitCommit && a.DefaultIdentity != nil {
		return a.result(a.withIdentity(ctx, dir).git(ctx, req.Action, dir, spec.paths, args, stdin))
	}
	return a.result(a.git(ctx, req.Action, dir, spec.paths, args, stdin))
}

// withIdentity returns a runner whose git commits as DefaultIdentity for
// each role (author, committer) git cannot name itself (`git var` fails).
func (a *Runner) withIdentity(ctx context.Context, dir string) *Runner {
	// The two questions are independent: both run at once.
	roles := []string{"AUTHOR", "COMMITTER"}
	known := make([]bool, len(roles))
	var wg sync.WaitGroup
	for i, role := range roles {
		wg.Go(func() {
			run := a.git(ctx, "git_var", dir, false, []string{"var", "GIT_" + role + "_IDENT"}, "")
			known[i] = run.err == nil && run.res.ExitCode == 0
		})
	}
	wg.Wait()
	over := map[string]string{}
	for i, role := range roles {
		if !known[i] {
			over["GIT_"+role+"_NAME"], over["GIT_"+role+"_EMAIL"] = a.DefaultIdentity.Name, a.DefaultIdentity.Email
		}
	}
	if len(over) == 0 {
		return a
	}
	b := *a
	env := a.Env
	if env == nil {
		env = GitEnv()
	}
	b.Env = sandbox.MergeEnv(env, over)
	return &b
}

func (a *Runner) dir() (string, error) {
	dir := a.Dir
	if dir == "" && a.Pin != nil {
		dir = a.Pin.WorkTree
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("working directory: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("working directory %s: %w", dir, err)
	}
	return abs, nil
}

// root finds the work tree's top directory, symbolic links resolved. When
// dir is not in a work tree it returns git's own error result. A pinned
// runner's work tree is the pin's (git's own answer, with GIT_WORK_TREE
// set): no git command asks for it.
func (a *Runner) root(ctx context.Context, dir string) (string, *contract.ActionResult) {
	if a.Pin != nil {
		real, err := filepath.EvalSymlinks(a.Pin.WorkTree)
		if err != nil {
			r := failure(KindInternal, fmt.Sprintf("resolve repository root: %v", err), nil)
			return "", &r
		}
		return real, nil
	}
	run := a.git(ctx, "", dir, false, []string{"rev-parse", "--show-toplevel"}, "")
	res := a.result(run)
	if res.OutputType != contract.OutputText {
		return "", &res
	}
	top := strings.TrimRight(res.Data, "\r\n")
	if top == "" {
		r := failure(KindGitFailed, "not inside a work tree (bare repository or .git directory)", nil)
		return "", &r
	}
	real, err := filepath.EvalSymlinks(filepath.FromSlash(top))
	if err != nil {
		r := failure(KindInternal, fmt.Sprintf("resolve repository root: %v", err), nil)
		return "", &r
	}
	return real, nil
}

// gitRun is the outcome of one git command.
type gitRun struct {
	res sandbox.Result
	err error
	// timeout is the limit that applied, for the message.
	timeout time.Duration
}

// git runs "git -c SAFE… -C dir [--literal-pathspecs] args…" through the
// sandbox, with the hardened configuration and environment of action (see
// safegit.go) and, when the runner is pinned, GIT_DIR and GIT_WORK_TREE.
func (a *Runner) git(ctx context.Context, action, dir string, literal bool, args []string, stdin string) gitRun {
	full := append(configArgs(action), "-C", dir)
	if literal {
		// Pathspec magic (":(exclude)", globs) is never interpreted: a
		// path is a path.
		full = append(full, "--literal-pathspecs")
	}
	full = append(full, args...)
	c := sandbox.Cmd{
		Path:      a.Git,
		Args:      full,
		Env:       a.Env,
		Timeout:   a.Timeout,
		MaxOutput: a.MaxOutput,
	}
	if c.Path == "" {
		c.Path = "git"
	}
	if c.Env == nil {
		c.Env = GitEnv()
	}
	over := make(map[string]string, len(hardenedEnv)+2)
	for k, v := range hardenedEnv {
		over[k] = v
	}
	if a.Pin != nil {
		over["GIT_DIR"], over["GIT_WORK_TREE"] = a.Pin.GitDir, a.Pin.WorkTree
	}
	c.Env = sandbox.MergeEnv(c.Env, over)
	if c.Timeout == 0 {
		c.Timeout = DefaultGitTimeout
	}
	if c.MaxOutput == 0 {
		c.MaxOutput = DefaultMaxOutput
	}
	if stdin != "" {
		c.Stdin = strings.NewReader(stdin)
	}
	res, err := sandbox.Run(ctx, c)
	a.logger().Info("git command",
		slog.Any("args", redactArgs(full)), slog.Int("exit_code", res.ExitCode),
		slog.Bool("timed_out", res.TimedOut), slog.Int64("duration_ms", res.Duration.Milliseconds()),
		slog.Any("error", errString(err)))
	return gitRun{res: res, err: err, timeout: c.Timeout}
}

// result turns a git run into an ActionResult
// (docs/contracts/git-agent.md §3.2).
func (a *Runner) result(run gitRun) contract.ActionResult {
	res := run.res
	switch {
	case errors.Is(run.err, sandbox.ErrNotFound):
		return failure(KindGitUnavailable, fmt.Sprintf("git is not installed or not in PATH: %v", run.err), nil)
	case run.err != nil:
		return failure(KindInternal, fmt.Sprintf("start git: %v", run.err), nil)
	case res.TimedOut:
		return failure(KindTimeout, fmt.Sprintf("git timed out after %s", run.timeout), nil)
	case res.ExitCode != 0:
		msg := string(res.Stderr)
		if strings.TrimSpace(msg) == "" {
			msg = string(res.Stdout)
		}
		if strings.TrimSpace(msg) == "" {
			msg = fmt.Sprintf("git exited with status %d%s\n", res.ExitCode, signalNote(res.Signal))
		}
		return failure(KindGitFailed, msg, map[string]any{"exit_code": res.ExitCode})
	}
	var meta map[string]any
	if res.Truncated {
		meta = map[string]any{"truncated": true, "stdout_bytes": res.StdoutBytes}
	}
	return textResult(string(res.Stdout), meta)
}

// redactArgs returns args for the log, with the user information of URLs
// ("https://user:token@host/…", a git_push remote) replaced by
// "[REDACTED]": credentials must not reach the logs.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, arg := range args {
		out[i] = redactURL(arg)
	}
	return out
}

// redactURL hides the user information of a "scheme://user@host/…" URL.
func redactURL(s string) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	rest := s[i+3:]
	host := rest
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		host = rest[:end]
	}
	at := strings.LastIndexByte(host, '@')
	if at < 0 {
		return s
	}
	return s[:i+3] + "[REDACTED]@" + rest[at+1:]
}

func signalNote(sig string) string {
	if sig == "" {
		return ""
	}
	return " (" + sig + ")"
}

func errString(err error) any {
	if err == nil {
		return nil
	}
	return err.Error()
}

func (a *Runner) logger() *slog.Logger {
	if a.Logger == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return a.Logger
}
