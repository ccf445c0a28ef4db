package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/google/uuid"
	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/gitagent"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/aiderfix"
	"github.com/salve-dev/salve/internal/heal/ci"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/heal/history"
	"github.com/salve-dev/salve/internal/heal/llmfix"
	"github.com/salve-dev/salve/internal/heal/rules"
	"github.com/salve-dev/salve/internal/heal/suggest"
	"github.com/salve-dev/salve/internal/heal/tiers"
	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/toolrun"
)

// exitEnvironment is heal's exit code when something it needs is missing:
// git, the git agent, the build tool.
const exitEnvironment = 3

// exitNoSignal is heal's exit code when the fixes pass locally but the
// remote CI gave no verdict in time (checks queued or awaiting approval).
const exitNoSignal = 4

// exitFlaky is heal's exit code when the failing tests passed on a re-run
// before any fix: nothing was fixed or committed.
const exitFlaky = 5

// healOptions are the flags of "salve heal".
type healOptions struct {
	Workspace     string
	Command       string
	ProjectType   string
	Fixers        string
	MinConfidence float64
	MaxIterations int
	Branch        string
	Push          bool
	Remote        string
	CI            string
	GitHubRepo    string
	GitHubAPI     string
	CITimeout     time.Duration
	Results       string
	Models        []string
	Config        string
	Timeout       int
	Isolation     string
	KeepWorktree  bool
	StorePath     string
	NoStore       bool
	GitAgent      string
	JSON          bool
	// AllowTestEdits lets fixes edit tests (never weaken them).
	AllowTestEdits bool
	prOptions
	repoConfigOptions
}

// newHealCmd builds "salve heal": the self-healing pipeline
// (docs/contracts/heal-pipeline.md).
func newHealCmd(s *streams) *cobra.Command {
	o := &healOptions{}
	cmd := &cobra.Command{
		Use:   "heal",
		Short: "Fix a failing build on a new branch, with minimal, explained, audited fixes",
		Long: `Heal a repository whose build or tests fail.

salve heal works in an isolated git worktree on a new branch (salve/heal-<id>
unless --branch says otherwise); your checkout, index and branches are never
touched. It runs the build (the Executor), turns the log into bug reports (the
Parser), re-runs the failing tests once (a failure that does not reproduce is
flaky: nothing is sent to a fixer), asks the fixer tiers in order for a
minimal fix of each file's reports (the Fix Agent), enforces the fix gate
(reported lines ±3 only, comments kept, no unrelated edit, confidence >=
--min-confidence, and no weakened check: tests, assertions, expected values,
skips and suppressions are protected), commits each accepted fix through the
git agent, and asks the CI monitor for the verdict, until the build is green
or --max-iterations is reached. A fix that makes no progress (its target is
still reported, or a line it wrote now fails) is reverted. A failing test's
fix goes to the code the test exercises, never to the test.

Stdout carries one line per bug: "{TYPE} error in {file} line {N} → Fix:
{reason}". results.json holds everything (its path is printed on stderr), and
the run store keeps it for "salve runs show".

Fixers, tried in order for each file's reports:
` + tiers.Help() + `
Exit status: 0 green, 1 still red, 2 bad input, 3 something missing (git, the
git agent, the build tool, or a build that failed because of its environment),
4 no signal (the fixes pass locally but the remote CI gave no verdict before
--ci-timeout), 5 flaky (the failing tests passed when run again before any
fix: nothing was fixed or committed), 130 or 143 interrupted by SIGINT or
SIGTERM.`,
		Example: `  salve heal
  salve heal --workspace ./api --max-iterations 3 --results heal.json
  salve heal --fixers rules,llm --models openai/gpt-4o-mini
  salve heal --push --ci github --github-repo acme/api
  salve heal --push --pr --report sarif=salve.sarif --report github   # in CI`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return healRun(c.Context(), s, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Workspace, "workspace", ".", "the repository to heal (or a folder inside it)")
	f.StringVar(&o.Command, "cmd", "", "the build command (default: detected from the project)")
	f.StringVar(&o.ProjectType, "project-type", "", "override the detected project type")
	f.StringVar(&o.Fixers, "fixers", "", tiers.FlagUsage())
	f.Float64Var(&o.MinConfidence, "min-confidence", heal.DefaultMinConfidence, "the fix gate's confidence threshold")
	f.IntVar(&o.MaxIterations, "max-iterations", heal.DefaultMaxIterations, "the most fix iterations")
	f.StringVar(&o.Branch, "branch", "", "the heal branch (default salve/heal-<run id>)")
	f.BoolVar(&o.Push, "push", false, "push the heal branch after each commit")
	f.StringVar(&o.Remote, "remote", "origin", "the remote for --push")
	f.StringVar(&o.CI, "ci", "local", "the CI monitor: local (re-run the build) or github (poll the pushed commit's checks)")
	f.StringVar(&o.GitHubRepo, "github-repo", "", "owner/name for --ci github (default $GITHUB_REPOSITORY)")
	f.StringVar(&o.GitHubAPI, "github-api", "", "the GitHub API root (default $GITHUB_API_URL or https://api.github.com)")
	f.DurationVar(&o.CITimeout, "ci-timeout", 30*time.Minute, "how long --ci github waits for the checks")
	f.StringVar(&o.Results, "results", "", "write results.json here (default: in the run's folder)")
	f.StringSliceVar(&o.Models, "models", nil, "llm targets in fallback order, provider/model,...")
	f.StringVar(&o.Config, "config", "", "an .ai-agent.json with the llm providers")
	f.IntVar(&o.Timeout, "timeout", contract.DefaultExecutorTimeoutSeconds, "each build's time limit, in seconds")
	f.StringVar(&o.Isolation, "isolation", "auto", "the build sandbox: auto, none, bwrap, docker or podman")
	f.BoolVar(&o.KeepWorktree, "keep-worktree", false, "leave the heal worktree in place after the run")
	f.StringVar(&o.StorePath, "store", "", "the run store (default $SALVE_STORE or ~/.local/state/salve)")
	f.BoolVar(&o.NoStore, "no-store", false, "do not record the run in the run store")
	f.StringVar(&o.GitAgent, "git-agent", "", "the git_agent program (default: beside salve, then PATH)")
	f.BoolVar(&o.JSON, "json", false, "print results.json on stdout instead of the fix lines")
	f.BoolVar(&o.AllowTestEdits, "allow-test-edits", false, "let fixes edit test files and test configuration (or allow_test_edits: true in .salve.yml); no fix may weaken a check either way")
	o.prOptions.flags(f)
	o.repoConfigOptions.flags(f)
	return cmd
}

func healRun(ctx context.Context, s *streams, o *healOptions) error {
	if err := o.validate(); err != nil {
		return exitWith(exitBadInput, err)
	}
	if done, err := o.readRepoConfig(ctx, s); done || err != nil {
		return err
	}
	tty := isTTY(s.Stderr) && !s.Log.Quiet
	logger := s.logger()
	runID := uuid.NewString()
	if err := o.prOptions.check(o.Push); err != nil {
		return exitWith(exitBadInput, err)
	}
	p, code, err := buildPipeline(ctx, s, o, runID, logger)
	if err != nil {
		return exitWith(code, err)
	}
	defer p.close()
	if err := o.prOptions.appPush(s, o, &p.git); err != nil {
		return exitWith(exitBadInput, err)
	}
	lease, err := o.prOptions.prepare(ctx, s, o, p.git)
	if err != nil {
		return exitWith(exitBadInput, err)
	}
	if note := llmNote(o, p.fixers, s.Getenv); note != nil {
		p.fixers = append(p.fixers, note)
	}
	opts := p.options(o, runID, logger)
	opts.PushLease, opts.Progress = lease, heal.NewProgress(s.Stderr, tty, logger)
	o.applyRepoConfig(&opts)
	res, err := heal.Run(ctx, opts)
	var werr error
	if res != nil {
		werr = writeResults(s, o, res)
		if perr := o.prOptions.afterHeal(ctx, s, o, res, p.git, logger); perr != nil {
			fmt.Fprintf(s.Stderr, "salve heal: %v\n", perr)
			if err == nil && res.Outcome == heal.OutcomeGreen {
				return exitWith(exitFailure, nil)
			}
		}
	}
	if code, herr := healExit(res, err); code != exitOK || werr == nil {
		return exitWith(code, herr)
	}
	return exitWith(exitFailure, werr)
}

// healExit maps a heal's results and error to the exit status: 0 green, 1
// still red (or the run failed), 2 bad input, 3 the environment (something
// missing, or a build that failed because of its environment). The error
// is returned only when it is not already in the printed summary.
func healExit(res *heal.Results, err error) (int, error) {
	printed := res != nil && res.Reason != ""
	quiet := func(err error) error {
		if printed {
			return nil
		}
		return err
	}
	switch {
	case errors.Is(err, heal.ErrBadInput):
		return exitBadInput, err
	case errors.Is(err, heal.ErrEnvironment), res != nil && res.Outcome == heal.OutcomeEnvironment:
		return exitEnvironment, quiet(err)
	case err != nil:
		return exitFailure, quiet(err)
	case res.Outcome == heal.OutcomeNoSignal:
		return exitNoSignal, nil
	case res.Outcome == heal.OutcomeFlaky:
		return exitFlaky, nil
	case res.Outcome != heal.OutcomeGreen:
		return exitFailure, nil
	}
	return exitOK, nil
}

// llmNote returns a stand-in llm tier that records, on every bug it sees,
// why the llm tier did not run and the exact flags that enable it, or nil
// when the llm tier is in the list.
func llmNote(o *healOptions, fixers []heal.Fixer, getenv func(string) string) heal.Fixer {
	var names []string
	for _, f := range fixers {
		if f.Name() == llmfix.Name {
			return nil
		}
		names = append(names, f.Name())
	}
	tiers := strings.Join(append(names, llmfix.Name), ",")
	cwd, _ := os.Getwd()
	targets, err := llmfix.Targets(llmfix.Setup{Models: o.Models, ConfigFile: o.Config, Cwd: cwd, Home: getenv("HOME"), Getenv: getenv})
	switch {
	case err != nil:
		return heal.Unconfigured{Tier: llmfix.Name, Why: "its provider setup is invalid: " + err.Error(),
			Enable: "fix the provider setup, then run salve heal --fixers " + tiers}
	case len(targets) > 0:
		return heal.Unconfigured{Tier: llmfix.Name, Why: "not in --fixers " + o.Fixers,
			Enable: "a provider is configured: run salve heal --fixers " + tiers}
	}
	return heal.Unconfigured{Tier: llmfix.Name, Why: "no LLM provider is configured",
		Enable: "set OPENAI_API_KEY and run salve heal --fixers " + tiers + " --models openai/gpt-4o" +
			" (or ANTHROPIC_API_KEY with --models anthropic/claude-3-5-haiku-latest, OLLAMA_HOST with --models ollama/qwen2.5-coder, or an .ai-agent.json given with --config)"}
}

// pipeline holds the layers a heal run is wired with.
type pipeline struct {
	executor heal.Executor
	parser   heal.Parser
	fixers   []heal.Fixer
	git      heal.AgentGit
	ci       heal.CIMonitor
	recorder heal.Recorder
	store    *store.Store
}

// options returns the heal options of o over the pipeline's layers: what
// salve heal, salve mcp and salve worker share. Callers add what is theirs
// (progress, a push lease, a worktree folder).
func (p *pipeline) options(o *healOptions, runID string, logger *slog.Logger) heal.Options {
	return heal.Options{
		Repo: o.Workspace, Command: o.Command, ProjectType: o.ProjectType, BuildTimeout: time.Duration(o.Timeout) * time.Second,
		MaxIterations: o.MaxIterations, MinConfidence: o.MinConfidence, Branch: o.Branch, Push: o.Push, Remote: o.Remote,
		KeepWorktree: o.KeepWorktree, RunID: runID, AllowTestEdits: o.AllowTestEdits, AllowTestEditsBy: testEditsBy(o.AllowTestEdits),
		Executor: p.executor, Parser: p.parser, Fixers: p.fixers, Git: p.git, Worktrees: heal.AgentWorktrees{Git: p.git},
		CI: p.ci, Recorder: p.recorder, Logger: logger,
	}
}

func (p *pipeline) close() {
	if p.store != nil {
		_ = p.store.Close()
	}
}

// buildPipeline wires the real layers; it returns the exit code to use
// when something is wrong.
func buildPipeline(ctx context.Context, s *streams, o *healOptions, runID string, logger *slog.Logger) (*pipeline, int, error) {
	// The user's checkout: its node_modules and target/ are shared with the
	// sandboxed builds in the heal worktree, read-only.
	source, _ := filepath.Abs(o.Workspace)
	p := &pipeline{
		executor: heal.ExecutorLayer{E: executor.New(executor.Options{Isolation: o.Isolation, Logger: logger, SourceDir: source})},
		parser:   heal.LogParser{},
	}
	// The history tier reads the breaking commit's change through the git
	// agent, in the user's checkout (it shares the heal worktree's
	// objects, and no build ever ran in it).
	commitDiff := func(ctx context.Context, _, base string) (string, error) {
		return p.git.Do(ctx, source, contract.GitAgentCommandV1{Type: gitagent.ActionGitCommitDiff, Ref: base})
	}
	var err error
	if p.fixers, err = buildFixers(o, s, logger, p.executor, commitDiff); err != nil {
		return nil, exitBadInput, err
	}
	if p.ci, err = buildCI(o, s.Getenv, p.executor); err != nil {
		return nil, exitBadInput, err
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, exitEnvironment, fmt.Errorf("git is not installed: %w", err)
	}
	agent, err := findGitAgent(o.GitAgent, s.Getenv)
	if err != nil {
		return nil, exitEnvironment, err
	}
	p.git = heal.AgentGit{Bin: agent}
	if !o.NoStore {
		p.store, p.recorder = openStore(ctx, o.StorePath, s.Getenv, logger)
	}
	_ = runID
	return p, 0, nil
}

// buildFixers returns the fixer tiers of --fixers (checked against the one
// table of tiers, package internal/heal/tiers), in order; ex is the
// Executor the suggest tier re-runs compilers with (nil: no re-runs). The llm
// providers are set up only when the llm tier may run: asked for, or by
// default, where a configuration problem only leaves the tier out (with a
// warning).
func buildFixers(o *healOptions, s *streams, logger *slog.Logger, ex heal.Executor, commitDiff func(ctx context.Context, workspace, base string) (string, error)) ([]heal.Fixer, error) {
	getenv := s.Getenv
	names, err := tiers.Parse(o.Fixers)
	if err != nil {
		return nil, fmt.Errorf("--fixers: %w", err)
	}
	explicit := names != nil
	var targets []llmfix.Target
	if !explicit || slices.Contains(names, llmfix.Name) {
		cwd, _ := os.Getwd()
		targets, err = llmfix.Targets(llmfix.Setup{Models: o.Models, ConfigFile: o.Config, Cwd: cwd, Home: getenv("HOME"), Getenv: getenv})
		if err != nil && (explicit || o.Config != "") {
			// A configuration the user named is never left out quietly.
			return nil, err
		}
		if err != nil {
			logger.Warn("the llm tier is left out", "error", err)
		}
	}
	if !explicit {
		names = tiers.Defaults(func(t tiers.Tier) bool { return t.Name == llmfix.Name && len(targets) > 0 })
	}
	var out []heal.Fixer
	for _, n := range names {
		switch n {
		case history.Name:
			out = append(out, &history.Fixer{Diff: commitDiff})
		case rules.Name:
			out = append(out, &rules.Fixer{})
		case suggest.Name:
			out = append(out, &suggest.Fixer{Executor: ex, TimeoutSeconds: o.Timeout})
		case llmfix.Name:
			if len(targets) == 0 {
				return nil, fmt.Errorf("--fixers llm: no model configured (give --models provider/model with --config, or set OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST)")
			}
			out = append(out, &llmfix.Fixer{Targets: targets, Logger: logger})
		case aiderfix.Name:
			out = append(out, newAiderFixer(o, s.secrets))
		default:
			return nil, fmt.Errorf("--fixers: %w %q: this salve cannot build it (want %s)", tiers.ErrUnknown, n, tiers.Want())
		}
	}
	return out, nil
}

// buildCI returns the CI monitor of --ci.
func buildCI(o *healOptions, getenv func(string) string, ex heal.Executor) (heal.CIMonitor, error) {
	switch o.CI {
	case "local":
		return &ci.Local{Executor: ex}, nil
	case "github":
		repo := o.GitHubRepo
		if repo == "" {
			repo = getenv("GITHUB_REPOSITORY")
		}
		owner, name, ok := strings.Cut(repo, "/")
		if !ok || owner == "" || name == "" {
			return nil, fmt.Errorf("--ci github needs --github-repo owner/name (or $GITHUB_REPOSITORY)")
		}
		if !o.Push {
			return nil, fmt.Errorf("--ci github judges the pushed commit: add --push")
		}
		api := o.GitHubAPI
		if api == "" {
			api = getenv("GITHUB_API_URL")
		}
		token := getenv("GITHUB_TOKEN")
		if token == "" {
			token = getenv("GH_TOKEN")
		}
		return &ci.GitHub{BaseURL: api, Owner: owner, Repo: name, Token: token, Timeout: o.CITimeout}, nil
	}
	return nil, fmt.Errorf("--ci: want local or github, got %q", o.CI)
}

// findGitAgent locates the git_agent program: the flag, $SALVE_GIT_AGENT,
// beside the salve executable, then PATH.
func findGitAgent(flag string, getenv func(string) string) (string, error) {
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
	return st, heal.StoreRecorder{Store: st}
}

// writeResults writes results.json and prints the fix lines (or the JSON).
func writeResults(s *streams, o *healOptions, res *heal.Results) error {
	path := o.Results
	if path == "" {
		path = filepath.Join(executor.DefaultRunDir(res.RunID), "results.json")
	}
	err := res.WriteFile(path)
	if o.JSON {
		b, jerr := contract.MarshalIndentJSON(res)
		if jerr != nil {
			return jerr
		}
		_, _ = s.Stdout.Write(b)
	} else {
		writeReport(s.Stdout, res)
	}
	if err != nil {
		path = "not written"
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(s.Stderr, "salve heal: warning: "+w)
	}
	if !s.Log.Quiet {
		fmt.Fprintln(s.Stderr, summaryLine(res, path))
	}
	return err
}

// writeReport prints the fix lines for people: every fixed bug's line,
// then every bug that stays red with the toolchain's message and what each
// tier did with it, or the environment failure with its evidence and what
// to do next.
func writeReport(w io.Writer, res *heal.Results) {
	if env := res.Environment; env != nil {
		fmt.Fprintf(w, "environment failure (%s, %s): %s\n", env.Kind, env.Ecosystem, env.Evidence)
		if env.Line > 0 {
			fmt.Fprintf(w, "    evidence: line %d of the build log\n", env.Line)
		}
		fmt.Fprintln(w, "    not a bug in the code: nothing was sent to a fixer for it and nothing was committed for it")
		fmt.Fprintf(w, "    next: %s\n", env.Hint)
	}
	for _, b := range finalBugs(res) {
		fmt.Fprintln(w, b.Line)
		for _, l := range b.Explain() {
			fmt.Fprintln(w, "    "+l)
		}
	}
}

// summaryLine is the closing line on stderr; it is never blank.
func summaryLine(res *heal.Results, path string) string {
	outcome, reason := res.Outcome, res.Reason
	if outcome == "" {
		outcome = "stopped"
	}
	if reason == "" {
		reason = "no reason recorded"
	}
	return fmt.Sprintf("salve heal: %s after %d iteration(s): %s; branch %s, %d commit(s); results: %s",
		outcome, res.Iterations, reason, res.Branch, len(res.Commits), path)
}

// finalLines returns the fix line of every fixed bug, then the last line
// of every bug that was never fixed.
func finalLines(res *heal.Results) []string {
	var out []string
	for _, b := range finalBugs(res) {
		out = append(out, b.Line)
	}
	return out
}

// finalBugs returns every fixed bug, then the last entry of every bug that
// was never fixed.
func finalBugs(res *heal.Results) []heal.BugResult {
	fixed := map[string]bool{}
	var out []heal.BugResult
	for _, b := range res.Bugs {
		if b.Status == heal.StatusFixed {
			out = append(out, b)
			fixed[b.Bug.FilePath+"|"+b.Bug.Message] = true
		}
	}
	last := map[string]heal.BugResult{}
	var order []string
	for _, b := range res.Bugs {
		k := b.Bug.FilePath + "|" + b.Bug.Message
		if fixed[k] || b.Status == heal.StatusFixed {
			continue
		}
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = b
	}
	for _, k := range order {
		out = append(out, last[k])
	}
	return out
}

func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

// newAiderFixer returns the aider tier. When salve took the secrets out of
// its environment, aider gets them back explicitly: it needs its provider's
// key, and the tool adapter gives a tool salve's whole environment
// (docs/contracts/tool-adapter.md §4.2).
func newAiderFixer(o *healOptions, sec *secrets) heal.Fixer {
	model := ""
	if len(o.Models) > 0 {
		if _, m, ok := strings.Cut(o.Models[0], "/"); ok {
			model = m
		}
	}
	f := &aiderfix.Fixer{Model: model}
	if sec != nil {
		f.Adapter = &toolrun.Adapter{Env: sec.environ()}
	}
	return f
}

// testEditsBy names the flag that allowed test edits, for the results.
func testEditsBy(allowed bool) string {
	if allowed {
		return "--allow-test-edits"
	}
	return ""
}
