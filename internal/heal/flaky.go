package heal

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/rerun"
)

// flaky re-runs what failed in the first build, only the failing tests
// where the runner can select them, before any fixer sees a report. When
// the failure does not reproduce it closes the run as flaky and returns
// true. A plan that has no test to run (a compile error is never flaky), a
// re-run that fails again, or one whose output does not show the selected
// tests running, leaves the run to the fixers.
func (r *run) flaky(ctx context.Context, first contract.ExecutorOutput, bugs []contract.BugReport) (bool, error) {
	command := r.o.Command
	if command == "" {
		command = first.EnvironmentMetadata.ResolvedCommand
	}
	pp := r.planProof(first, bugs)
	plan := r.rerunPlan(command, first, bugs)
	if plan.Command == "" {
		return false, nil
	}
	r.o.Logger.Info("re-running the failing tests before any fix", "tests", plan.Tests, "narrowed", plan.Narrowed, "proof", plan.Proof)
	if pp != nil && plan.Proof != "" {
		// The re-run reads the runner's own results: they tell a flaky
		// test, and they are what a fix's proof is compared with.
		out, ev, err := r.rerunFromBinaries(ctx, pp.plan)
		if err == nil && !rerun.Shows(pp.plan.Tests, out.ExitCode != 0, ev) {
			out, ev, err = r.runProof(ctx, 1, results.StageRerun)
		}
		if err != nil {
			return false, err
		}
		pp.before = ev
		if out.ExitCode != 0 || out.EnvironmentMetadata.TimedOut {
			r.o.Logger.Info("the failure reproduced on a re-run", "exit_code", out.ExitCode, "format", ev.Format, "failed", ev.Failed)
			return false, nil
		}
		if ok, why := rerun.Proves(plan.Tests, rerun.Evidence{}, ev); !ok {
			r.o.Logger.Info("the re-run exited 0 but the runner's output does not show the failing tests passing; not called flaky", "why", why)
			return false, nil
		}
	} else {
		out, err := r.runBuild(ctx, 1, results.StageRerun, plan.Command)
		if err != nil {
			return false, err
		}
		if out.ExitCode != 0 || out.EnvironmentMetadata.TimedOut {
			r.o.Logger.Info("the failure reproduced on a re-run", "exit_code", out.ExitCode)
			return false, nil
		}
		if plan.Narrowed && !plan.Ran(out.BuildLog) {
			r.o.Logger.Info("the re-run passed but its output does not show the failing tests running; not called flaky")
			return false, nil
		}
	}
	r.res.Flaky = append([]string{}, plan.Tests...)
	why := fmt.Sprintf("failed once and passed on a re-run (%s); not sent to a fixer", plan.Command)
	for _, b := range bugs {
		r.res.Bugs = append(r.res.Bugs, results.BugResult{Bug: b, Iteration: 1, Status: results.StatusFlaky, Reason: why,
			Line: results.FormatFixLine(b, "none: flaky, it "+why)})
	}
	r.res.Iterations = 1
	r.res.Outcome = results.OutcomeFlaky
	r.res.Reason = fmt.Sprintf("flaky: %s failed once and passed on a re-run; nothing was fixed or committed", strings.Join(plan.Tests, ", "))
	r.o.Logger.Info("flaky verdict", "tests", plan.Tests)
	return true, nil
}

// TestBinaries is an Executor that keeps the test binaries its last
// failing build of go test -json linked, so that the flaky check runs
// them again instead of linking them anew (executor.Executor does).
type TestBinaries interface {
	GoTestBinary(workspace, importPath string) (string, bool)
}

// rerunFromBinaries runs the flaky check's proof run from the test
// binaries the failing build left, where the Executor kept them and the
// plan can run them (rerun.Plan.BinaryProof); the tree is the failing
// build's, so they are what go test would link again. Without them it
// runs nothing and returns an Evidence that ran no test.
func (r *run) rerunFromBinaries(ctx context.Context, p rerun.Plan) (contract.ExecutorOutput, rerun.Evidence, error) {
	k, ok := r.o.Executor.(TestBinaries)
	if !ok || p.Runner != "go" {
		return contract.ExecutorOutput{}, rerun.Evidence{}, nil
	}
	bin, ok := p.BinaryProof(rerun.GoModule(os.DirFS(r.ws)), func(ip string) (string, bool) { return k.GoTestBinary(r.ws, ip) })
	if !ok {
		return contract.ExecutorOutput{}, rerun.Evidence{}, nil
	}
	out, err := r.runBuild(ctx, 1, results.StageRerun, bin.Command)
	ev := rerun.ReadGoBinary([]byte(out.BuildLog), bin.Binaries)
	if err == nil && !rerun.Shows(p.Tests, out.ExitCode != 0, ev) {
		r.o.Logger.Info("the failing build's test binaries did not run the failing tests to the end; re-running them with go test", "format", ev.Format)
	}
	return out, ev, err
}
