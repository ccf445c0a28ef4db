package heal

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/rerun"
	"github.com/salve-dev/salve/internal/heal/results"
)

// RuleUnprovenPass is the id a revert names when the test runner's own
// output could not prove that the failing tests pass (docs/heal.md, "What
// green proves").
const RuleUnprovenPass = "unproven-pass"

// proofPlan is how a heal proves that the failing tests it fixes pass: the
// runner-table plan that re-runs them with the runner's structured output,
// and what that output showed before any fix.
type proofPlan struct {
	plan   rerun.Plan
	before rerun.Evidence
	// summary is the closing "N passed, N failed" line of the failing
	// build, for a harness no runner of the table reads.
	summary rerun.Evidence
}

// failingChecks reports whether bugs hold a failing check (a test's
// assertion, a failing test): its pass needs the runner's proof, where a
// compile error's pass is the build passing with the error gone.
func failingChecks(bugs []contract.BugReport) bool {
	for _, b := range bugs {
		if b.ErrorType == contract.ErrLogic && b.Severity != "warning" && b.Severity != "info" {
			return true
		}
	}
	return false
}

// planProof makes the proof plan of a build's failing tests, once: the
// first build that reports one fixes the tests the heal must prove.
func (r *run) planProof(first contract.ExecutorOutput, bugs []contract.BugReport) *proofPlan {
	if r.proof != nil || !failingChecks(bugs) {
		return r.proof
	}
	command := r.o.Command
	if command == "" {
		command = first.EnvironmentMetadata.ResolvedCommand
	}
	r.proof = &proofPlan{plan: r.rerunPlan(command, first, bugs),
		summary: rerun.Read(rerun.RunnerSummary, []byte(first.BuildLog), nil, time.Time{})}
	return r.proof
}

// rerunPlan is the plan that runs the failing tests of bugs again, from
// command, narrowed to where the first build's log shows them failing (the
// packages of a go test, the test files of node's runner, jest or vitest).
func (r *run) rerunPlan(command string, first contract.ExecutorOutput, bugs []contract.BugReport) rerun.Plan {
	return rerun.For(command, first.EnvironmentMetadata.ProjectType, bugs).InPackages(first.BuildLog).InTestFiles(first.BuildLog, r.ws)
}

// runProof runs the proof command of the plan and reads what the runner's
// output shows.
func (r *run) runProof(ctx context.Context, iter int, stage string) (contract.ExecutorOutput, rerun.Evidence, error) {
	return r.runProofCommand(ctx, iter, stage, r.proof.plan.Proof)
}

// runProofCommand runs command, a form of the plan's proof run, and reads
// what the runner's output shows.
func (r *run) runProofCommand(ctx context.Context, iter int, stage, command string) (contract.ExecutorOutput, rerun.Evidence, error) {
	out, err := r.runBuild(ctx, iter, stage, command)
	if err != nil {
		return out, rerun.Evidence{}, err
	}
	return out, r.evidence(out), nil
}

// evidence reads what the runner's own output shows in the last build,
// out: its log, and the report files written since it started.
func (r *run) evidence(out contract.ExecutorOutput) rerun.Evidence {
	return rerun.Read(r.proof.plan.Runner, []byte(out.BuildLog), os.DirFS(r.ws), r.lastBuild)
}

// provenByVerify reads the verify build, the user's whole command, as the
// proof when the runner table lets its output stand as the runner's own
// (rerun.Plan.Direct) and it proves the pass: the proof run would then
// only repeat what the verify showed. Otherwise ok is false and the
// proof run decides.
func (r *run) provenByVerify(verify contract.ExecutorOutput) (ev rerun.Evidence, ok bool) {
	if !r.proof.plan.Direct {
		return rerun.Evidence{}, false
	}
	ev = r.evidence(verify)
	ok, _ = rerun.Proves(r.proof.plan.Tests, r.proof.before, ev)
	return ev, ok
}

// prove checks, after a verify build that passed, that the runner's own
// output shows every failing test passing, none that ran before missing,
// and the runner reaching its end. It records what proved the pass (or
// what is missing) in the results, and returns "" when the fixes may be
// committed, else the reason to revert them.
func (r *run) prove(ctx context.Context, iter int, verify contract.ExecutorOutput) (string, error) {
	if r.proof == nil {
		r.res.Proofs = append(r.res.Proofs, results.Proof{Iteration: iter, Kind: results.ProofBuild, Command: r.command(verify), Completed: true, Proven: true,
			Summary: fmt.Sprintf("the build passed (exit %d) and the errors it reported are gone", verify.ExitCode)})
		return "", nil
	}
	p := results.Proof{Iteration: iter, Kind: results.ProofTests, Runner: r.proof.plan.Runner, Tests: r.proof.plan.Tests, Command: r.proof.plan.Proof}
	why := ""
	switch {
	case r.proof.plan.Proof == "" && r.proof.summary.Format != "":
		// A harness of the project's own: its closing summary line, in the
		// failing build and in the verify build, is the evidence.
		ev := rerun.Read(rerun.RunnerSummary, []byte(verify.BuildLog), nil, time.Time{})
		p.Runner, p.Command = rerun.RunnerSummary, r.command(verify)
		p.Format, p.Completed, p.Summary = ev.Format, ev.Completed, ev.Summary
		var ok bool
		if ok, why = rerun.Proves(nil, r.proof.summary, ev); ok {
			why = ""
		}
	case r.proof.plan.Proof == "":
		why = "the test runner's output cannot prove the failing tests pass: salve reads no structured output from `" + firstLine(r.command(verify)) + "`"
		if len(r.proof.plan.Tests) == 0 {
			why = "the failing check names no test salve can re-run and read the runner's own results of, and the build prints no \"N passed, N failed\" summary; an exit code of 0 alone proves nothing"
		}
	default:
		ev, folded := r.provenByVerify(verify)
		if folded {
			p.Command = r.command(verify)
			r.o.Logger.Info("the verify build's own runner output proves the pass; no proof run", "runner", ev.Runner, "format", ev.Format)
		} else {
			var err error
			if _, ev, err = r.runProof(ctx, iter, results.StageProof); err != nil {
				return "", err
			}
		}
		p.Format, p.Passed, p.Failed, p.Skipped, p.Completed, p.Summary = ev.Format, ev.Passed, ev.Failed, ev.Skipped, ev.Completed, ev.Summary
		var ok bool
		if ok, why = rerun.Proves(r.proof.plan.Tests, r.proof.before, ev); ok {
			why = ""
		}
	}
	p.Proven, p.Why = why == "", why
	if why != "" && r.o.AcceptUnproven {
		p.AcceptedUnproven = true
		r.warnOnce("committed a pass the test runner did not prove (--accept-unproven): " + why)
		why = ""
	}
	r.res.Proofs = append(r.res.Proofs, p)
	if why != "" {
		return RuleUnprovenPass + ": " + why + " (pass --accept-unproven to commit such a fix anyway)", nil
	}
	return "", nil
}

// command is the command a build ran.
func (r *run) command(out contract.ExecutorOutput) string {
	if r.cmd != "" {
		return r.cmd
	}
	return out.EnvironmentMetadata.ResolvedCommand
}

// newlyRed returns the failing tests of the build after the fixes that
// the build before them did not report. It returns nil when the build
// before failed on anything but test failures: a compile error hides
// the tests behind it, so a test seen failing only now may have been
// failing all along.
func newlyRed(before, after []contract.BugReport) []string {
	seen := map[string]bool{}
	for _, b := range before {
		if b.Severity == "warning" || b.Severity == "info" {
			continue
		}
		if b.ErrorType != contract.ErrLogic {
			return nil
		}
		seen[testKey(b)] = true
	}
	var out []string
	for _, a := range after {
		if a.ErrorType != contract.ErrLogic || a.Severity == "warning" || a.Severity == "info" {
			continue
		}
		k := testKey(a)
		if !seen[k] {
			seen[k] = true
			out = append(out, testLabel(a))
		}
	}
	return out
}

// testKey names a failing check across builds: its test when the report
// names one, else its file and message.
func testKey(b contract.BugReport) string {
	if b.TestName != nil && *b.TestName != "" {
		return b.FilePath + "\x00" + *b.TestName
	}
	return b.FilePath + "\x00" + bugKey(b)
}

// testLabel names a failing check for a person.
func testLabel(b contract.BugReport) string {
	if b.TestName != nil && *b.TestName != "" {
		return fmt.Sprintf("%s (%s)", *b.TestName, b.FilePath)
	}
	return fmt.Sprintf("%s:%d: %s", b.FilePath, b.LineNumber, firstLine(b.Message))
}

// joinCapped joins names, naming a few and counting the rest.
func joinCapped(names []string) string {
	if len(names) > maxNamedErrors {
		return strings.Join(names[:maxNamedErrors], ", ") + fmt.Sprintf(" and %d more", len(names)-maxNamedErrors)
	}
	return strings.Join(names, ", ")
}
