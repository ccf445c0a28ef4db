// Package executor is the Executor layer of the self-healing build
// pipeline (docs/contracts/heal-pipeline.md §Executor): it runs a project's build and tests the way CI would,
// observes them, and reports a contract.ExecutorOutput. It never fixes code,
// never commits and never interprets the log; that is the Parser's job.
//
// # What a run does
//
//   - resolve the command: the one given, or one derived from the project's
//     marker files by a detection table ([Detect]);
//   - scrub the environment to an allow-list ([sandbox.DefaultAllowEnv]) plus
//     the names the caller passes, so API keys never reach a build;
//   - pick an isolation backend (none, bwrap, docker, podman; "auto" picks
//     the strongest that works) and probe the runtime versions and tools
//     through it;
//   - run the command with a timeout that kills the whole process group or
//     container (exit code 124, timed_out set);
//   - share the user's caches with the build without letting it change them
//     ([sandbox.UserCaches]: overlays under bwrap, read-only mounts in
//     containers);
//   - mask known secrets in the output at the source ([sandbox.Masker]);
//   - stream the combined log to build.log in the run directory, capped on
//     disk (head and tail, [DefaultMaxLogFile]) and in memory, and write
//     output.json beside it;
//   - keep the build from leaving anything in the checkout's git metadata
//     that runs a program at the user's next git command: the sandboxes
//     mount it read-only, and without one it is snapshotted and put back,
//     each change reported in EnvironmentMetadata.Warnings;
//   - hand the output to a [Recorder] (the run store), when one is set.
package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/ansi"
	"github.com/salve-dev/salve/internal/safeid"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/statedir"
)

// ExitTimeout is the exit code reported when the timeout killed the build,
// as timeout(1) does.
const ExitTimeout = 124

// DefaultProbeTimeout bounds the run that finds tools and versions.
const DefaultProbeTimeout = 10 * time.Second

// recordTimeout bounds the Recorder's call.
const recordTimeout = 30 * time.Second

// Names of the files a run writes in its run directory.
const (
	LogFile    = "build.log"
	OutputFile = "output.json"
)

// ErrBadInput is returned (wrapped) by [Executor.Run] when the input cannot
// be run: a workspace that is not an absolute directory, a negative
// timeout, an unknown project type or isolation backend, or a workspace
// whose command cannot be resolved. The CLI maps it to exit status 2.
var ErrBadInput = errors.New("executor: bad input")

// ErrRecord is returned (wrapped) by [Executor.Run] when the build ran but
// the Recorder failed. The output returned with it is complete and valid.
var ErrRecord = errors.New("executor: record execution")

// Recorder stores one execution: in the run store, as an event carrying the
// output object, with the full log at logPath stored beside it.
type Recorder interface {
	RecordExecution(ctx context.Context, runID string, in contract.ExecutorInput, out contract.ExecutorOutput, logPath string) error
}

// Options configure an [Executor]. The zero value runs with "auto"
// isolation, the default allow-list, a fresh run id and directory, and a
// 1 MiB in-memory log.
type Options struct {
	// Isolation is "auto" (or empty), "none", "bwrap", "docker" or "podman".
	Isolation string
	// Backends, when set, shares the backends chosen with the other
	// Executors of the process that hold it (see [Backends]).
	Backends *Backends
	// Now is the clock of Backends; nil means time.Now.
	Now func() time.Time
	// PassEnv names variables passed to the build besides the allow-list.
	PassEnv []string
	// RunID identifies the run; empty means a new UUIDv4. It names the run
	// directory and the container, so it may hold only letters, digits,
	// '.', '_' and '-'.
	RunID string
	// RunDir is where build.log and output.json go; empty means
	// [DefaultRunDir] of the run id. It is created when missing.
	RunDir string
	// Image is the container image for every project type; empty means
	// Images[type], then the detection table's default.
	Image string
	// Images maps project types to container images.
	Images map[string]string
	// CacheDir is salve's own tool cache for sandboxed builds; empty means
	// [DefaultCacheDir]. It holds one directory per repository
	// ([RepoCacheDir]) with salve's layers of the Go build cache, which
	// keep what a build compiled for the repository's next build, and,
	// where overlays work, each build's scratch layer, removed after the
	// build; elsewhere that directory is the writable cache bound into the
	// sandbox.
	CacheDir string
	// RepoIdentity names the repository the builds are of, the key of its
	// layers ([RepoIdentity], which the Executor calls on SourceDir, else
	// the workspace, when this is empty: the origin remote's URL, else the
	// root commit of HEAD). A folder whose repository has no identity gets
	// no layer.
	RepoIdentity string
	// UntrustedChange says the builds are of a change whose author salve
	// does not trust with the repository's layer (a fork, a pull request
	// from someone without write access): they read the repository's
	// layer and write a throw-away layer above it, which [Executor.Discard]
	// removes, never the repository's own.
	UntrustedChange bool
	// SourceDir is the checkout the workspace was made from, when they
	// differ (a heal worktree): its node_modules and target/ are shared with
	// the build, read-only, like the user's other caches. Empty means none.
	SourceDir string
	// NoUserCaches keeps the user's caches (Go, cargo, npm, Maven, Gradle)
	// out of sandboxed builds altogether.
	NoUserCaches bool
	// KeepTestBinaries keeps the test binaries of a failing go test -json
	// build for the next builds to run ([Executor.GoTestBinary]); a heal
	// sets it, and calls [Executor.Discard] when it ends.
	KeepTestBinaries bool
	// MaxLog caps BuildLog in memory (head and tail kept); zero means
	// [sandbox.DefaultMaxOutput].
	MaxLog int
	// MaxLogFile caps build.log on disk: past it the file keeps the first
	// and the last half of the cap with a marker line between them saying
	// how many bytes were dropped (EnvironmentMetadata.LogDroppedBytes).
	// Zero means [DefaultMaxLogFile], a negative value no cap.
	MaxLogFile int64
	// Live, when set, receives the log as it is written.
	Live io.Writer
	// Recorder, when set, records every execution.
	Recorder Recorder
	// HasTool tells detection whether a program is installed; nil means a
	// PATH lookup.
	HasTool func(name string) bool
	// SkipProbe leaves runtime versions and tools unprobed.
	SkipProbe bool
	// Secrets are values to mask in the build's output wherever it is kept
	// or shown (BuildLog, build.log, the excerpt, Live, the run store),
	// besides the values of the secret variables ([sandbox.IsSecretEnv]) in
	// salve's environment and the build's. Configured header values and
	// keys read from files belong here.
	Secrets []string
	// Logger receives progress records; nil means none.
	Logger *slog.Logger
}

// Executor runs builds. Between runs it keeps only what its probes found:
// the backend chosen for an isolation and image, and the tools and versions
// found through a backend, so that a pipeline running the same build again
// and again does not pay for the probes each time. It is safe for
// concurrent use when the runs' RunID and RunDir options differ (leave both
// empty, or give each run its own Executor).
type Executor struct {
	opts Options

	mu         sync.Mutex
	backends   map[string]*backendFlight // by isolation + image
	probes     map[string]probeResult    // by backend + image + probe script
	identities map[string]string         // RepoIdentity by checkout
	untrusted  string                    // the throw-away layer's directory, once made
	kept       map[string]string         // by repository directory: the upper layers kept for this Executor's builds
	gowork     map[string]string         // by workspace: the work directory its last go test -json build, which failed, kept
	dropping   sync.WaitGroup            // work directories being removed; Discard waits
}

type probeResult struct {
	tools    []string
	versions map[string]string
}

// New returns an Executor with the given options.
func New(opts Options) *Executor {
	return &Executor{opts: opts, backends: map[string]*backendFlight{}, probes: map[string]probeResult{}, identities: map[string]string{}, kept: map[string]string{}, gowork: map[string]string{}}
}

func (e *Executor) now() time.Time {
	if e.opts.Now != nil {
		return e.opts.Now()
	}
	return time.Now()
}

// probe finds the plan's tools and runtime versions through the backend the
// build uses, once per backend, image and set of tools. A probe that fails
// leaves both empty: it is metadata, never a reason not to build.
func (e *Executor) probe(ctx context.Context, b sandbox.Backend, job sandbox.Job, plan Plan) ([]string, map[string]string) {
	job.Script = ProbeScript(plan.Tools, plan.Runtimes)
	key := b.Name() + "\x00" + job.Image + "\x00" + job.Script
	e.mu.Lock()
	r, ok := e.probes[key]
	e.mu.Unlock()
	if !ok {
		r = runProbe(ctx, b, job)
		if len(r.tools) > 0 {
			e.mu.Lock()
			e.probes[key] = r
			e.mu.Unlock()
		}
	}
	versions := make(map[string]string, len(r.versions))
	for k, v := range r.versions {
		versions[k] = v
	}
	return append([]string{}, r.tools...), versions
}

// DefaultRunDir returns the directory of run id: under $XDG_STATE_HOME
// (or ~/.local/state) in salve/runs, or under the temporary directory when
// there is no home.
func DefaultRunDir(id string) string {
	dir, err := statedir.State(os.Getenv, "runs", id)
	if err != nil {
		return filepath.Join(os.TempDir(), statedir.App, "runs", id)
	}
	return dir
}

// DefaultCacheDir returns salve's own tool cache for sandboxed builds,
// kept apart from the user's caches so that a build cannot poison them.
func DefaultCacheDir() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "salve", "sandbox")
	}
	return filepath.Join(os.TempDir(), "salve-sandbox-cache")
}

// Run executes in and reports what happened. A build that fails or times
// out is not an error: its exit code is in the output. The error wraps
// [ErrBadInput] when in cannot be run, [ErrRecord] when only the recording
// failed (the output is then valid), or the context's error when ctx ended
// the run.
func (e *Executor) Run(ctx context.Context, in contract.ExecutorInput) (contract.ExecutorOutput, error) {
	ws, timeout, err := checkInput(in)
	if err != nil {
		return contract.ExecutorOutput{}, err
	}
	plan, err := e.plan(ws, in)
	if err != nil {
		return contract.ExecutorOutput{}, err
	}
	image := e.imageFor(plan.ProjectType)
	backend, err := e.backend(ctx, image)
	if errors.Is(err, sandbox.ErrUnknownBackend) {
		return contract.ExecutorOutput{}, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	if err != nil {
		return contract.ExecutorOutput{}, fmt.Errorf("executor: isolation %q: %w", e.opts.Isolation, err)
	}
	runID := e.opts.RunID
	if runID == "" {
		runID = uuid.NewString()
	}
	if !safeid.Valid(runID) {
		return contract.ExecutorOutput{}, fmt.Errorf("%w: run id %q: use letters, digits, '.', '_' and '-' only", ErrBadInput, runID)
	}
	runDir := e.opts.RunDir
	if runDir == "" {
		runDir = DefaultRunDir(runID)
	}
	log := e.logger().With("run_id", runID)
	env := e.env()
	identity := e.identity(ctx, ws)
	job := sandbox.Job{
		Workspace: ws, Env: env, Image: image, CacheDir: RepoCacheDir(e.cacheDir(), identity),
		Name: "salve-exec-" + runID, MaxOutput: e.opts.MaxLog,
		Mask: sandbox.MaskerFromEnv([][]string{os.Environ(), env}, e.opts.Secrets...),
	}
	release := useRepoDir(job.CacheDir)
	defer release()
	if !e.opts.NoUserCaches {
		job.Caches = cachesFor(plan.ProjectType, e.keepLocal(e.layered(job, identity, ws), job.CacheDir, ws))
	}
	meta := contract.EnvironmentMetadata{
		ProjectType: plan.ProjectType, ResolvedCommand: plan.Command, CommandReason: plan.Reason,
		RuntimeVersions: map[string]string{}, DetectedTools: []string{}, Isolation: backend.Name(),
	}
	if _, ok := backend.(sandbox.Container); ok {
		meta.Image = image
	}
	// The git metadata is snapshotted before the probe starts: the probe
	// runs in the workspace too.
	git, gitWarn := watchGit(ws, backend)
	// The probe runs beside the build, not before it: it is metadata, and
	// its runtime start-ups (python3 --version through a pyenv shim takes a
	// third of a second) would otherwise add to every build's wall time.
	type probed struct {
		tools    []string
		versions map[string]string
	}
	probeDone := make(chan probed, 1)
	if e.opts.SkipProbe {
		probeDone <- probed{}
	} else {
		go func() {
			t, v := e.probe(ctx, backend, job, plan)
			probeDone <- probed{t, v}
		}()
	}
	command := plan.Command
	work := e.goWorkFor(backend, job.CacheDir, ws, command, job.Env)
	if work != "" {
		command = withWork(command)
		job.Env = append(job.Env, "GOTMPDIR="+work)
		job.Kept = append(job.Kept, sandbox.KeptDir{Path: work, Writable: true})
	} else if kept := e.goWorkKept(ws); kept != "" {
		job.Kept = append(job.Kept, sandbox.KeptDir{Path: kept})
	}
	log.Debug("executor: start", "workspace", ws, "command", command, "isolation", backend.Name())
	out, err := e.build(ctx, backend, job, command, work, timeout, runDir, meta)
	if work != "" {
		e.goWorkDone(ws, work, err == nil && out.ExitCode != 0 && !out.EnvironmentMetadata.TimedOut)
	}
	p := <-probeDone
	warnings := git.restore()
	if gitWarn != "" {
		warnings = append([]string{gitWarn}, warnings...)
	}
	for _, w := range warnings {
		log.Warn("executor: " + w)
	}
	if err != nil {
		return out, err
	}
	out.EnvironmentMetadata.Warnings = append(out.EnvironmentMetadata.Warnings, warnings...)
	if !e.opts.SkipProbe {
		out.EnvironmentMetadata.DetectedTools, out.EnvironmentMetadata.RuntimeVersions = p.tools, p.versions
	}
	log.Debug("executor: done", "exit_code", out.ExitCode, "seconds", out.ExecutionTimeSeconds)
	if err := writeOutput(runDir, out); err != nil {
		log.Warn("executor: write output", "err", err)
	}
	if e.opts.Recorder != nil {
		// An interrupted build is recorded too: the record outlives ctx.
		recCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
		err := e.opts.Recorder.RecordExecution(recCtx, runID, in, out, out.EnvironmentMetadata.LogPath)
		cancel()
		if err != nil {
			return out, fmt.Errorf("%w: run %s: %w", ErrRecord, runID, err)
		}
	}
	if ctx.Err() != nil {
		return out, fmt.Errorf("executor: run %s interrupted: %w", runID, context.Cause(ctx))
	}
	return out, nil
}

// build runs the command and assembles the output.
// work, when set, is the directory the go work directory is kept in
// (see goWorkFor): the line go prints to name it is left out of the log.
func (e *Executor) build(ctx context.Context, b sandbox.Backend, job sandbox.Job, command, work string,
	timeout time.Duration, runDir string, meta contract.EnvironmentMetadata) (contract.ExecutorOutput, error) {
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		return contract.ExecutorOutput{}, fmt.Errorf("executor: create run dir: %w", err)
	}
	logPath := filepath.Join(runDir, LogFile)
	maxFile := e.opts.MaxLogFile
	if maxFile == 0 {
		maxFile = DefaultMaxLogFile
	}
	f, err := newCappedLog(logPath, maxFile)
	if err != nil {
		return contract.ExecutorOutput{}, fmt.Errorf("executor: create log: %w", err)
	}
	logW := &stickyWriter{w: f}
	excerpt := NewExcerpt(0, 0, 0)
	sinks := []io.Writer{logW, excerpt}
	if e.opts.Live != nil {
		sinks = append(sinks, &stickyWriter{w: e.opts.Live})
	}
	// What salve keeps or shows of the log carries no terminal escapes:
	// a build's colours would reach a summary, a comment or the viewer.
	job.Script, job.Timeout, job.Output = command, timeout, ansi.NewWriter(io.MultiWriter(sinks...))
	var filter *workLineFilter
	if work != "" {
		filter = newWorkLineFilter(job.Output, work)
		job.Output = filter
	}
	res, runErr := sandbox.RunJob(ctx, b, job)
	if filter != nil {
		_ = filter.Flush() // a write error shows as logW.err
		res.Stdout = dropWorkLine(res.Stdout, work)
	}
	closeErr := f.Close()
	if errors.Is(runErr, sandbox.ErrCleanup) {
		e.logger().Warn("executor: the build ran, but its sandbox was not cleaned up", "err", runErr)
		runErr = nil
	}
	if runErr != nil {
		return contract.ExecutorOutput{}, fmt.Errorf("executor: run build: %w", runErr)
	}
	if err := errors.Join(logW.err, closeErr); err != nil {
		e.logger().Warn("executor: the log file is incomplete", "path", logPath, "err", err)
	}
	meta.TimedOut = res.TimedOut
	meta.LogPath, meta.LogBytes, meta.LogTruncated = logPath, res.StdoutBytes, res.Truncated
	meta.LogDroppedBytes = f.Dropped()
	return contract.ExecutorOutput{
		ExitCode:             ExitCode(res),
		BuildLog:             ansi.Strip(string(res.Stdout)),
		LogExcerpt:           excerpt.String(),
		ExecutionTimeSeconds: res.Duration.Seconds(),
		EnvironmentMetadata:  meta,
	}, nil
}

func checkInput(in contract.ExecutorInput) (string, time.Duration, error) {
	if !filepath.IsAbs(in.WorkspacePath) {
		return "", 0, fmt.Errorf("%w: workspace %q is not an absolute path", ErrBadInput, in.WorkspacePath)
	}
	ws, err := filepath.EvalSymlinks(in.WorkspacePath)
	if err != nil {
		return "", 0, fmt.Errorf("%w: workspace: %w", ErrBadInput, err)
	}
	if st, err := os.Stat(ws); err != nil || !st.IsDir() {
		return "", 0, fmt.Errorf("%w: workspace %s is not a directory", ErrBadInput, ws)
	}
	if ws == "/" {
		return "", 0, fmt.Errorf("%w: the workspace cannot be the filesystem root", ErrBadInput)
	}
	if in.TimeoutSeconds < 0 {
		return "", 0, fmt.Errorf("%w: negative timeout %d", ErrBadInput, in.TimeoutSeconds)
	}
	secs := in.TimeoutSeconds
	if secs == 0 {
		secs = contract.DefaultExecutorTimeoutSeconds
	}
	return ws, time.Duration(secs) * time.Second, nil
}

// plan resolves the command: the one given (detection then only names the
// type), an override type, or detection.
func (e *Executor) plan(ws string, in contract.ExecutorInput) (Plan, error) {
	env := ResolveEnv{HasTool: e.opts.HasTool}
	if env.HasTool == nil {
		env.HasTool = func(name string) bool { _, err := exec.LookPath(name); return err == nil }
	}
	typ := ""
	if in.ProjectType != nil {
		typ = *in.ProjectType
	}
	var plan Plan
	var err error
	switch {
	case typ != "":
		plan, err = DetectAs(ws, typ, env)
	default:
		plan, err = Detect(ws, env)
	}
	if in.ResolvedBuildCommand == "" {
		if err != nil {
			return Plan{}, fmt.Errorf("%w: %w", ErrBadInput, err)
		}
		return plan, nil
	}
	if errors.Is(err, ErrUnknownProjectType) {
		return Plan{}, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	if err != nil { // a given command needs no detection; keep what is known
		plan = Plan{ProjectType: TypeUnknown}
		if d, ok := detectorFor(typ); ok {
			plan = Plan{ProjectType: typ, Tools: d.Tools, Runtimes: d.Runtimes, Image: d.Image}
		}
	}
	plan.Command, plan.Reason = in.ResolvedBuildCommand, "given"
	return plan, nil
}

func (e *Executor) imageFor(typ string) string {
	if e.opts.Image != "" {
		return e.opts.Image
	}
	if img := e.opts.Images[typ]; img != "" {
		return img
	}
	if d, ok := detectorFor(typ); ok {
		return d.Image
	}
	return "buildpack-deps:stable"
}

// env is the scrubbed environment: the allow-list, the names passed, and
// CI=true unless set, as a CI runner would.
func (e *Executor) env() []string {
	env := sandbox.AllowedEnv(e.opts.PassEnv...)
	for _, kv := range env {
		if len(kv) >= 3 && kv[:3] == "CI=" {
			return env
		}
	}
	return sandbox.MergeEnv(env, map[string]string{"CI": "true"})
}

func (e *Executor) cacheDir() string {
	if e.opts.CacheDir != "" {
		return e.opts.CacheDir
	}
	return DefaultCacheDir()
}

// CacheDir is salve's cache directory the Executor's builds use, for
// [TrimCaches].
func (e *Executor) CacheDir() string { return e.cacheDir() }

// identity is the identity of the repository of ws's builds
// (Options.RepoIdentity, else [RepoIdentity] of the checkout ws was made
// from, Options.SourceDir, else of ws), found once per checkout; "" when
// it has none.
func (e *Executor) identity(ctx context.Context, ws string) string {
	if e.opts.RepoIdentity != "" {
		return e.opts.RepoIdentity
	}
	repo := e.opts.SourceDir
	if repo == "" {
		repo = ws
	}
	e.mu.Lock()
	id, ok := e.identities[repo]
	e.mu.Unlock()
	if ok {
		return id
	}
	id, err := RepoIdentity(ctx, repo, "", "")
	if err != nil {
		e.logger().Debug("executor: the builds get no layer", "err", err)
	}
	e.mu.Lock()
	e.identities[repo] = id
	e.mu.Unlock()
	return id
}

// layered returns the user's caches the job shares, with salve's layer of
// the repository named identity: its own (job.CacheDir/layer), or, for an
// untrusted change, the Executor's throw-away layer with the
// repository's below it, read only. A repository without identity gets
// no layer.
func (e *Executor) layered(job sandbox.Job, identity, ws string) []sandbox.Cache {
	caches := sandbox.UserCaches(job.Env, e.opts.SourceDir, ws)
	if identity == "" {
		return caches
	}
	own := filepath.Join(job.CacheDir, layerDir)
	if !e.opts.UntrustedChange {
		return sandbox.Layered(caches, job.Env, own)
	}
	e.mu.Lock()
	if e.untrusted == "" || filepath.Dir(filepath.Dir(e.untrusted)) != job.CacheDir {
		e.untrusted = newUntrustedDir(job.CacheDir)
	}
	dir := e.untrusted
	e.mu.Unlock()
	if err := os.MkdirAll(dir, 0o700); err == nil {
		now := time.Now()
		_ = os.Chtimes(dir, now, now) // in use: not stale for TrimCaches
	}
	caches = sandbox.Layered(caches, job.Env, dir)
	for i := range caches {
		if caches[i].Layer != "" {
			caches[i].Base = filepath.Join(own, caches[i].Name)
		}
	}
	return caches
}

// Discard removes the throw-away layer the builds of an untrusted change
// wrote (Options.UntrustedChange), and the upper layers kept for this
// Executor's builds ([Executor.keepLocal]); the repository's own layer is
// left as it was. A heal calls it when it ends. Without either it does
// nothing.
func (e *Executor) Discard() error {
	e.dropping.Wait()
	e.mu.Lock()
	dirs := []string{e.untrusted}
	e.untrusted = ""
	for repo, d := range e.kept {
		dirs = append(dirs, d)
		delete(e.kept, repo)
	}
	clear(e.gowork) // their directories are inside the kept ones
	e.mu.Unlock()
	var errs []error
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("executor: discard the throw-away layers: %w", err)
	}
	return nil
}

func (e *Executor) logger() *slog.Logger {
	if e.opts.Logger != nil {
		return e.opts.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// typeCaches names the caches each project type's build uses. A type not
// listed (make, cmake, multi, unknown: a Makefile may call any toolchain)
// gets every cache. Each shared cache is one more mount per build, so a
// Python build, which needs none, starts without the overlay setup step.
var typeCaches = map[string][]string{
	TypeGo:     {"go-build", "go-mod"},
	TypeRust:   {"cargo-registry", "cargo-git", "target"},
	TypeNode:   {"npm", "node_modules"},
	TypePython: {},
	TypeMaven:  {"maven"},
	TypeGradle: {"gradle-caches", "gradle-wrapper"},
}

// cachesFor keeps the caches the project type's build uses.
func cachesFor(typ string, caches []sandbox.Cache) []sandbox.Cache {
	names, ok := typeCaches[typ]
	if !ok {
		return caches
	}
	var out []sandbox.Cache
	for _, c := range caches {
		if slices.Contains(names, c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// runProbe runs the probe script of job through b.
func runProbe(ctx context.Context, b sandbox.Backend, job sandbox.Job) probeResult {
	job.Timeout, job.MaxOutput, job.Output = DefaultProbeTimeout, 64*1024, nil
	job.Name += "-probe"
	// The probe runs beside the build and needs no cache. It must not mount
	// the shared ones either: its cleanup removes the empty mount points it
	// made in the workspace, and removing a mount point on the host detaches
	// the build's overlay on it.
	job.Caches = nil
	res, err := sandbox.RunJob(ctx, b, job)
	if err != nil || res.TimedOut {
		return probeResult{versions: map[string]string{}}
	}
	tools, versions := ParseProbe(res.Stdout)
	return probeResult{tools: tools, versions: versions}
}

// ExitCode maps a sandbox result to the build's exit code: 124 for a
// timeout, the status for a normal exit, and 128+N for death by signal N,
// as shells report it.
func ExitCode(res sandbox.Result) int {
	if res.TimedOut {
		return ExitTimeout
	}
	if res.ExitCode >= 0 {
		return res.ExitCode
	}
	for n := 1; n < 65; n++ {
		if syscall.Signal(n).String() == res.Signal {
			return 128 + n
		}
	}
	return 128 + int(syscall.SIGKILL)
}

// EnvPassEnv names the environment variable that lists, separated by commas
// or spaces, more variables to pass to builds: the configured counterpart
// of Options.PassEnv (and of salve exec's --env).
const EnvPassEnv = "SALVE_EXEC_ENV"

// PassEnvFromEnv returns the variable names listed in [EnvPassEnv], as read
// by getenv.
func PassEnvFromEnv(getenv func(string) string) []string {
	return strings.FieldsFunc(getenv(EnvPassEnv), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}

func writeOutput(runDir string, out contract.ExecutorOutput) error {
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encode output: %w", err)
	}
	return os.WriteFile(filepath.Join(runDir, OutputFile), append(b, '\n'), 0o600)
}

// stickyWriter passes writes on until the first error, then swallows the
// rest and keeps that error: a full disk or a closed terminal must not
// stall or kill the build it observes.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err == nil {
		_, s.err = s.w.Write(p)
	}
	return len(p), nil
}
