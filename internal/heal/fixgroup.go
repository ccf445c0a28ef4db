package heal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/heal/rules/deadvar"
)

// fixGroup asks each fixer tier in turn for a fix of one file's reports,
// gates every answer, and writes the first accepted fix to the worktree.
// It records a BugResult per report either way and returns the applied fix
// or nil.
func (r *run) fixGroup(ctx context.Context, iter int, group []contract.BugReport) (*applied, error) {
	first := len(r.res.Bugs)
	for _, b := range group {
		r.res.Bugs = append(r.res.Bugs, results.BugResult{Bug: b, Iteration: iter})
	}
	idx := make([]int, len(group))
	for i := range group {
		idx[i] = first + i
	}
	in, abs, err := r.prepare(ctx, group)
	if err != nil {
		r.mark(idx, results.StatusSkipped, "", skipReason(err), nil)
		return nil, nil
	}
	path, content := in.Path, in.Content
	r.o.Progress.Focus(fmt.Sprintf("%s:%d", group[0].FilePath, group[0].LineNumber))
	var attempts []results.Attempt
	rejected := false
	for _, f := range r.o.Fixers {
		t, err := r.try(ctx, iter, f, in, group)
		if err != nil {
			return nil, err
		}
		a := t.a
		attempts = append(attempts, a)
		if a.Outcome == results.AttemptRejected {
			rejected = true
			r.prev[path] = attemptInfo(iter, t.res, "rejected", a.Reason, t.dec.Diff)
		}
		if a.Outcome != results.AttemptAccepted {
			continue
		}
		fix, err := t.applied(r.ws, abs, path, content, idx)
		if err != nil {
			return nil, err
		}
		for _, i := range idx {
			b := &r.res.Bugs[i]
			b.Fixer, b.FixReason, b.Confidence, b.Diff, b.Attempts = t.res.Fixer, t.res.FixReason, t.res.ConfidenceScore, t.dec.Diff, attempts
			b.Status, b.Line = results.StatusFailed, results.FormatFixLine(b.Bug, results.UnfixedReason("pending", "not verified yet"))
		}
		return fix, nil
	}
	status, why := results.StatusFailed, "no fixer had a fix"
	if len(attempts) > 0 {
		why += ": " + results.TierSummary(attempts)
	}
	if rejected {
		status, why = results.StatusRejected, lastRejection(attempts)
	}
	r.mark(idx, status, "", why, attempts)
	return nil, nil
}

// outcome is one fixer's attempt on a group, gated.
type outcome struct {
	a   results.Attempt
	res contract.FixResult
	dec GateDecision
	// files are the files of a fix that spans files (an investigator's);
	// nil for a fix of the group's one file.
	files []FileFix
}

// applied writes an accepted fix to the worktree and returns it.
func (t outcome) applied(ws, abs, path, content string, idx []int) (*applied, error) {
	if t.files == nil {
		if err := writeFileKeepMode(abs, t.res.PatchedContent); err != nil {
			return nil, err
		}
		return &applied{path: path, abs: abs, original: content, patched: t.res.PatchedContent, result: t.res, decision: t.dec, bugs: idx}, nil
	}
	var fix *applied
	for _, f := range t.files {
		fabs, err := confine(ws, f.Path)
		if err == nil {
			err = writeFileKeepMode(fabs, f.Patched)
		}
		if err != nil {
			if fix != nil {
				for _, w := range fix.files() {
					_ = writeFileKeepMode(w.abs, w.original)
				}
			}
			return nil, fmt.Errorf("heal: write the fix of %s: %w", f.Path, err)
		}
		one := applied{path: f.Path, abs: fabs, original: f.Original, patched: f.Patched, result: t.res, decision: f.Decision, bugs: idx}
		if fix == nil {
			fix = &one
			fix.key = path
			continue
		}
		fix.more = append(fix.more, one)
	}
	return fix, nil
}

// try runs one fixer on one group and gates its answer. The error is
// non-nil only when the run must stop (its context ended, or the
// worktree could not be put back after an investigator's trial).
func (r *run) try(ctx context.Context, iter int, f Fixer, in FixInput, group []contract.BugReport) (outcome, error) {
	if inv, ok := f.(Investigator); ok {
		return r.investigate(ctx, iter, inv, in, group)
	}
	a := results.Attempt{Fixer: f.Name()}
	r.o.Progress.Stage(iter, results.StageFix+":"+f.Name(), r.fixedN)
	stop := r.timed(results.StageFix)
	res, err := f.Fix(ctx, in)
	stop()
	return r.answered(ctx, f.Name(), in.Path, a, res, err, func(res contract.FixResult) (GateDecision, []FileFix) {
		dec := GateFix(in, res, r.o.MinConfidence, r.o.AllowTestEdits, r.protectedPaths())
		if rv, ok := r.tried[in.Path][hash(res.PatchedContent)]; ok && dec.Accepted {
			dec.Accepted, dec.Reasons = false, []string{fmt.Sprintf("the same fix was reverted in iteration %d (%s)", rv.iter, rv.why)}
		}
		return dec, nil
	})
}

// answered turns a fixer's answer for the file at path into its attempt:
// an error when ctx ended, no fix when err says so, else the gate's
// verdict (gate returns it, and the files of a fix that spans files).
func (r *run) answered(ctx context.Context, name, path string, a results.Attempt, res contract.FixResult, err error,
	gate func(contract.FixResult) (GateDecision, []FileFix)) (outcome, error) {
	if ctx.Err() != nil {
		return outcome{a: a, res: res}, fmt.Errorf("heal: fix %s: %w", path, ctx.Err())
	}
	if err != nil {
		a.Outcome, a.Reason = noFix(err)
		r.o.Logger.Info("fixer had no fix", "fixer", name, "path", path, "reason", a.Reason)
		return outcome{a: a, res: res}, nil
	}
	if res.Fixer == "" {
		res.Fixer = name
	}
	a.Confidence = res.ConfidenceScore
	stop := r.timed(results.StageGate)
	dec, files := gate(res)
	stop()
	if !dec.Accepted {
		a.Outcome, a.Reason, a.Rules = results.AttemptRejected, dec.Reason(), dec.Rules
		r.o.Logger.Info("fix rejected by the gate", "fixer", name, "path", path, "reason", a.Reason)
		return outcome{a: a, res: res, dec: dec}, nil
	}
	a.Outcome = results.AttemptAccepted
	return outcome{a: a, res: res, dec: dec, files: files}, nil
}

// noFix classifies a fixer's error: not configured, nothing to offer, or
// an error.
func noFix(err error) (string, string) {
	switch {
	case errors.Is(err, results.ErrNotConfigured):
		return results.AttemptNotConfigured, err.Error()
	case errors.Is(err, results.ErrNoFix):
		return results.AttemptNoFix, err.Error()
	}
	return results.AttemptError, err.Error()
}

// investigate runs an investigator on a group with a workbench on the
// worktree, then gates its edits once more, as one fix, with the
// confidence threshold: every integrity rule applies to every edit it
// proposed, and again to the final diff.
func (r *run) investigate(ctx context.Context, iter int, f Investigator, in FixInput, group []contract.BugReport) (outcome, error) {
	a := results.Attempt{Fixer: f.Name()}
	r.o.Progress.Stage(iter, results.StageFix+":"+f.Name(), r.fixedN)
	stop := r.timed(results.StageFix)
	b := r.newBench(ctx, iter, f.Name(), in, group)
	inv, err := f.Investigate(ctx, in, b)
	stop()
	a.Agent = inv.Session
	res := inv.Result
	res.Fixer = f.Name()
	if berr := b.err(); berr != nil {
		return outcome{a: a, res: res}, berr
	}
	return r.answered(ctx, f.Name(), in.Path, a, res, err, func(res contract.FixResult) (GateDecision, []FileFix) {
		d := b.judge(inv.Edits, res.ConfidenceScore, r.o.MinConfidence)
		for _, file := range d.Files {
			if rv, ok := r.tried[file.Path][hash(file.Patched)]; ok && d.Accepted {
				d.Accepted, d.Reasons = false, []string{fmt.Sprintf("%s: the same fix was reverted in iteration %d (%s)", file.Path, rv.iter, rv.why)}
			}
		}
		return d.GateDecision, d.Files
	})
}

// prepared is one group's fix input, prepared in the background.
type prepared struct {
	group []contract.BugReport
	input func() preparedInput
}

// preparedInput is what PrepareFix returned.
type preparedInput struct {
	in  FixInput
	abs string
	err error
}

// prepareAhead starts preparing group's fix input beside what the run
// does next; fixGroup takes it when it comes to that group.
func (r *run) prepareAhead(ctx context.Context, group []contract.BugReport) {
	plan := r.plan(group)
	r.ahead = &prepared{group: group, input: Beside(func() preparedInput {
		in, abs, err := PrepareFix(ctx, plan)
		return preparedInput{in, abs, err}
	})}
}

// dropAhead waits for a preparation no fix will take.
func (r *run) dropAhead() {
	if p := r.ahead; p != nil {
		r.ahead = nil
		p.input()
	}
}

// prepare returns group's fix input: the one prepared ahead when it was
// this group's, else a new one.
func (r *run) prepare(ctx context.Context, group []contract.BugReport) (FixInput, string, error) {
	if p := r.ahead; p != nil {
		r.ahead = nil
		if got := p.input(); reflect.DeepEqual(p.group, group) {
			return got.in, got.abs, got.err
		}
	}
	return PrepareFix(ctx, r.plan(group))
}

// plan is the FixPlan of group in this run.
func (r *run) plan(group []contract.BugReport) FixPlan {
	return FixPlan{Workspace: r.ws, Group: group, Base: r.res.BaseCommit, Previous: r.prev, Targets: r.o.Targets, Logger: r.o.Logger}
}

// FixPlan says which reports to prepare a fix of, and where.
type FixPlan struct {
	// Workspace is the checkout the reports are relative to.
	Workspace string
	// Group is one file's reports, the primary first.
	Group []contract.BugReport
	// Base is the commit the heal started from; empty when there is none.
	Base string
	// Previous holds, per repo-relative path, what the last rejected or
	// reverted attempt on the file gave; nil means none.
	Previous map[string]map[string]any
	// Targets finds the code under test of a failing test; nil sends
	// every fix to the reported file.
	Targets TargetFinder
	// Logger receives log records; nil discards them.
	Logger *slog.Logger
}

// PrepareFix returns what the fixer tiers are given for one file's reports
// (the request salve heal sends, and salve fix too) and the absolute path
// of the file the fix goes to: the reported file, or, for a failing check
// in a test file, the code the test exercises. The error wraps
// ErrOutsideWorkspace, or says the file cannot be read.
func PrepareFix(ctx context.Context, p FixPlan) (FixInput, string, error) {
	if p.Logger == nil {
		p.Logger = slog.New(slog.DiscardHandler)
	}
	group := p.Group
	path := group[0].FilePath
	var ut *underTest
	if p.Targets != nil && isTestFailure(group) {
		if ut = resolveUnderTest(ctx, p.Workspace, p.Targets, p.Logger, group); ut != nil {
			path = ut.path()
		}
	}
	abs, err := confine(p.Workspace, path)
	if err != nil {
		return FixInput{}, "", err
	}
	content, err := readSource(abs)
	if err != nil {
		return FixInput{}, "", err
	}
	in := FixInput{Workspace: p.Workspace, Path: path, Content: content, Base: p.Base, Request: request(group, content, p.Previous[group[0].FilePath])}
	if ut != nil {
		in.Request, in.Windows, in.OnlyWindows = ut.request(group, content, p.Previous[path]), ut.windows(), true
	}
	if isTestFailure(group) {
		in.Tests = failingTests(p.Workspace, group)
	} else if ut == nil && p.Targets != nil {
		in.Windows, in.Tests = runtimeWindows(ctx, p.Workspace, p.Targets, group)
	}
	// Removing an unused Go variable removes its declaration and its dead
	// assignments, wherever they are in its function: the window follows.
	if strings.HasSuffix(path, ".go") && !in.OnlyWindows {
		for _, sp := range deadvar.Spans(content, group) {
			in.Windows = append(in.Windows, LineRange{Start: sp.Start, End: sp.End})
		}
	}
	return in, abs, nil
}

// GateFix runs the fix gate on a fixer's answer res to in; protected are
// the globs of paths no fix may edit (.salve.yml's protected_paths).
func GateFix(in FixInput, res contract.FixResult, minConfidence float64, allowTestEdits bool, protected []string) GateDecision {
	return Gate(GateInput{Path: in.Path, Original: in.Content, Patched: res.PatchedContent, Reports: in.Reports(), Confidence: res.ConfidenceScore,
		MinConfidence: minConfidence, AllowTestEdits: allowTestEdits, ProtectedPaths: protected, Fixer: res.Fixer, Windows: in.Windows,
		OnlyWindows: in.OnlyWindows, Tests: in.Tests})
}

// request builds the FixRequest for one file's group.
func request(group []contract.BugReport, content string, prev map[string]any) contract.FixRequest {
	lines := make([]int, len(group))
	msgs := make([]string, len(group))
	for i, b := range group {
		lines[i] = b.LineNumber
		msgs[i] = b.Message
	}
	return contract.FixRequest{
		BugReport:           group[0],
		Related:             group[1:],
		FileSnippet:         Snippet(content, lines),
		ErrorMessage:        strings.Join(msgs, "\n"),
		PreviousAttemptInfo: prev,
	}
}

// mark gives bugs a final non-fixed status.
func (r *run) mark(idx []int, status, fixReason, why string, attempts []results.Attempt) {
	for _, i := range idx {
		b := &r.res.Bugs[i]
		b.Status, b.Reason, b.Attempts = status, why, attempts
		if fixReason == "" {
			fixReason = results.UnfixedReason(status, why)
		}
		b.Line = results.FormatFixLine(b.Bug, fixReason)
	}
}

func lastRejection(as []results.Attempt) string {
	for i := len(as) - 1; i >= 0; i-- {
		if as[i].Outcome == results.AttemptRejected {
			return as[i].Fixer + ": " + as[i].Reason
		}
	}
	return ""
}

func skipReason(err error) string {
	if errors.Is(err, ErrOutsideWorkspace) {
		return "the file is outside the workspace"
	}
	return "the file cannot be read: " + err.Error()
}
