package heal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/heal/logparse"
	"github.com/salve-dev/salve/internal/heal/rerun"
	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/google/uuid"
	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/plain"
)

// DefaultMaxIterations is the default limit of fix iterations.
const DefaultMaxIterations = 5

// DefaultBranchPrefix starts the default heal branch name.
const DefaultBranchPrefix = "salve/heal-"

// DefaultBranch is the heal branch of run runID when none is named.
func DefaultBranch(runID string) string {
	return DefaultBranchPrefix + runID[:min(8, len(runID))]
}

// ErrBadInput is wrapped by Run for invalid options or a workspace that is
// not a git repository (exit code 2).
var ErrBadInput = errors.New("bad input")

// ErrEnvironment is wrapped by Run when something the run needs is missing:
// git, the git agent, the build tool (exit code 3).
var ErrEnvironment = errors.New("environment missing")

// Options configures one heal run. Executor, Parser, Targets, Git,
// Worktrees and CI are required; the rest have defaults.
type Options struct {
	// Repo is the user's repository (or a folder inside it).
	Repo string
	// Command is the build command; empty lets the Executor detect it.
	Command string
	// ProjectType overrides the Executor's detection when set.
	ProjectType string
	// BuildTimeout bounds each build; zero means the contract default.
	BuildTimeout time.Duration
	// MaxIterations bounds the fix loop; zero means DefaultMaxIterations.
	MaxIterations int
	// MinConfidence is the gate's threshold; zero means DefaultMinConfidence.
	MinConfidence float64
	// Branch is the heal branch; empty means DefaultBranchPrefix + run id.
	Branch string
	// AllowTestEdits lets fixes edit test files and test configuration,
	// which the gate otherwise refuses; the other integrity rules (no
	// assertion removed or loosened, no expected value changed, no skip,
	// no suppression) apply either way. AllowTestEditsBy says who allowed
	// it, for the results ("--allow-test-edits", ".salve.yml").
	AllowTestEdits   bool
	AllowTestEditsBy string
	// AcceptUnproven commits fixes of failing tests whose pass the test
	// runner's own output cannot prove (no structured output salve reads,
	// or a run that did not show the tests passing to its end). Off by
	// default: such a heal stays red and says why.
	AcceptUnproven bool
	// RepoConfig is the repository's configuration (.salve.yml, package
	// repoconfig) as the caller read it from the base, never from the
	// change under heal; the heal records it in the results. Its
	// allow_test_edits reaches the heal as AllowTestEdits.
	RepoConfig *results.RepoConfig
	// ProtectedPaths are globs of paths no fix may edit (the
	// configuration's protected_paths; integrity rule protected-path).
	ProtectedPaths []string
	// Push pushes the heal branch to Remote after each commit.
	Push bool
	// PushLease, when set, lets the first push replace the remote heal
	// branch if it is at this commit: a re-run updating the branch of its
	// own open pull request.
	PushLease string
	Remote    string
	// WorktreeDir, when set, is where a fresh worktree is created for this
	// run and removed at its end. Empty means one of salve's persistent
	// worktrees of the repository under WorktreeRoot (see persist.go).
	WorktreeDir string
	// WorktreeRoot holds the persistent worktrees; empty means
	// DefaultWorktreeRoot.
	WorktreeRoot string
	// KeepWorktree says what the run does with its worktree at the end
	// (see WorktreeKeep): by default (KeepAuto) one of salve's persistent
	// worktrees is kept, clean, when the repository tracks KeepFiles files
	// or more, and removed otherwise.
	KeepWorktree WorktreeKeep
	// KeepFiles is the number of tracked files from which KeepAuto keeps
	// the worktree; zero means DefaultKeepFiles.
	KeepFiles int
	// RunID names the run; empty means a new UUID.
	RunID string

	Executor Executor
	Parser   Parser
	// Targets finds the code under test of a failing test, where its fix
	// goes.
	Targets   TargetFinder
	Fixers    []Fixer
	Git       Git
	Worktrees Worktrees
	// Reads, when set, are the setup's first reads of Repo, started by
	// the caller beside its own work ([StartSetupReads]).
	Reads *SetupReads
	CI    CIMonitor
	// Recorder, when set, records the run in the run store as it goes.
	Recorder Recorder
	// Accountants are the fixers that spend LLM tokens: the results copy
	// their accounting at the end of the run.
	Accountants []Accountant
	// Progress, when set, receives live progress.
	Progress Progress
	// Logger receives log records; nil discards them.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (o *Options) defaults() error {
	if o.Executor == nil || o.Parser == nil || o.Targets == nil || o.Git == nil || o.Worktrees == nil || o.CI == nil {
		return fmt.Errorf("heal: options: executor, parser, targets, git, worktrees and ci are required: %w", ErrBadInput)
	}
	if o.Repo == "" {
		return fmt.Errorf("heal: options: no repository given: %w", ErrBadInput)
	}
	abs, err := filepath.Abs(o.Repo)
	if err != nil {
		return fmt.Errorf("heal: repository %s: %w: %w", o.Repo, ErrBadInput, err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return fmt.Errorf("heal: repository %s is not a folder: %w", o.Repo, ErrBadInput)
	}
	o.Repo = abs
	if o.MaxIterations <= 0 {
		o.MaxIterations = DefaultMaxIterations
	}
	if o.MinConfidence <= 0 {
		o.MinConfidence = DefaultMinConfidence
	}
	if o.RunID == "" {
		o.RunID = uuid.NewString()
	}
	if o.Branch == "" {
		o.Branch = DefaultBranch(o.RunID)
	}
	// The branch is created only at the first commit: check its name now,
	// so a bad one is refused even by a heal that commits nothing.
	if err := o.Git.CheckBranch(o.Branch); err != nil {
		return fmt.Errorf("heal: options: branch: %w: %w", err, ErrBadInput)
	}
	if o.Remote == "" {
		o.Remote = "origin"
	}
	if o.WorktreeDir != "" {
		if o.WorktreeDir, err = filepath.Abs(o.WorktreeDir); err != nil {
			return fmt.Errorf("heal: worktree folder: %w: %w", ErrBadInput, err)
		}
	} else {
		if o.WorktreeRoot == "" {
			if o.WorktreeRoot, err = DefaultWorktreeRoot(os.Getenv); err != nil {
				return fmt.Errorf("%w: %w", ErrEnvironment, err)
			}
		}
		if o.WorktreeRoot, err = filepath.Abs(o.WorktreeRoot); err != nil {
			return fmt.Errorf("heal: worktree root: %w: %w", ErrBadInput, err)
		}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Logger = o.Logger.With("run_id", o.RunID)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Progress == nil {
		o.Progress = nopProgress{}
	}
	return nil
}

// run holds the state of one heal run.
type run struct {
	o       Options
	res     *results.Results
	ws      string // the workspace inside the heal worktree
	iterT   map[string]float64
	prev    map[string]map[string]any      // previous_attempt_info per file
	tried   map[string]map[string]reverted // reverted patched contents per file
	fixedN  int
	started time.Time
	// ahead is the first group's fix input, prepared beside the flaky
	// check (nil once taken, or when none was).
	ahead *prepared
	// added is true once the worktree exists.
	added bool
	// slot is the persistent worktree in use (nil for a fresh one);
	// reused says it was verified and reset rather than created.
	slot *slot
	// top is the repository's main worktree, where the slot's worktree
	// is added and removed.
	top    string
	reused bool
	// tracked is the number of entries of the persistent worktree's index
	// after setup (0, or -1, when unknown: the worktree is then removed).
	tracked int
	// gitDir is the worktree's git directory: a reused worktree's,
	// already verified, or the one the add found in the repository's
	// records (empty: pin asks for it).
	gitDir string
	// base is the commit the worktree was added at or reset to: HEAD of
	// the repository as setup listed it (empty when the listing named
	// none: ready then reads the worktree's HEAD).
	base string
	// dirty is true when the user's checkout has uncommitted changes.
	dirty bool
	// guard is the pinned, guarded git of the worktree (nil until the
	// worktree exists).
	guard *guardedGit
	// proof is how the failing tests' pass is proven (nil until a build
	// reports a failing test).
	proof *proofPlan
	// cur is the failing build the current iteration fixes.
	cur contract.ExecutorOutput
	// lastBuild is when the last build started, less a second for the
	// coarse modification times of the report files it writes.
	lastBuild time.Time
	// cmd is the command every build and verify of the run runs: the
	// user's, or the same with the runner's structured output switched
	// on where that changes nothing else (rerun.Structured).
	cmd string
}

// Run heals the repository of o: see the package doc. It returns the
// results whenever the run got as far as creating its worktree, together
// with an error wrapping ErrBadInput or ErrEnvironment when it could not do
// its job. A red build at the end is not an error: Results.Outcome says it.
func Run(ctx context.Context, o Options) (*results.Results, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	r := &run{o: o, prev: map[string]map[string]any{}, tried: map[string]map[string]reverted{}, started: o.Now(), cmd: o.Command}
	if s := rerun.Structured(o.Command); s != "" {
		r.cmd = s
	}
	r.res = &results.Results{
		RunID: o.RunID, Repo: o.Repo, Branch: o.Branch, Command: o.Command, MaxIterations: o.MaxIterations,
		Timings: map[string]float64{}, StartedAt: contract.Timestamp(r.started), Commits: []results.Commit{}, Bugs: []results.BugResult{},
		Remaining: []contract.BugReport{}, Stages: []results.StageTiming{}, LLM: results.LLMUsage{Accounting: []contract.AccountingEntry{}},
	}
	for _, f := range o.Fixers {
		r.res.Fixers = append(r.res.Fixers, f.Name())
		if _, ok := f.(Unconfigured); ok {
			r.res.Unconfigured = append(r.res.Unconfigured, f.Name())
		}
	}
	defer r.warm(ctx)()
	r.begin(ctx)
	if err := r.setup(ctx); err != nil {
		r.fail(ctx, err)
		if !r.added {
			r.slot.release()
		}
		if r.added {
			r.finish(ctx)
		} else {
			r.record(ctx)
		}
		return nil, err
	}
	err := r.loop(ctx)
	if err != nil && !errors.Is(err, ErrEnvironment) {
		r.fail(ctx, err)
	}
	r.close(err)
	r.finish(ctx)
	return r.res, err
}

// fail sets the outcome of a run that ended on err.
func (r *run) fail(ctx context.Context, err error) {
	r.res.Outcome, r.res.Reason = results.OutcomeError, plain.Message(err)
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		r.res.Outcome = results.OutcomeInterrupted
		r.res.Reason = "interrupted: " + plain.Message(err)
	}
	r.o.Logger.Debug("the run ended on an error", "error", err.Error())
}

// warm starts the Executor's Warm beside the setup, when it has one, and
// returns what waits for it to end.
func (r *run) warm(ctx context.Context) (wait func()) {
	w, ok := r.o.Executor.(Warmer)
	if !ok {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Warm(ctx, r.o.Repo, r.input("", r.cmd))
	}()
	return func() { <-done }
}

// begin records the run in the store as running, and routes every stage
// the run enters to it.
func (r *run) begin(ctx context.Context) {
	lr := r.o.Recorder
	if lr == nil {
		return
	}
	stale, err := lr.BeginHeal(ctx, r.res)
	for _, id := range stale {
		r.o.Logger.Info("marked an abandoned heal run as interrupted", "interrupted_run", id)
	}
	if err != nil {
		r.o.Logger.Warn("could not record the run as it starts", "error", err)
		return
	}
	r.o.Progress = stageRecorder{Progress: r.o.Progress, ctx: ctx, lr: lr, res: r.res, log: r.o.Logger}
}

// stageRecorder passes progress on and records each stage in the store.
type stageRecorder struct {
	Progress
	ctx context.Context
	lr  Recorder
	res *results.Results
	log *slog.Logger
}

func (s stageRecorder) Stage(iteration int, stage string, fixed int) {
	s.Progress.Stage(iteration, stage, fixed)
	if err := s.lr.HealStage(context.WithoutCancel(s.ctx), s.res, iteration, stage); err != nil {
		s.log.Warn("could not record the stage", "stage", stage, "error", err)
	}
}

// setup cleans stale worktrees and creates this run's worktree.
func (r *run) setup(ctx context.Context) error {
	defer r.timed(results.StageSetup)()
	r.o.Progress.Stage(0, results.StageSetup, 0)
	// The check for uncommitted changes, whether the heal branch exists
	// (it must not) and the listing run at once, unless the caller
	// started them already (Options.Reads).
	reads := r.setupReads(ctx)
	defer func() {
		if r.dirty = reads.dirty(); r.dirty {
			w := "the checkout has uncommitted changes; heal starts from the committed HEAD and does not see them"
			r.res.Warnings = append(r.res.Warnings, w)
			r.o.Logger.Warn(w)
		}
	}()
	defer reads.branchExists() // no read outlives the setup
	lr := reads.list()
	list, err := lr.list, lr.err
	if err != nil {
		return fmt.Errorf("heal: %s is not a git repository: %w: %w", r.o.Repo, ErrBadInput, err)
	}
	if len(list) == 0 {
		return fmt.Errorf("heal: %s has no worktree: %w", r.o.Repo, ErrBadInput)
	}
	top := list[0].Path
	// The listing names the main worktree's HEAD: the commit the heal
	// starts from, so no request reads it again.
	r.base = list[0].Head
	rel, err := filepath.Rel(top, r.o.Repo)
	if err != nil || strings.HasPrefix(rel, "..") {
		return fmt.Errorf("heal: %s is outside its repository %s: %w", r.o.Repo, top, ErrBadInput)
	}
	removed, err := cleanStale(ctx, r.o.Worktrees, top, list)
	if err != nil {
		return err
	}
	for _, p := range removed {
		r.o.Logger.Info("removed stale heal worktree", "path", p)
	}
	if reads.branchExists() {
		return fmt.Errorf("heal: branch %s already exists: %w", r.o.Branch, ErrBadInput)
	}
	if r.o.WorktreeDir == "" {
		if err := r.usePersistent(ctx, top, list); err != nil {
			return err
		}
		return r.ready(ctx, rel)
	}
	// The worktree starts detached and the heal branch is made at the
	// first commit, so a run that commits nothing leaves no branch behind.
	gd, err := r.o.Worktrees.Add(ctx, top, r.o.WorktreeDir, r.base, lockReason(os.Getpid(), r.o.Branch))
	if err != nil {
		return fmt.Errorf("heal: create worktree for branch %s: %w", r.o.Branch, err)
	}
	r.gitDir = gd
	r.added = true
	if err := r.pin(ctx, top); err != nil {
		return err
	}
	return r.ready(ctx, rel)
}

// ready sets the base commit of the worktree the run will use: the
// commit setup added it at or reset it to, else its HEAD as git reads it.
func (r *run) ready(ctx context.Context, rel string) error {
	r.ws = filepath.Join(r.o.WorktreeDir, rel)
	r.res.BaseCommit = r.base
	if r.base == "" {
		var err error
		if r.res.BaseCommit, err = r.guard.Head(ctx, r.ws); err != nil {
			return fmt.Errorf("heal: read HEAD: %w: %w", ErrEnvironment, err)
		}
	}
	r.res.HeadCommit = r.res.BaseCommit
	r.o.Logger.Info("heal worktree ready", "path", r.ws, "branch", r.o.Branch, "base", r.res.BaseCommit, "reused", r.reused)
	return r.testEdits()
}

// finish removes the worktree, fills the closing fields and records the
// run. It runs even when ctx is cancelled (SIGINT, SIGTERM): the removal
// and the record then get a bounded time of their own.
func (r *run) finish(ctx context.Context) {
	if r.slot != nil {
		stop := r.timed(results.StageCleanup)
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		r.endPersistent(cctx)
		cancel()
		stop()
	} else if r.o.KeepWorktree != KeepAlways && r.added {
		stop := r.timed(results.StageCleanup)
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		list, err := r.o.Worktrees.List(cctx, r.o.Repo)
		if err == nil && len(list) > 0 {
			err = r.o.Worktrees.Remove(cctx, list[0].Path, r.o.WorktreeDir)
		}
		if err != nil {
			r.o.Logger.Warn("could not remove the heal worktree", "path", r.o.WorktreeDir, "error", err)
		}
		cancel()
		stop()
	}
	for _, a := range r.o.Accountants {
		r.res.LLM.Add(a.Accounting())
	}
	r.o.Progress.Done()
	r.record(ctx)
}

// cleanupTimeout bounds the removal of the worktree and the final record
// of a run that was cancelled.
const cleanupTimeout = 30 * time.Second

// record fills the completion time and records the run.
func (r *run) record(ctx context.Context) {
	r.res.CompletedAt = contract.Timestamp(r.o.Now())
	if r.o.Recorder == nil {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if err := r.o.Recorder.RecordHeal(cctx, r.res); err != nil {
		r.o.Logger.Warn("could not record the run", "error", err)
	}
}

// timed starts timing stage and returns the function that stops it.
func (r *run) timed(stage string) func() {
	t0 := time.Now()
	iter := r.res.Iterations
	return func() {
		d := time.Since(t0).Seconds()
		r.res.Stages = append(r.res.Stages, results.StageTiming{Stage: stage, Iteration: iter, StartedAt: contract.Timestamp(t0), Seconds: d})
		r.res.Timings[stage] += d
		if r.iterT != nil {
			r.iterT[stage] += d
		}
	}
}

// build runs the Executor in the workspace, timed as stage.
func (r *run) build(ctx context.Context, iter int, stage string) (contract.ExecutorOutput, error) {
	return r.runBuild(ctx, iter, stage, r.cmd)
}

// runBuild runs command (empty: the Executor's detection) in the
// workspace, timed as stage.
func (r *run) runBuild(ctx context.Context, iter int, stage, command string) (contract.ExecutorOutput, error) {
	out, err := r.execute(ctx, iter, stage, command)
	if err != nil {
		return out, err
	}
	if out.ExitCode != 0 || out.EnvironmentMetadata.TimedOut {
		if err := r.environment(out); err != nil {
			return out, err
		}
	}
	r.o.Logger.Info("build finished", "stage", stage, "iteration", iter, "exit_code", out.ExitCode, "seconds", out.ExecutionTimeSeconds)
	return out, nil
}

// input is the Executor's input for a build of command in ws.
func (r *run) input(ws, command string) contract.ExecutorInput {
	in := contract.ExecutorInput{WorkspacePath: ws, ResolvedBuildCommand: command, TimeoutSeconds: int(r.o.BuildTimeout / time.Second)}
	if r.o.ProjectType != "" {
		pt := r.o.ProjectType
		in.ProjectType = &pt
	}
	return in
}

// execute runs command (empty: the Executor's detection) in the
// workspace, timed as stage, records the build and guards the worktree's
// git metadata after it. It does not judge the build's environment.
func (r *run) execute(ctx context.Context, iter int, stage, command string) (contract.ExecutorOutput, error) {
	r.o.Progress.Stage(iter, stage, r.fixedN)
	defer r.timed(stage)()
	r.lastBuild = time.Now().Add(-time.Second)
	out, err := r.o.Executor.Run(ctx, r.input(r.ws, command))
	for _, w := range out.EnvironmentMetadata.Warnings {
		// What the executor put back around the build (a rewritten
		// .git): the user should know the build tried.
		r.warnOnce(w)
	}
	if err == nil {
		r.res.Builds = append(r.res.Builds, results.Build{Stage: stage, Iteration: iter, Command: command, ExitCode: out.ExitCode,
			Seconds: out.ExecutionTimeSeconds, Log: out.EnvironmentMetadata.LogPath, LogBytes: out.EnvironmentMetadata.LogBytes})
	}
	// The build could write the worktree: put its .git back and check the
	// git directory before anything else trusts them.
	if gerr := r.guard.guard(); gerr != nil {
		return out, gerr
	}
	if err != nil {
		if ctx.Err() != nil {
			return out, fmt.Errorf("heal: build: %w", ctx.Err())
		}
		return out, fmt.Errorf("heal: build could not run: %w: %w", ErrEnvironment, err)
	}
	return out, nil
}

// parse runs the Parser on a build's log, timed.
func (r *run) parse(out contract.ExecutorOutput) []contract.BugReport {
	defer r.timed(results.StageParse)()
	return r.o.Parser.Parse(out.BuildLog, r.ws)
}

// maxTailLines and maxTailBytes bound the end of a log quoted in a reason.
const (
	maxTailLines = 5
	maxTailBytes = 600
	maxTailRead  = 256 << 10
)

// logTail returns the last non-blank lines of a log, joined with " | ".
func logTail(log string) string {
	var lines []string
	// The end is enough: what a go test -json event carries is read from
	// the last 256 KiB, from a line's start.
	if len(log) > maxTailRead {
		log = log[len(log)-maxTailRead:]
		if i := strings.IndexByte(log, '\n'); i >= 0 {
			log = log[i+1:]
		}
	}
	rest := strings.TrimRight(logparse.GoTestText(log), "\n \t\r")
	for len(lines) < maxTailLines && rest != "" {
		l := lastLine(rest)
		rest = strings.TrimRight(rest[:len(rest)-len(l)], "\n \t\r")
		if t := strings.TrimSpace(l); t != "" {
			lines = append([]string{t}, lines...)
		}
	}
	if len(lines) == 0 {
		return "(the log is empty)"
	}
	out := strings.Join(lines, " | ")
	if len(out) > maxTailBytes {
		out = "…" + out[len(out)-maxTailBytes:]
	}
	return out
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// loop is the fix loop: build, parse, fix, gate, verify, commit, CI.
func (r *run) loop(ctx context.Context) error {
	defer r.dropAhead()
	cur, err := r.build(ctx, 0, results.StageBuild)
	if err != nil {
		return err
	}
	for iter := 1; ; iter++ {
		if cur.ExitCode == 0 {
			return r.green(iter)
		}
		before := r.parse(cur)
		if iter == 1 && len(before) > 0 {
			// What the first fix needs (the code under test resolved, the
			// request built) is prepared while the failing tests run again:
			// both only read the worktree, and neither costs a model call.
			r.prepareAhead(ctx, GroupByFile(before)[0])
			if flaky, err := r.flaky(ctx, cur, before); flaky || err != nil {
				return err // the deferred dropAhead waits for the preparation
			}
		}
		if iter > r.o.MaxIterations {
			return r.red(before, fmt.Sprintf("max iterations (%d) reached", r.o.MaxIterations))
		}
		if len(before) == 0 {
			return r.red(before, "the build fails but the parser found no bug report to fix; its log ends: "+logTail(cur.BuildLog))
		}
		r.res.Iterations = iter
		r.iterT = map[string]float64{}
		next, stop, err := r.iterate(ctx, iter, cur, before)
		r.res.IterationTimings = append(r.res.IterationTimings, r.iterT)
		r.iterT = nil
		if err != nil || stop != "" {
			if err == nil {
				err = r.red(before, stop)
			}
			return err
		}
		cur = next
	}
}

// green closes a run whose last build passed.
func (r *run) green(iter int) error {
	if r.res.CI == nil {
		// No fix was committed: there is nothing of ours for a remote CI
		// to judge, and the local build has spoken.
		r.res.CI = &results.Verdict{Green: true, Source: "local", Detail: "no commit to check: the build passed before any fix"}
	}
	if r.res.CI.NoSignal {
		r.res.Outcome = results.OutcomeNoSignal
		r.res.Reason = "the local build passes, but CI gave no signal: " + r.res.CI.Detail
		return nil
	}
	if !r.res.CI.Green {
		return r.red(nil, "the local build passes but CI is red: "+r.res.CI.Detail)
	}
	r.res.Outcome = results.OutcomeGreen
	r.res.Reason = "the build is green"
	if iter == 1 {
		r.res.Reason = "the build was already green"
		if r.dirty {
			r.res.Reason = "the committed HEAD already builds green; your checkout has uncommitted changes, which heal does not see: " +
				"if the failure is in them, commit them (or try them on a branch) and run salve heal again"
		}
	}
	return nil
}

// red closes a run that ends with a failing build.
func (r *run) red(remaining []contract.BugReport, reason string) error {
	r.res.Outcome = results.OutcomeRed
	r.res.Reason = reason
	if remaining != nil {
		r.res.Remaining = remaining
	}
	r.o.Logger.Info("heal stopped red", "reason", reason)
	return nil
}
