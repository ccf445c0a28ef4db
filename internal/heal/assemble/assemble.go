// Package assemble builds a heal from one configuration: the executor, the
// parser, the fixer tiers of the one tier table (internal/heal/tiers), the
// CI monitor, the git agent, the run store and the core's options. Every
// entry point (salve heal, the MCP heal tool, the queue worker) fills a
// Config and runs what New returns, so a heal is wired the same way
// wherever it starts.
package assemble

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/adapter"
	"github.com/salve-dev/salve/internal/heal/agentfix"
	"github.com/salve-dev/salve/internal/heal/aiderfix"
	"github.com/salve-dev/salve/internal/heal/ci"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/history"
	"github.com/salve-dev/salve/internal/heal/llmfix"
	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/heal/rules"
	"github.com/salve-dev/salve/internal/heal/suggest"
	"github.com/salve-dev/salve/internal/heal/target"
	"github.com/salve-dev/salve/internal/heal/tiers"
	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/toolrun"
)

// Config is everything an entry point says about one heal. The zero value
// of a field means what salve heal's flag means when it is not given,
// except where the field says otherwise.
type Config struct {
	// Workspace is the repository to heal (or a folder inside it).
	Workspace string
	// Command is the build command; empty lets the executor detect it.
	Command string
	// ProjectType overrides the executor's detection.
	ProjectType string
	// Fixers is the comma-separated tier list of internal/heal/tiers;
	// empty means the default list.
	Fixers string
	// Models are the llm targets in fallback order, provider/model.
	Models []string
	// ConfigFile is an .ai-agent.json with the llm providers.
	ConfigFile string
	// ExplainLLM adds a stand-in llm tier when the llm tier is not in the
	// list, so a red bug says how to enable it (salve heal's output).
	ExplainLLM bool
	// AiderEnv is the environment of the tiers that run an external tool
	// (aider, claude), the secrets salve took out of its own put back; nil
	// gives the tool adapter's default.
	AiderEnv []string
	// MinConfidence is the fix gate's threshold; zero means the default.
	MinConfidence float64
	// MaxIterations bounds the fix loop; zero means the default.
	MaxIterations int
	// Branch is the heal branch; empty means salve/heal-<run id>.
	Branch string
	// Push pushes the heal branch to Remote after each commit.
	Push bool
	// Remote is the remote for Push; empty means origin.
	Remote string
	// Lease, when set, runs once the git agent is found, before the heal
	// (salve heal --pr: the branch of its request): it returns the heal
	// branch (empty keeps Branch) and the commit the first push may
	// replace on the remote heal branch (see heal.Options.PushLease).
	Lease func(ctx context.Context, git adapter.Git) (branch, lease string, err error)
	// CI is the CI monitor: "local" (empty too) or "github".
	CI string
	// GitHubRepo (owner/name) and GitHubAPI configure CI "github"; empty
	// means $GITHUB_REPOSITORY and $GITHUB_API_URL.
	GitHubRepo, GitHubAPI string
	// CITimeout bounds how long CI "github" waits for the checks.
	CITimeout time.Duration
	// BuildTimeout bounds each build, in seconds; zero means the
	// contract's default.
	BuildTimeout int
	// Isolation is the build sandbox (auto, none, bwrap, docker, podman).
	Isolation string
	// Backends, when set, shares the sandbox chosen for each isolation
	// and image with the other heals of the process that hold it (a
	// worker's jobs), so that each does not probe again.
	Backends *executor.Backends
	// WorktreeDir, when set, is a fresh worktree for this run, removed at
	// its end; empty means one of salve's persistent worktrees.
	WorktreeDir string
	// KeepWorktree says what the heal does with its worktree at the end
	// (heal.WorktreeKeep): the zero value keeps a large repository's
	// persistent worktree, clean, and removes the others. The number of
	// tracked files that makes a repository large is read from
	// $SALVE_KEEP_WORKTREE_FILES (heal.KeepFiles).
	KeepWorktree heal.WorktreeKeep
	// Rules says how the repository's .salve.yml, read from the base of
	// the change, applies: the caller's settings win where Explicit
	// names them (RulesRepo, the zero value), or are a floor the file may
	// only tighten (RulesFloor), or the file is left unread (RulesNone).
	Rules Rules
	// Explicit names the settings the caller set itself (SetCommand…);
	// under RulesRepo they win over the file.
	Explicit []string
	// RepoConfigRef is the commit to read the file from; empty means the
	// target branch's tip, else the remote's default branch (see baseRev).
	RepoConfigRef string
	// TargetBranch is the branch the change is proposed to; empty means
	// what CI names (GITHUB_BASE_REF, CI_MERGE_REQUEST_TARGET_BRANCH_NAME).
	TargetBranch string
	// BuildBranch is the branch the failing build ran on, for
	// skip_branches; empty means what CI names, else the checkout's.
	BuildBranch string
	// Mode is what a failing pull request gets (repoconfig.ModePR…):
	// the caller's, else the file's; New fills it from the file.
	Mode string
	// AllowTestEdits lets fixes edit tests (never weaken them);
	// AllowTestEditsBy says who allowed it (empty: --allow-test-edits).
	AllowTestEdits   bool
	AllowTestEditsBy string
	// AcceptUnproven commits fixes of failing tests whose pass the test
	// runner's own output cannot prove (heal.Options.AcceptUnproven).
	AcceptUnproven bool
	// ProtectedPaths are globs no fix may edit: the caller's, to which
	// New adds the file's. RepoConfig, filled by New, records what the
	// file set, for results.json.
	RepoConfig     *results.RepoConfig
	ProtectedPaths []string
	// GitEnv, when set, adds to the git agent's environment before each
	// action: a GitHub App's push credential, refreshed as it ages.
	GitEnv func(ctx context.Context, action string) ([]string, error)
	// UntrustedChange says the change under heal comes from someone salve
	// does not trust with the repository's build-cache layer (a fork): its
	// builds write a throw-away layer, removed when the heal ends
	// (executor.Options.UntrustedChange).
	UntrustedChange bool
	// RepoIdentity names the repository for its build-cache layer; empty
	// means executor.RepoIdentity of Workspace: its Remote's URL, else the
	// root commit of RepoConfig.Rev (the base) when set, else of HEAD.
	RepoIdentity string
	// CacheBudget is the build cache's budget, checked after the heal
	// (executor.TrimCaches); zero means $SALVE_BUILD_CACHE_MAX or
	// executor.DefaultCacheCap, negative that the heal does not trim (its
	// caller does, as the worker after each job).
	CacheBudget int64
	// StorePath is the run store; empty means the default one.
	StorePath string
	// NoStore leaves the run unrecorded.
	NoStore bool
	// GitAgent is the git_agent program; empty means GitAgent's search.
	GitAgent string
	// RunID names the run; empty means a new one.
	RunID string
	// Progress receives live progress; nil means none.
	Progress heal.Progress
	// Getenv reads the environment, secrets included.
	Getenv func(string) string
	// Logger receives log records; nil discards them.
	Logger *slog.Logger
}

// Pipeline is one assembled heal.
type Pipeline struct {
	// Git is the git agent the heal commits through; a caller opens its
	// pull request with it.
	Git adapter.Git
	// Config is the configuration the heal runs under, the repository's
	// file applied (its Mode, Command, Fixers…).
	Config Config
	// Notes are what the caller should show the user before the heal
	// (the file was not read, and why).
	Notes []string
	// Fixers are the tiers, in order (a stand-in included).
	Fixers []heal.Fixer
	opts   heal.Options
	store  *store.Store
	exec   *executor.Executor
	budget int64
	logger *slog.Logger
	// identity names the repository's build-cache layer ("" for none).
	identity string
}

// New assembles the heal of c. Its error wraps heal.ErrBadInput (a bad
// configuration, or Lease failed) or heal.ErrEnvironment (git or the git
// agent missing), and reads as its cause.
func New(ctx context.Context, c Config) (p *Pipeline, err error) {
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	// git and the git agent; a missing one is reported after the
	// settings are checked, so a bad flag is named first.
	var missing error
	if _, err := exec.LookPath("git"); err != nil {
		missing = fmt.Errorf("git is not installed: %w", err)
	}
	agent, err := GitAgent(c.GitAgent, c.Getenv)
	if missing == nil && err != nil {
		missing = err
	}
	git := adapter.Git{Bin: agent, ExtraEnv: c.GitEnv}
	// The heal's setup starts with reads of the repository that do not
	// depend on its rules (its worktrees, uncommitted changes, whether
	// the heal branch exists): they run beside the rules' read and the
	// rest of the assembly, and the run takes them over.
	if c.RunID == "" {
		c.RunID = uuid.NewString()
	}
	var reads *heal.SetupReads
	if missing == nil {
		// A lease may name another branch: the run then asks again.
		branch := c.Branch
		if branch == "" {
			branch = heal.DefaultBranch(c.RunID)
		}
		reads = heal.StartSetupReads(ctx, git, adapter.Worktrees{Git: git}, c.Workspace, branch)
		defer func() {
			if p == nil {
				reads.Wait() // no read outlives a failed assembly
			}
		}()
	}
	// The user's checkout: its node_modules and target/ are shared with the
	// sandboxed builds in the heal worktree, read-only. Its identity (for
	// the build-cache layer) is looked up beside the rules: the remote's
	// URL, and the root commit from HEAD, which is the answer when the
	// rules name no other base.
	source, _ := filepath.Abs(c.Workspace)
	type remoteID struct {
		id string
		ok bool
	}
	remote := func() remoteID { return remoteID{} }
	root := func() string { return "" }
	if c.RepoIdentity == "" && missing == nil {
		remote = heal.Beside(func() remoteID {
			id, ok := executor.RemoteIdentity(ctx, source, c.Remote)
			return remoteID{id, ok}
		})
		root = heal.Beside(func() string {
			id, _ := executor.RootIdentity(ctx, source, "")
			return id
		})
		defer remote() // no git of the lookups outlives New
		defer root()
	}
	// The repository's rules, from the base, before anything they shape.
	var notes []string
	if missing == nil {
		notes, err = repoRules(ctx, &c, git)
		var off *OffError
		if errors.As(err, &off) {
			return nil, err
		}
		if err != nil {
			return nil, kindError{heal.ErrBadInput, err}
		}
	}
	identity := c.RepoIdentity
	if identity == "" {
		// None found: the builds get no layer.
		switch r := remote(); {
		case r.ok:
			identity = r.id
		case c.RepoConfig != nil && c.RepoConfig.Rev != "":
			identity, _ = executor.RootIdentity(ctx, source, c.RepoConfig.Rev)
		default:
			identity = root()
		}
	}
	budget := c.CacheBudget
	if budget == 0 {
		var err error
		if budget, err = executor.CacheBudget(c.Getenv); err != nil {
			return nil, kindError{heal.ErrBadInput, err}
		}
	}
	keepFiles, err := heal.KeepFiles(c.Getenv)
	if err != nil {
		return nil, kindError{heal.ErrBadInput, err}
	}
	var worktreeRoot string
	if c.WorktreeDir == "" {
		// Where the heal keeps its worktrees, and where Run expires the
		// ones no heal used for long; an error is the heal's to report.
		worktreeRoot, _ = heal.DefaultWorktreeRoot(c.Getenv)
	}
	xe := executor.New(executor.Options{Isolation: c.Isolation, Backends: c.Backends, Logger: c.Logger, SourceDir: source,
		RepoIdentity: identity, UntrustedChange: c.UntrustedChange, KeepTestBinaries: true})
	ex := adapter.Executor{E: xe}
	p = &Pipeline{Git: git, Notes: notes, exec: xe, budget: budget, logger: c.Logger, identity: identity}
	// The history tier reads the breaking commit's change through the git
	// agent, in the user's checkout (it shares the heal worktree's
	// objects, and no build ever ran in it).
	commitDiff := func(ctx context.Context, _, base string) (string, error) {
		return p.Git.CommitDiff(ctx, source, base)
	}
	fixers, spend, err := Fixers(c, ex, commitDiff)
	if err != nil {
		return nil, kindError{heal.ErrBadInput, err}
	}
	monitor, err := newCI(c, ex)
	if err != nil {
		return nil, kindError{heal.ErrBadInput, err}
	}
	if missing != nil {
		return nil, kindError{heal.ErrEnvironment, missing}
	}
	var lease string
	if c.Lease != nil {
		var branch string
		if branch, lease, err = c.Lease(ctx, p.Git); err != nil {
			return nil, kindError{heal.ErrBadInput, err}
		}
		if branch != "" {
			c.Branch = branch
		}
	}
	if c.ExplainLLM {
		if note := llmNote(c, fixers); note != nil {
			fixers = append(fixers, note)
		}
	}
	p.Fixers = fixers
	var rec heal.Recorder
	if !c.NoStore {
		p.store, rec = openStore(ctx, c.StorePath, c.Getenv, c.Logger)
	}
	by := c.AllowTestEditsBy
	if c.AllowTestEdits && by == "" {
		by = "--allow-test-edits"
	}
	p.opts = heal.Options{
		Repo: c.Workspace, Command: c.Command, ProjectType: c.ProjectType, BuildTimeout: time.Duration(c.BuildTimeout) * time.Second,
		MaxIterations: c.MaxIterations, MinConfidence: c.MinConfidence, Branch: c.Branch, Push: c.Push, PushLease: lease, Remote: c.Remote,
		WorktreeDir: c.WorktreeDir, WorktreeRoot: worktreeRoot, KeepWorktree: c.KeepWorktree, KeepFiles: keepFiles, RunID: c.RunID, AllowTestEdits: c.AllowTestEdits, AllowTestEditsBy: by,
		AcceptUnproven: c.AcceptUnproven,
		RepoConfig:     c.RepoConfig, ProtectedPaths: c.ProtectedPaths,
		Executor: ex, Parser: adapter.Parser{}, Targets: adapter.Targets{Options: target.Options{Helper: &target.HelperHealth{}}}, Fixers: fixers, Accountants: spend,
		Git: p.Git, Worktrees: adapter.Worktrees{Git: p.Git}, Reads: reads, CI: monitor, Recorder: rec, Progress: c.Progress, Logger: c.Logger,
	}
	p.Config = c
	return p, nil
}

// SettingError is an assembly error about one setting of Config. The
// setting is named as .salve.yml, a job and the MCP heal tool name it
// (fixers, models, ci, github_repo, push); each door shows it in its own
// words (salve heal as the flag that sets it).
type SettingError struct {
	Setting string
	Err     error
}

func (e *SettingError) Error() string { return e.Setting + ": " + e.Err.Error() }
func (e *SettingError) Unwrap() error { return e.Err }

// kindError is an assembly error of a kind (heal.ErrBadInput or
// heal.ErrEnvironment) that reads as its cause alone.
type kindError struct{ kind, err error }

func (e kindError) Error() string   { return e.err.Error() }
func (e kindError) Unwrap() []error { return []error{e.kind, e.err} }

// Options returns the core's options of the pipeline.
func (p *Pipeline) Options() heal.Options { return p.opts }

// Run runs the heal, then removes the throw-away build-cache layer of an
// untrusted change and keeps the build cache within its budget
// (Config.CacheBudget, executor.TrimUsed), and, when the heal used one of
// salve's persistent worktrees, removes those of any repository no heal
// used for heal.DefaultWorktreeMaxAge (heal.ExpireWorktrees).
func (p *Pipeline) Run(ctx context.Context) (*results.Results, error) {
	res, err := heal.Run(ctx, p.opts)
	if p.opts.WorktreeDir == "" && p.opts.WorktreeRoot != "" && ctx.Err() == nil {
		rep, xerr := heal.ExpireWorktrees(ctx, p.opts.WorktreeRoot, p.opts.Worktrees, p.opts.Git, 0)
		for _, path := range rep.Removed {
			p.logger.Info("removed a heal worktree no heal had used for long", "path", path, "unused_for_more_than", heal.DefaultWorktreeMaxAge.String())
		}
		if xerr != nil {
			p.logger.Warn("old heal worktrees were not removed", "error", xerr)
		}
	}
	if derr := p.exec.Discard(); derr != nil {
		p.logger.Warn("the throw-away build-cache layer was not removed", "error", derr)
	}
	if p.budget > 0 {
		// Only the layers this heal's builds used are weighed again; the
		// rest go by the sizes kept since the last full trim (TrimUsed).
		if _, terr := executor.TrimUsed(context.WithoutCancel(ctx), p.exec.CacheDir(), p.exec.UsedCacheDirs(), p.budget, 0); terr != nil {
			p.logger.Warn("the build cache was not trimmed", "error", terr)
		}
	}
	return res, err
}

// Close closes the run store.
func (p *Pipeline) Close() {
	if p.store != nil {
		_ = p.store.Close()
	}
}

// Fixers returns the fixer tiers of c.Fixers (checked against the one
// table of tiers, package internal/heal/tiers), in order, and those of
// them that spend LLM tokens; ex is the Executor the suggest tier re-runs
// compilers with (nil: no re-runs), commitDiff how the history tier reads
// a commit. The llm providers are set up only when the llm tier may run:
// asked for, or by default, where a configuration problem only leaves the
// tier out (with a warning).
func Fixers(c Config, ex heal.Executor, commitDiff func(ctx context.Context, workspace, base string) (string, error)) ([]heal.Fixer, []heal.Accountant, error) {
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	logger := c.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	names, err := tiers.Parse(c.Fixers)
	if err != nil {
		return nil, nil, &SettingError{Setting: "fixers", Err: err}
	}
	explicit := names != nil
	var targets []llmfix.Target
	var cfg *config.Config
	if !explicit || slices.Contains(names, llmfix.Name) || slices.Contains(names, agentfix.Name) {
		cwd, _ := os.Getwd()
		setup := llmfix.Setup{Models: c.Models, ConfigFile: c.ConfigFile, Cwd: cwd, Home: getenv("HOME"), Getenv: getenv}
		if cfg, err = llmfix.Load(setup); err == nil {
			targets, err = llmfix.TargetsFrom(cfg, setup)
		}
		if err != nil && (explicit || c.ConfigFile != "") {
			// A configuration the user named is never left out quietly.
			return nil, nil, err
		}
		if err != nil {
			logger.Warn("the llm tier is left out", "error", err)
		}
	}
	if !explicit {
		names = tiers.Defaults(func(t tiers.Tier) bool { return t.Name == llmfix.Name && len(targets) > 0 })
	}
	var out []heal.Fixer
	var spend []heal.Accountant
	for _, n := range names {
		switch n {
		case history.Name:
			out = append(out, &history.Fixer{Diff: commitDiff})
		case rules.Name:
			out = append(out, &rules.Fixer{})
		case suggest.Name:
			out = append(out, &suggest.Fixer{Executor: ex, TimeoutSeconds: c.BuildTimeout})
		case llmfix.Name:
			if len(targets) == 0 {
				return nil, nil, &SettingError{Setting: "fixers", Err: errors.New("llm: no model configured (name provider/model in models, with an .ai-agent.json, or set OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST)")}
			}
			llm := &llmfix.Fixer{Targets: targets, Logger: logger}
			out, spend = append(out, llm), append(spend, llm)
		case agentfix.Name:
			a, err := newAgent(cfg, targets, logger)
			if err != nil {
				return nil, nil, err
			}
			out, spend = append(out, a), append(spend, a)
		case aiderfix.Name, aiderfix.Claude:
			out = append(out, newTool(c, n))
		default:
			return nil, nil, &SettingError{Setting: "fixers", Err: fmt.Errorf("%w %q: this salve cannot build it (want %s)", tiers.ErrUnknown, n, tiers.Want())}
		}
	}
	return out, spend, nil
}

// llmNote returns a stand-in llm tier that records, on every bug it sees,
// why the llm tier did not run and the exact flags that enable it, or nil
// when the llm tier is in the list.
func llmNote(c Config, fixers []heal.Fixer) heal.Fixer {
	var names []string
	for _, f := range fixers {
		if tiers.AsksModel(f.Name()) {
			// A tier that asks a model is in the list.
			return nil
		}
		names = append(names, f.Name())
	}
	list := strings.Join(append(names, llmfix.Name), ",")
	cwd, _ := os.Getwd()
	targets, err := llmfix.Targets(llmfix.Setup{Models: c.Models, ConfigFile: c.ConfigFile, Cwd: cwd, Home: c.Getenv("HOME"), Getenv: c.Getenv})
	switch {
	case err != nil:
		return heal.Unconfigured{Tier: llmfix.Name, Why: "its provider setup is invalid: " + err.Error(),
			Enable: "fix the provider setup, then run salve heal --fixers " + list}
	case len(targets) > 0:
		return heal.Unconfigured{Tier: llmfix.Name, Why: "not in --fixers " + c.Fixers,
			Enable: "a provider is configured: run salve heal --fixers " + list}
	}
	return heal.Unconfigured{Tier: llmfix.Name, Why: "no LLM provider is configured",
		Enable: "set OPENAI_API_KEY and run salve heal --fixers " + list + " --models openai/gpt-4o" +
			" (or ANTHROPIC_API_KEY with --models anthropic/claude-3-5-haiku-latest, OLLAMA_HOST with --models ollama/qwen2.5-coder, or an .ai-agent.json given with --config)"}
}

// newCI returns the CI monitor of c.CI.
func newCI(c Config, ex heal.Executor) (heal.CIMonitor, error) {
	switch c.CI {
	case "local", "":
		return &ci.Local{Executor: ex}, nil
	case "github":
		repo := c.GitHubRepo
		if repo == "" {
			repo = c.Getenv("GITHUB_REPOSITORY")
		}
		owner, name, ok := strings.Cut(repo, "/")
		if !ok || owner == "" || name == "" {
			return nil, &SettingError{Setting: "github_repo", Err: errors.New("ci github needs the repository as owner/name (or $GITHUB_REPOSITORY)")}
		}
		if !c.Push {
			return nil, &SettingError{Setting: "push", Err: errors.New("ci github judges the pushed commit, so the heal must push")}
		}
		api, _, err := forge.GitHubFromEnv(c.GitHubAPI, repo, c.Getenv)
		if err != nil {
			return nil, &SettingError{Setting: "ci", Err: fmt.Errorf("github: %w", err)}
		}
		return &ci.GitHub{API: api, Timeout: c.CITimeout}, nil
	}
	return nil, &SettingError{Setting: "ci", Err: fmt.Errorf("want local or github, got %q", c.CI)}
}

// GitAgent locates the git_agent program: flag, $SALVE_GIT_AGENT, beside
// the running executable, then PATH.
func GitAgent(flag string, getenv func(string) string) (string, error) {
	for _, c := range []string{flag, getenv("SALVE_GIT_AGENT")} {
		if c != "" {
			return c, nil
		}
	}
	if exe, err := os.Executable(); err == nil {
		if c := filepath.Join(filepath.Dir(exe), "git_agent"); isExecutable(c) {
			return c, nil
		}
	}
	if c, err := exec.LookPath("git_agent"); err == nil {
		return c, nil
	}
	return "", fmt.Errorf("the git_agent program was not found beside salve or in PATH (build it with make build, or give --git-agent)")
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// openStore opens the run store and its recorder; a store that cannot be
// opened only leaves the run unrecorded (with a warning).
func openStore(ctx context.Context, path string, getenv func(string) string, logger *slog.Logger) (*store.Store, heal.Recorder) {
	if path == "" {
		p, err := store.DefaultPath(getenv)
		if err != nil {
			logger.Warn("no run store", "error", err)
			return nil, nil
		}
		path = p
	}
	st, err := store.OpenContext(ctx, path)
	if err != nil {
		logger.Warn("could not open the run store; the run will not be recorded", "path", path, "error", err)
		return nil, nil
	}
	return st, adapter.Recorder{Store: st}
}

// newAgent returns the agent tier over the llm tier's targets, with the
// budgets of the configuration.
func newAgent(cfg *config.Config, targets []llmfix.Target, logger *slog.Logger) (*agentfix.Fixer, error) {
	if len(targets) == 0 || cfg == nil {
		return nil, fmt.Errorf("--fixers agent: no model configured (give --models provider/model with --config, or set OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST)")
	}
	b, pricer, err := agentfix.BudgetsFrom(cfg)
	if err != nil {
		return nil, fmt.Errorf("--fixers agent: %w", err)
	}
	return &agentfix.Fixer{Targets: targets, Budgets: b, Pricer: pricer, Logger: logger}, nil
}

// newTool returns the tier of an external tool (aider, claude). When salve
// took the secrets out of its environment, the tool gets them back
// explicitly (c.AiderEnv): it needs its provider's key, and the tool
// adapter gives a tool salve's whole environment
// (docs/contracts/tool-adapter.md §4.2), or, for a row that scrubs it
// (claude), only its own provider's variables.
func newTool(c Config, tool string) heal.Fixer {
	model := ""
	if len(c.Models) > 0 {
		if _, m, ok := strings.Cut(c.Models[0], "/"); ok {
			model = m
		}
	}
	f := &aiderfix.Fixer{Tool: tool, Model: model}
	if c.AiderEnv != nil {
		f.Adapter = &toolrun.Adapter{Env: c.AiderEnv}
	}
	return f
}
