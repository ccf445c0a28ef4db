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
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/google/uuid"
	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/executor"
	"github.com/salve-dev/salve/heal"
	"github.com/salve-dev/salve/heal/aiderfix"
	"github.com/salve-dev/salve/heal/ci"
	"github.com/salve-dev/salve/heal/llmfix"
	"github.com/salve-dev/salve/heal/rules"
	"github.com/salve-dev/salve/heal/suggest"
	"github.com/salve-dev/salve/store"
)

// exitEnvironment is heal's exit code when something it needs is missing:
// git, the git agent, the build tool.
const exitEnvironment = 3

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
}

// newHealCmd builds "salve heal": the self-healing pipeline (seed 001).
func newHealCmd(s *streams) *cobra.Command {
	o := &healOptions{}
	cmd := &cobra.Command{
		Use:   "heal",
		Short: "Fix a failing build on a new branch, with minimal, explained, audited fixes",
		Long: `Heal a repository whose build or tests fail.

salve heal works in an isolated git worktree on a new branch (salve/heal-<id>
unless --branch says otherwise); your checkout, index and branches are never
touched. It runs the build (the Executor), turns the log into bug reports (the
Parser), asks the fixer tiers in order for a minimal fix of each file's
reports (the Fix Agent), enforces the fix gate (reported lines ±3 only,
comments kept, no unrelated edit, confidence >= --min-confidence), commits
each accepted fix through the git agent, and asks the CI monitor for the
verdict, until the build is green or --max-iterations is reached. A fix that
makes the build worse is reverted.

Stdout carries one line per bug: "{TYPE} error in {file} line {N} → Fix:
{reason}". results.json holds everything (its path is printed on stderr), and
the run store keeps it for "salve runs show".

Fixers: rules (the embedded default, no API key), suggest (the fixes the
compilers themselves propose: rustc, gcc/clang fix-its, "did you mean", the
nearest declared name; no API key), llm (any configured
provider: --models provider/model, an .ai-agent.json, or OPENAI_API_KEY,
ANTHROPIC_API_KEY, OLLAMA_HOST), aider (through the tool adapter). The default
is rules, suggest, then llm when a provider is configured.

Exit status: 0 green, 1 still red, 2 bad input, 3 something missing (git, the
git agent, the build tool).`,
		Example: `  salve heal
  salve heal --workspace ./api --max-iterations 3 --results heal.json
  salve heal --fixers rules,llm --models openai/gpt-4o-mini
  salve heal --push --ci github --github-repo acme/api`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return healRun(c.Context(), s, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Workspace, "workspace", ".", "the repository to heal (or a folder inside it)")
	f.StringVar(&o.Command, "cmd", "", "the build command (default: detected from the project)")
	f.StringVar(&o.ProjectType, "project-type", "", "override the detected project type")
	f.StringVar(&o.Fixers, "fixers", "", "fixer tiers in order, from rules,suggest,llm,aider (default: rules, suggest, then llm when configured)")
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
	return cmd
}

func healRun(ctx context.Context, s *streams, o *healOptions) error {
	tty := isTTY(s.Stderr)
	logger := newLogger(s.Stderr, tty)
	runID := uuid.NewString()
	p, code, err := buildPipeline(ctx, s, o, runID, logger)
	if err != nil {
		return exitWith(code, err)
	}
	defer p.close()
	opts := heal.Options{
		Repo: o.Workspace, Command: o.Command, ProjectType: o.ProjectType, BuildTimeout: time.Duration(o.Timeout) * time.Second,
		MaxIterations: o.MaxIterations, MinConfidence: o.MinConfidence, Branch: o.Branch, Push: o.Push, Remote: o.Remote,
		KeepWorktree: o.KeepWorktree, RunID: runID,
		Executor: p.executor, Parser: p.parser, Fixers: p.fixers, Git: p.git, Worktrees: heal.AgentWorktrees{Git: p.git},
		CI: p.ci, Recorder: p.recorder, Progress: heal.NewProgress(s.Stderr, tty, logger), Logger: logger,
	}
	res, err := heal.Run(ctx, opts)
	if res != nil {
		if werr := writeResults(s, o, res); werr != nil {
			logger.Error("could not write results.json", "error", werr)
		}
	}
	switch {
	case errors.Is(err, heal.ErrBadInput):
		return exitWith(exitBadInput, err)
	case errors.Is(err, heal.ErrEnvironment):
		return exitWith(exitEnvironment, err)
	case err != nil:
		return exitWith(exitFailure, err)
	case res.Outcome != heal.OutcomeGreen:
		return exitWith(exitFailure, nil)
	}
	return nil
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

func (p *pipeline) close() {
	if p.store != nil {
		_ = p.store.Close()
	}
}

// buildPipeline wires the real layers; it returns the exit code to use
// when something is wrong.
func buildPipeline(ctx context.Context, s *streams, o *healOptions, runID string, logger *slog.Logger) (*pipeline, int, error) {
	p := &pipeline{
		executor: heal.ExecutorLayer{E: executor.New(executor.Options{Isolation: o.Isolation, Logger: logger})},
		parser:   heal.LogParser{},
	}
	var err error
	if p.fixers, err = buildFixers(o, s.Getenv, logger, p.executor); err != nil {
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

// buildFixers returns the fixer tiers of --fixers, in order; ex is the
// Executor the suggest tier re-runs compilers with (nil: no re-runs). The llm
// providers are set up only when the llm tier may run: asked for, or by
// default, where a configuration problem only leaves the tier out (with a
// warning).
func buildFixers(o *healOptions, getenv func(string) string, logger *slog.Logger, ex heal.Executor) ([]heal.Fixer, error) {
	names := strings.Split(o.Fixers, ",")
	explicit := o.Fixers != ""
	var targets []llmfix.Target
	if !explicit || strings.Contains(o.Fixers, llmfix.Name) {
		cwd, _ := os.Getwd()
		var err error
		targets, err = llmfix.Targets(llmfix.Setup{Models: o.Models, ConfigFile: o.Config, Cwd: cwd, Home: getenv("HOME"), Getenv: getenv})
		if err != nil && explicit {
			return nil, err
		}
		if err != nil {
			logger.Warn("the llm tier is left out", "error", err)
		}
	}
	if !explicit {
		names = []string{rules.Name, suggest.Name}
		if len(targets) > 0 {
			names = append(names, llmfix.Name)
		}
	}
	var out []heal.Fixer
	for _, n := range names {
		switch strings.TrimSpace(n) {
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
			out = append(out, newAiderFixer(o))
		default:
			return nil, fmt.Errorf("--fixers: unknown fixer %q (want rules, suggest, llm or aider)", n)
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
		for _, l := range finalLines(res) {
			fmt.Fprintln(s.Stdout, l)
		}
	}
	fmt.Fprintf(s.Stderr, "salve heal: %s after %d iteration(s): %s; branch %s, %d commit(s); results: %s\n",
		res.Outcome, res.Iterations, res.Reason, res.Branch, len(res.Commits), path)
	return err
}

// finalLines returns the fix line of every fixed bug, then the last line
// of every bug that was never fixed.
func finalLines(res *heal.Results) []string {
	fixed := map[string]bool{}
	var out []string
	for _, b := range res.Bugs {
		if b.Status == heal.StatusFixed {
			out = append(out, b.Line)
			fixed[b.Bug.FilePath+"|"+b.Bug.Message] = true
		}
	}
	last := map[string]string{}
	var order []string
	for _, b := range res.Bugs {
		k := b.Bug.FilePath + "|" + b.Bug.Message
		if fixed[k] || b.Status == heal.StatusFixed {
			continue
		}
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = b.Line
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

// newLogger logs JSON records on stderr, or only warnings as text on a TTY
// (where the progress line shows the rest).
func newLogger(w io.Writer, tty bool) *slog.Logger {
	if tty {
		return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.NewJSONHandler(w, nil))
}

func newAiderFixer(o *healOptions) heal.Fixer {
	model := ""
	if len(o.Models) > 0 {
		if _, m, ok := strings.Cut(o.Models[0], "/"); ok {
			model = m
		}
	}
	return &aiderfix.Fixer{Model: model}
}
