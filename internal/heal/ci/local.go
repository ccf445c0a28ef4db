// Package ci holds heal's CI monitors, which give the pass/fail verdict of
// a heal commit: [Local] re-runs the Executor on the commit's tree, and
// [GitHub] polls the checks of the pushed commit through the GitHub REST
// API.
package ci

import (
	"context"
	"fmt"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
)

// Local is the default CI monitor: the Executor, re-run on the heal
// worktree. The orchestrator's verification build of exactly the committed
// tree is that re-run, so Local uses it when the target carries one and
// runs the Executor itself otherwise (or always, with Rerun).
type Local struct {
	Executor heal.Executor
	// Input is the executor input template; its WorkspacePath is replaced
	// by the target's.
	Input contract.ExecutorInput
	// Rerun makes every verdict run a fresh build.
	Rerun bool
}

var _ heal.CIMonitor = (*Local)(nil)

// Name returns "local".
func (l *Local) Name() string { return "local" }

// Verdict is green when the build exits 0.
func (l *Local) Verdict(ctx context.Context, t heal.CITarget) (results.Verdict, error) {
	out := t.Build
	if out == nil || l.Rerun {
		in := l.Input
		in.WorkspacePath = t.Workspace
		o, err := l.Executor.Run(ctx, in)
		if err != nil {
			return results.Verdict{}, fmt.Errorf("ci local: build %s: %w", t.Commit, err)
		}
		out = &o
	}
	v := results.Verdict{Green: out.ExitCode == 0, Source: "local", Build: out}
	v.Detail = fmt.Sprintf("build exited %d", out.ExitCode)
	return v, nil
}
