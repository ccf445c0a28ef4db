package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/google/uuid"
	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/adapter"
	"github.com/salve-dev/salve/internal/heal/assemble"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/heal/repoconfig"
	"github.com/salve-dev/salve/internal/heal/tiers"
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
	KeepWorktree  heal.WorktreeKeep
	StorePath     string
	NoStore       bool
	GitAgent      string
	JSON          bool
	// AllowTestEdits lets fixes edit tests (never weaken them).
	AllowTestEdits bool
	// AcceptUnproven commits fixes whose pass the test runner cannot prove.
	AcceptUnproven bool
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
	o.CITimeout = 30 * time.Minute
	f.Var(durationFlag{&o.CITimeout}, "ci-timeout", "how long --ci github waits for the checks (90s, 5m, 1h30m, or seconds)")
	f.StringVar(&o.Results, "results", "", "write results.json here (default: in the run's folder)")
	f.StringSliceVar(&o.Models, "models", nil, "llm targets in fallback order, provider/model,...")
	f.StringVar(&o.Config, "config", "", "an .ai-agent.json with the llm providers")
	o.Timeout = contract.DefaultExecutorTimeoutSeconds
	f.Var(secondsFlag{&o.Timeout}, "timeout", "each build's time limit (90s, 5m, 1h30m, or seconds)")
	f.StringVar(&o.Isolation, "isolation", "auto", "the build sandbox: auto, none, bwrap, docker or podman")
	f.Var(keepFlag{&o.KeepWorktree}, "keep-worktree", "what to do with the heal worktree at the end: true (the flag alone) keeps it as the heal left it, detached, to look at; false removes it; auto keeps it clean for the next heal when the repository tracks $"+heal.EnvKeepFiles+" files or more (default "+strconv.Itoa(heal.DefaultKeepFiles)+"), and removes it otherwise")
	f.Lookup("keep-worktree").NoOptDefVal = "true"
	f.StringVar(&o.StorePath, "store", "", "the run store (default $SALVE_STORE or ~/.local/state/salve)")
	f.BoolVar(&o.NoStore, "no-store", false, "do not record the run in the run store")
	f.StringVar(&o.GitAgent, "git-agent", "", "the git_agent program (default: beside salve, then PATH)")
	f.BoolVar(&o.JSON, "json", false, "print results.json on stdout instead of the fix lines")
	f.BoolVar(&o.AllowTestEdits, "allow-test-edits", false, "let fixes edit test files and test configuration (or allow_test_edits: true in .salve.yml); no fix may weaken a check either way")
	f.BoolVar(&o.AcceptUnproven, "accept-unproven", false, "commit a fix of failing tests even when the test runner's own output cannot prove they pass (by default such a heal stays red)")
	o.prOptions.flags(f)
	o.repoConfigOptions.flags(f)
	return cmd
}

func healRun(ctx context.Context, s *streams, o *healOptions) error {
	if err := o.validate(); err != nil {
		return exitWith(exitBadInput, err)
	}
	mode := heal.ProgressLines
	switch {
	case s.Log.Quiet:
		mode = heal.ProgressOff
	case s.Log.Format == "json":
		mode = heal.ProgressEvents
	case isTTY(s.Stderr):
		mode = heal.ProgressTTY
	}
	logger := s.logger()
	runID := uuid.NewString()
	if err := o.prOptions.check(o.Push); err != nil {
		return exitWith(exitBadInput, err)
	}
	c := o.config(s, runID, logger)
	c.ExplainLLM, c.Progress = true, heal.NewProgress(s.Stderr, mode, logger)
	gitEnv, err := o.prOptions.appPush(s, o)
	if err != nil {
		return exitWith(exitBadInput, err)
	}
	c.GitEnv = gitEnv
	o.repoRules(&c)
	c.Lease = func(ctx context.Context, git adapter.Git) (string, string, error) {
		lease, err := o.prOptions.prepare(ctx, s, o, git)
		return o.Branch, lease, err
	}
	p, err := assemble.New(ctx, c)
	if turnedOff(s, "heal", err) {
		return nil
	}
	if err != nil {
		return exitWith(exitCode(err), asFlag(err))
	}
	defer p.Close()
	for _, n := range p.Notes {
		fmt.Fprintf(s.Stderr, "salve heal: %s\n", n)
	}
	// The file's mode asks for suggestions where the flag did not.
	if m := p.Config.Mode; m == repoconfig.ModeSuggest || m == repoconfig.ModeBoth {
		o.SuggestReview = true
	}
	res, err := p.Run(ctx)
	var werr error
	if res != nil {
		werr = writeResults(s, o, res)
		if perr := o.prOptions.afterHeal(ctx, s, o, res, p.Git, logger); perr != nil {
			fmt.Fprintf(s.Stderr, "salve heal: %v\n", perr)
			if err == nil && res.Outcome == results.OutcomeGreen {
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
func healExit(res *results.Results, err error) (int, error) {
	printed := res != nil && res.Reason != ""
	quiet := func(err error) error {
		if printed {
			return nil
		}
		return err
	}
	switch {
	case errors.Is(err, heal.ErrBadInput):
		return exitBadInput, quiet(err)
	case errors.Is(err, heal.ErrEnvironment), res != nil && res.Outcome == results.OutcomeEnvironment:
		return exitEnvironment, quiet(err)
	case err != nil:
		return exitFailure, quiet(err)
	case res.Outcome == results.OutcomeNoSignal:
		return exitNoSignal, nil
	case res.Outcome == results.OutcomeFlaky:
		return exitFlaky, nil
	case res.Outcome != results.OutcomeGreen:
		return exitFailure, nil
	}
	return exitOK, nil
}

// config is the assembly of o's heal: what salve heal shares with salve
// mcp and salve worker (package internal/heal/assemble).
func (o *healOptions) config(s *streams, runID string, logger *slog.Logger) assemble.Config {
	c := assemble.Config{
		Workspace: o.Workspace, Command: o.Command, ProjectType: o.ProjectType, Fixers: o.Fixers, Models: o.Models, ConfigFile: o.Config,
		MinConfidence: o.MinConfidence, MaxIterations: o.MaxIterations, Branch: o.Branch, Push: o.Push, Remote: o.Remote,
		CI: o.CI, GitHubRepo: o.GitHubRepo, GitHubAPI: o.GitHubAPI, CITimeout: o.CITimeout, BuildTimeout: o.Timeout,
		Isolation: o.Isolation, KeepWorktree: o.KeepWorktree, AllowTestEdits: o.AllowTestEdits, AcceptUnproven: o.AcceptUnproven, StorePath: o.StorePath,
		NoStore: o.NoStore, GitAgent: o.GitAgent, RunID: runID, Getenv: s.Getenv, Logger: logger,
	}
	if s.secrets != nil {
		c.AiderEnv = s.secrets.environ()
	}
	return c
}

// exitCode is the exit status of an assembly error.
func exitCode(err error) int {
	if errors.Is(err, heal.ErrEnvironment) {
		return exitEnvironment
	}
	return exitBadInput
}

// writeResults writes results.json and prints the fix lines (or the JSON).
func writeResults(s *streams, o *healOptions, res *results.Results) error {
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
	// The heal logged each warning as it happened; print them here only
	// when the log level hid them (and not under --quiet).
	if lvl, _ := s.Log.level(); lvl > slog.LevelWarn && !s.Log.Quiet {
		for _, w := range res.Warnings {
			fmt.Fprintln(s.Stderr, "salve heal: warning: "+w)
		}
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
func writeReport(w io.Writer, res *results.Results) {
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
func summaryLine(res *results.Results, path string) string {
	outcome, reason := res.Outcome, res.Reason
	if outcome == "" {
		outcome = "stopped"
	}
	if reason == "" {
		reason = "no reason recorded"
	}
	branch := fmt.Sprintf("branch %s, %d commit(s)", res.Branch, len(res.Commits))
	if len(res.Commits) == 0 {
		// The branch is made at the first commit: a heal that committed
		// nothing names none.
		branch = "nothing committed, no branch made"
	}
	return fmt.Sprintf("salve heal: %s after %d iteration(s): %s; %s; results: %s",
		outcome, res.Iterations, reason, branch, path)
}

// finalLines returns the fix line of every fixed bug, then the last line
// of every bug that was never fixed.
func finalLines(res *results.Results) []string {
	var out []string
	for _, b := range finalBugs(res) {
		out = append(out, b.Line)
	}
	return out
}

// finalBugs returns every fixed bug, then the last entry of every bug that
// was never fixed.
func finalBugs(res *results.Results) []results.BugResult {
	fixed := map[string]bool{}
	var out []results.BugResult
	for _, b := range res.Bugs {
		if b.Status == results.StatusFixed {
			out = append(out, b)
			fixed[b.Bug.FilePath+"|"+b.Bug.Message] = true
		}
	}
	last := map[string]results.BugResult{}
	var order []string
	for _, b := range res.Bugs {
		k := b.Bug.FilePath + "|" + b.Bug.Message
		if fixed[k] || b.Status == results.StatusFixed {
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
