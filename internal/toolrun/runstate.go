package toolrun

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/store"
)

// runState carries one run through its steps.
type runState struct {
	a        *Adapter
	req      contract.ToolRunRequestV1
	opts     RunOptions
	wantTool string

	profile   Profile
	scope     []string
	root      string // Cwd with symbolic links resolved
	runID     string
	requestID string
	start     time.Time
	status    string
	result    contract.ToolRunResultV1
	events    []contract.LogEventV1
	patches   []contract.PatchRecordV1
	violated  []string
	stored    bool // the run row exists in the store
	persisted bool // persist was attempted

	// sn and before are set once the pre-run snapshot is taken, and
	// scopeDone once checkScope has returned: a panic in between must
	// still put back the out-of-scope changes (see panicked).
	sn        *snapshotter
	before    *snapshot
	scopeDone bool

	// env is the child's environment; masker hides its secret values in
	// everything the run keeps.
	env    []string
	masker *secretMasker
	// guard watches what makes git run programs (see gitguard.go);
	// gitBefore is its pre-run state and gitDone is set once it has been
	// checked after the run.
	guard     *gitGuard
	gitBefore *gitSnapshot
	gitDone   bool
	// links watches the targets outside the tree of the tree's links.
	links *outsideLinks
	// watch is the pre-run state of the dependency and cache folders.
	watch *watched
	// unsafe lists the changes that could run code or reach outside the
	// work tree (git hooks and config, links out of the tree): they make
	// the result fail with ExitUnsafeChange.
	unsafe       []string
	unsafeMarked bool
	// reaper names how the tool's process tree was contained.
	reaper string
	// home is the run's private HOME (Profile.PrivateHome), removed when
	// the run ends.
	home string
}

// maxEventText caps the tool output copied into an event's context.
const maxEventText = 4096

func (rs *runState) begin() {
	rs.start = rs.a.now()
	rs.runID = rs.opts.RunID
	if rs.runID == "" {
		rs.runID = rs.a.newID()
	}
	rs.requestID = rs.opts.RequestID
	if rs.requestID == "" {
		if v, ok := rs.req.Context["request_id"].(string); ok && v != "" {
			rs.requestID = v
		} else {
			rs.requestID = "req-" + rs.a.newID()
		}
	}
	rs.result = contract.ToolRunResultV1{ToolID: rs.req.ToolID, StartedAt: contract.Timestamp(rs.start)}
}

// execute runs the steps of docs/contracts/tool-adapter.md §4.2 and the
// scope check.
func (rs *runState) execute(ctx context.Context) {
	rs.a.stage("validate")
	if msg := rs.validate(); msg != "" {
		rs.reject(msg)
		return
	}
	if rs.opts.Pattern != nil {
		if msg := rs.opts.Pattern.Guardrails.Check(rs.req.ToolID, rs.scope); msg != "" {
			rs.reject(fmt.Sprintf("pattern %s: %s", rs.opts.Pattern.ID, msg))
			return
		}
	}
	rs.createStoredRun(ctx)
	// Snapshots and reverts work on the real folder: WalkDir does not
	// enter a root that is a symbolic link.
	root, err := filepath.EvalSymlinks(rs.req.Cwd)
	if err != nil {
		rs.reject(fmt.Sprintf("cannot resolve cwd: %v", err))
		return
	}
	rs.root = root
	sn := &snapshotter{root: root, limits: rs.a.Limits.withDefaults(), ignore: rs.profile.IgnorePaths, priority: map[string]bool{}}
	for _, f := range rs.scope {
		sn.priority[f] = true
	}
	rs.a.stage("snapshot")
	before, err := sn.take()
	if err != nil {
		rs.reject(fmt.Sprintf("cannot check the file scope: %v", err))
		return
	}
	rs.sn, rs.before = sn, before
	if err := rs.makeHome(); err != nil {
		rs.reject(err.Error())
		rs.before = nil
		return
	}
	rs.env = rs.childEnv()
	rs.masker = newSecretMasker(rs.env, rs.req.Env)
	guard, err := newGitGuard(root, envValue(rs.env, "HOME"), envValue(rs.env, "XDG_CONFIG_HOME"), sn.limits)
	if err == nil {
		rs.gitBefore, err = guard.take()
	}
	if err != nil {
		rs.reject(fmt.Sprintf("cannot guard the git directory: %v", err))
		rs.before = nil
		return
	}
	rs.guard = guard
	sn.gitDirIDs = guard.dirIDs(rs.gitBefore)
	rs.links = watchOutsideLinks(root, before, sn.limits)
	rs.watch = watchFolders(root)
	rs.event(contract.LevelInfo, "Running "+rs.req.ToolID+": "+rs.cmdLine(),
		map[string]any{"cwd": rs.req.Cwd, "file_scope": rs.scope, "env_policy": rs.envPolicy()})
	rs.a.stage("run")
	rs.runTool(ctx)
	rs.a.stage("git")
	rs.checkGit()
	rs.a.stage("scope")
	rs.checkScope(ctx, sn, before)
	rs.scopeDone = true
	rs.checkOutsideLinks()
	rs.checkWatched(rs.watch)
	rs.markUnsafe()
	rs.setStatus()
}

// runTool starts the tool through sandbox.Run and maps the outcome.
func (rs *runState) runTool(ctx context.Context) {
	timeout := rs.req.TimeoutSeconds
	if timeout == 0 {
		timeout = contract.DefaultToolTimeoutSeconds
	}
	env := rs.env
	prog, err := lookPath(rs.req.Cmd[0], env)
	if err != nil {
		rs.startFailed(err)
		return
	}
	// The marker lets the fallback reaper tell the orphans of this run
	// from salve's other children.
	marker := EnvRunMarker + "=" + rs.runID
	cmd := sandbox.Cmd{
		Path: prog, Args: rs.req.Cmd[1:], Dir: rs.req.Cwd, Env: append(append([]string(nil), env...), marker),
		Timeout: time.Duration(timeout) * time.Second, MaxOutput: rs.a.MaxOutput,
	}
	if rs.req.StdinData != nil {
		cmd.Stdin = strings.NewReader(*rs.req.StdinData)
	}
	res, err := rs.runReaped(ctx, cmd, marker)
	end := rs.a.now()
	rs.result.CompletedAt = contract.Timestamp(end)
	if err != nil {
		rs.startFailed(err)
		return
	}
	rs.result.DurationSeconds = res.Duration.Seconds()
	rs.result.Stdout = string(res.Stdout)
	rs.result.Stderr = string(res.Stderr)
	rs.result.ExitCode = res.ExitCode
	switch {
	case res.TimedOut:
		rs.result.ExitCode = contract.ExitTimeout
		rs.result.TimedOut = true
		rs.result.Stderr = TimeoutMessage(timeout)
		rs.event(contract.LevelError, rs.result.Stderr+"; process group killed",
			map[string]any{"partial_stderr": clip(string(res.Stderr)), "stdout_bytes": res.StdoutBytes})
	case ctx.Err() != nil:
		rs.result.ExitCode = contract.ExitExecError
		rs.result.Stderr = fmt.Sprintf("Process cancelled: %v\n%s", ctx.Err(), res.Stderr)
		rs.event(contract.LevelError, "Process cancelled; process group killed", nil)
	case res.Signal != "":
		rs.result.ExitCode = contract.ExitExecError
		rs.result.Stderr = fmt.Sprintf("%sProcess killed by signal: %s", res.Stderr, res.Signal)
		rs.event(contract.LevelError, "Process killed by signal "+res.Signal, nil)
	}
	if res.Truncated {
		rs.event(contract.LevelWarn, "Output capped to its head and tail",
			map[string]any{"stdout_bytes": res.StdoutBytes, "stderr_bytes": res.StderrBytes})
	}
}

// startFailed records a tool that could not be started.
func (rs *runState) startFailed(err error) {
	end := rs.a.now()
	rs.result.CompletedAt = contract.Timestamp(end)
	rs.result.ExitCode, rs.result.Stderr = mapStartError(err)
	rs.result.DurationSeconds = end.Sub(rs.start).Seconds()
	rs.event(contract.LevelError, rs.result.Stderr, map[string]any{"exit_code": rs.result.ExitCode})
}

// checkScope snapshots the tree again, records a patch per changed file and
// reverts the changes outside the scope (and outside the pattern's
// path_scope).
func (rs *runState) checkScope(ctx context.Context, sn *snapshotter, before *snapshot) {
	after, err := sn.take()
	if err != nil {
		rs.event(contract.LevelError, "Cannot snapshot the work tree after the run: "+err.Error(), nil)
		rs.status = contract.RunFailed
		return
	}
	changes := treeChanges(before, after)
	if len(changes) == 0 {
		return
	}
	git := rs.a.Git
	if git == "" {
		git = "git"
	}
	diffs, err := renderDiffs(context.WithoutCancel(ctx), git, changes)
	if err != nil {
		rs.event(contract.LevelError, "Cannot render diffs: "+err.Error(), nil)
		diffs = map[string]string{}
	}
	scope := newFileScope(rs.scope, before)
	for _, c := range changes {
		in := scope.contains(c.Path) && (rs.opts.Pattern == nil || rs.opts.Pattern.Guardrails.PathAllowed(c.Path))
		p := contract.PatchRecordV1{
			PatchID: "patch-" + rs.a.newID(), FilePath: c.Path, Operation: c.Op, Diff: diffs[c.Path],
			ToolID: rs.req.ToolID, RequestID: rs.requestID, RunID: rs.runID, InScope: in,
		}
		if why := rs.neverKept(c); why != "" {
			in = false
			p.InScope = false
			rs.unsafe = append(rs.unsafe, c.Path)
			rs.event(contract.LevelError, why, map[string]any{"file_path": c.Path, "change": c.describe()})
		}
		if !in {
			rs.violated = append(rs.violated, c.Path)
			p.Reverted = rs.revertChange(before, c, p.PatchID)
		}
		rs.patches = append(rs.patches, p)
	}
}

// neverKept returns why change c is an unsafe change that is reverted in
// scope or not, or "" when the scope decides. Such a change is one that
// would act beyond the file itself: a link out of the tree (the next
// write through it lands outside), a FIFO, socket or device (whoever
// opens it next blocks or reads a device), a hard link to a file outside
// the tree (see hardlinks.go), or the tool's own configuration (which can
// make its next run execute commands).
func (rs *runState) neverKept(c change) string {
	if c.Op != opDelete {
		switch {
		case c.After.Link && leadsOutside(rs.root, c.Path):
			return fmt.Sprintf("The tool made %s a link out of the work tree (to %s)", c.Path, c.After.Content)
		case c.After.Special != 0:
			return fmt.Sprintf("The tool made %s %s, which would block or mislead whatever opens it next", c.Path, c.After.kind())
		case c.Linked:
			return fmt.Sprintf("The tool made %s a hard link (%d names) to a file outside the work tree, so a write to it would land outside", c.Path, c.After.Nlink)
		}
	}
	if matchAny(rs.profile.ConfigPaths, c.Path) {
		return fmt.Sprintf("The tool changed its own configuration %s, which can make its next run execute commands", c.Path)
	}
	return ""
}

// revertChange puts back one out-of-scope change and records an ERROR
// event either way. It reports whether the change was reverted.
func (rs *runState) revertChange(before *snapshot, c change, patchID string) bool {
	ctx := map[string]any{"file_path": c.Path, "operation": c.Op}
	if patchID != "" {
		ctx["patch_id"] = patchID
	}
	if err := revert(rs.root, before, c); err != nil {
		rs.event(contract.LevelError, fmt.Sprintf("Out-of-scope %s of %s NOT reverted: %v", c.Op, c.Path, err), ctx)
		return false
	}
	rs.event(contract.LevelError, fmt.Sprintf("Reverted out-of-scope %s of %s", c.Op, c.Path), ctx)
	return true
}

func (rs *runState) setStatus() {
	switch {
	case rs.status != "":
	case len(rs.violated) > 0:
		rs.status = contract.RunScopeViolated
	case rs.result.ExitCode == 0:
		rs.status = contract.RunSucceeded
	default:
		rs.status = contract.RunFailed
	}
}

// reject ends a run that was refused before the tool started.
func (rs *runState) reject(msg string) {
	end := rs.a.now()
	rs.result.ExitCode = contract.ExitRejected
	rs.result.Stderr = "Request rejected: " + msg
	rs.result.CompletedAt = contract.Timestamp(end)
	rs.result.DurationSeconds = end.Sub(rs.start).Seconds()
	rs.status = contract.RunRejected
	rs.event(contract.LevelError, rs.result.Stderr, nil)
}

// event appends one audit event with the run's ids in its context.
func (rs *runState) event(level, msg string, extra map[string]any) {
	c := map[string]any{"request_id": rs.requestID, "tool_id": rs.req.ToolID, "run_id": rs.runID}
	for k, v := range extra {
		c[k] = v
	}
	rs.events = append(rs.events, contract.LogEventV1{
		EventID: "evt-" + rs.a.newID(), RunID: rs.runID, TS: contract.Timestamp(rs.a.now()),
		Level: level, Message: msg, Context: c,
	})
}

// panicked turns a recovered panic into a failed result, puts back what it
// can of the run record, and stores it. It must not panic itself.
func (rs *runState) panicked(ctx context.Context, r any) (out Outcome) {
	defer func() {
		if r2 := recover(); r2 != nil {
			out = Outcome{RunID: rs.runID, Result: contract.ToolRunResultV1{
				ToolID: rs.req.ToolID, ExitCode: contract.ExitExecError,
				Stderr: fmt.Sprintf("internal error: panic: %v (and %v while recording it)", r, r2),
			}}
		}
	}()
	if rs.start.IsZero() {
		rs.begin()
	}
	end := rs.a.now()
	rs.result.ExitCode = contract.ExitExecError
	rs.result.Stderr = fmt.Sprintf("internal error: panic: %v", r)
	rs.result.CompletedAt = contract.Timestamp(end)
	rs.result.DurationSeconds = end.Sub(rs.start).Seconds()
	rs.status = contract.RunFailed
	rs.event(contract.LevelError, rs.result.Stderr, nil)
	rs.revertAfterPanic()
	if !rs.persisted {
		rs.complete(ctx)
	}
	return rs.outcome()
}

// revertAfterPanic puts back the out-of-scope changes of a run that
// panicked after its pre-run snapshot and before its scope check finished,
// so that a failure never leaves the work tree with changes outside the
// file scope. It records what it did as ERROR events, like checkScope, and
// swallows a second panic (the caller's recover reports the first).
func (rs *runState) revertAfterPanic() {
	defer func() {
		if r := recover(); r != nil {
			rs.event(contract.LevelError, fmt.Sprintf("Out-of-scope changes NOT checked after the panic: %v", r), nil)
		}
		rs.markUnsafe()
	}()
	if rs.guard != nil && !rs.gitDone {
		rs.checkGit()
	}
	if rs.before == nil || rs.scopeDone {
		return
	}
	rs.scopeDone = true
	after, err := rs.sn.take()
	if err != nil {
		rs.event(contract.LevelError, "Cannot snapshot the work tree after the panic: "+err.Error(), nil)
		return
	}
	scope := newFileScope(rs.scope, rs.before)
	done := map[string]bool{}
	for _, p := range rs.patches {
		done[p.FilePath] = true
	}
	for _, c := range treeChanges(rs.before, after) {
		in := scope.contains(c.Path) && (rs.opts.Pattern == nil || rs.opts.Pattern.Guardrails.PathAllowed(c.Path))
		why := rs.neverKept(c)
		if (in && why == "") || done[c.Path] {
			continue
		}
		if why != "" {
			rs.unsafe = append(rs.unsafe, c.Path)
			rs.event(contract.LevelError, why, map[string]any{"file_path": c.Path, "change": c.describe()})
		}
		rs.violated = append(rs.violated, c.Path)
		rs.revertChange(rs.before, c, "")
	}
}

// record assembles the RunRecordV1.
func (rs *runState) record() contract.RunRecordV1 {
	patternID := ""
	if rs.opts.Pattern != nil {
		patternID = rs.opts.Pattern.ID
	} else if v, ok := rs.req.Context["pattern_id"].(string); ok {
		patternID = v
	}
	return contract.RunRecordV1{
		RunID: rs.runID, RequestID: rs.requestID, ToolID: rs.req.ToolID, PatternID: patternID,
		Status: rs.status, Request: normalized(rs.req), Result: rs.result,
		Events: nonNil(rs.events), Patches: nonNil(rs.patches), FileScope: nonNil(rs.scope),
		StartedAt: rs.result.StartedAt, CompletedAt: rs.result.CompletedAt, ScopeViolations: rs.violated,
	}
}

// normalized returns req with empty maps instead of nil ones, as the
// contract's schema wants objects.
func normalized(req contract.ToolRunRequestV1) contract.ToolRunRequestV1 {
	if req.Env == nil {
		req.Env = map[string]string{}
	}
	if req.Context == nil {
		req.Context = map[string]any{}
	}
	return req
}

func (rs *runState) outcome() Outcome {
	rs.maskAll()
	rs.result.Success = rs.result.ExitCode == 0
	return Outcome{RunID: rs.runID, Result: rs.result, Record: rs.record()}
}

// finish writes the completion event and stores everything.
func (rs *runState) finish(ctx context.Context) {
	rs.a.stage("finish")
	rs.complete(ctx)
}

func (rs *runState) complete(ctx context.Context) {
	level := contract.LevelInfo
	if rs.status != contract.RunSucceeded {
		level = contract.LevelError
	}
	name := rs.req.ToolID
	if name == "" {
		name = "tool"
	}
	rs.event(level, fmt.Sprintf("%s finished: exit_code %d, status %s, %.3fs", name, rs.result.ExitCode, rs.status, rs.result.DurationSeconds),
		map[string]any{"exit_code": rs.result.ExitCode, "status": rs.status, "timed_out": rs.result.TimedOut, "process_tree": rs.reaper})
	rs.persist(context.WithoutCancel(ctx))
}

// createStoredRun inserts the run as running before the tool starts, so a
// crash of salve mid-run leaves a trace.
func (rs *runState) createStoredRun(ctx context.Context) {
	if rs.a.Store == nil {
		return
	}
	_, err := rs.a.Store.CreateRun(context.WithoutCancel(ctx), rs.storeRun(store.StatusRunning))
	if err != nil {
		rs.a.logger().Error("toolrun: store run", "run_id", rs.runID, "err", err)
		return
	}
	rs.stored = true
}

func (rs *runState) storeRun(status string) store.Run {
	return store.Run{
		RunID: rs.runID, Kind: store.KindTool, Status: status, ParentID: rs.opts.ParentRunID,
		Title: clipLine(rs.cmdLine(), 200), StartedAt: rs.result.StartedAt,
	}
}

// cmdLine is the command for people to read, with secret arguments
// ("--openai-api-key K") redacted as the store redacts them.
func (rs *runState) cmdLine() string {
	return strings.Join(store.RedactRequest(rs.req).Cmd, " ")
}

// persist stores the run and everything under it in one transaction.
// Failures are logged, never raised: the result stands on its own.
func (rs *runState) persist(ctx context.Context) {
	rs.persisted = true
	rs.maskAll()
	st := rs.a.Store
	if st == nil {
		return
	}
	rec := rs.record()
	err := st.InTx(ctx, func(tx *store.Store) error {
		if !rs.stored {
			if _, err := tx.CreateRun(ctx, rs.storeRun(store.StatusRunning)); err != nil {
				return err
			}
		}
		for _, ev := range rec.Events {
			if _, err := tx.AddEvent(ctx, ev); err != nil {
				return err
			}
		}
		if err := tx.AddToolRun(ctx, rs.runID, rs.requestID, rec.Request, rs.result); err != nil {
			return err
		}
		for _, p := range rec.Patches {
			if _, err := tx.AddPatch(ctx, p); err != nil {
				return err
			}
		}
		if err := tx.PutRunRecord(ctx, rec); err != nil {
			return err
		}
		return tx.FinishRun(ctx, rs.runID, rs.status, rs.summary())
	})
	if err != nil {
		rs.a.logger().Error("toolrun: store run record", "run_id", rs.runID, "err", err)
	}
}

// Summary is the summary a tool run leaves on its store.Run.
type Summary struct {
	ToolID          string   `json:"tool_id"`
	ExitCode        int      `json:"exit_code"`
	Success         bool     `json:"success"`
	TimedOut        bool     `json:"timed_out"`
	DurationSeconds float64  `json:"duration_seconds"`
	FilesChanged    []string `json:"files_changed"`
	ScopeViolations []string `json:"scope_violations,omitempty"`
	PatternID       string   `json:"pattern_id,omitempty"`
}

func (rs *runState) summary() Summary {
	rec := rs.record()
	return Summary{
		ToolID: rs.req.ToolID, ExitCode: rs.result.ExitCode, Success: rs.result.ExitCode == 0,
		TimedOut: rs.result.TimedOut, DurationSeconds: rs.result.DurationSeconds,
		FilesChanged: FilesChanged(rec.Patches), ScopeViolations: rs.violated, PatternID: rec.PatternID,
	}
}

// FilesChanged lists the paths of the patches that were kept: in scope
// and not reverted.
func FilesChanged(patches []contract.PatchRecordV1) []string {
	out := []string{}
	for _, p := range patches {
		if p.InScope && !p.Reverted {
			out = append(out, p.FilePath)
		}
	}
	return out
}

func clip(s string) string {
	if len(s) <= maxEventText {
		return s
	}
	return s[:maxEventText/2] + "\n...\n" + s[len(s)-maxEventText/2:]
}

func clipLine(s string, n int) string {
	s = string(bytes.ReplaceAll([]byte(s), []byte("\n"), []byte(" ")))
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
