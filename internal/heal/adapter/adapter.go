// Package adapter plugs salve's real layers into the heal core's ports
// (docs/contracts/heal-pipeline.md): the executor, the log parser, the git
// agent and the run store. The core (package heal) never imports them, so
// it links no sandbox, executor, git agent or database, and is tested with
// fakes.
package adapter

import (
	"context"
	"errors"
	"fmt"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/heal/logparse"
	"github.com/salve-dev/salve/internal/heal/target"
	"github.com/salve-dev/salve/internal/heal/undertest"
)

// Executor adapts the executor package to heal.Executor: bad input (no
// project detected, a bad timeout) wraps heal.ErrBadInput, and a failed
// run record is not an error (the output is complete).
type Executor struct {
	E *executor.Executor
}

var (
	_ heal.Executor     = Executor{}
	_ heal.Warmer       = Executor{}
	_ heal.TestBinaries = Executor{}
)

// Warm chooses the builds' sandbox ahead of the first build
// (executor.Executor.Warm).
func (a Executor) Warm(ctx context.Context, dir string, in contract.ExecutorInput) {
	a.E.Warm(ctx, dir, in)
}

// GoTestBinary returns a test binary the last failing go test build in
// workspace kept (executor.Executor.GoTestBinary).
func (a Executor) GoTestBinary(workspace, importPath string) (string, bool) {
	return a.E.GoTestBinary(workspace, importPath)
}

// Run runs the build.
func (a Executor) Run(ctx context.Context, in contract.ExecutorInput) (contract.ExecutorOutput, error) {
	out, err := a.E.Run(ctx, in)
	if errors.Is(err, executor.ErrRecord) {
		return out, nil
	}
	if errors.Is(err, executor.ErrBadInput) {
		return out, fmt.Errorf("%w: %w", heal.ErrBadInput, err)
	}
	return out, err
}

// Parser adapts the logparse package to heal.Parser, with the heal
// worktree as both the log's root and the checkout.
type Parser struct{}

var _ heal.Parser = Parser{}

// Parse returns the bug reports of a build log.
func (Parser) Parse(log, workspace string) []contract.BugReport {
	return logparse.ParseString(log, logparse.Options{Root: workspace, Workspace: workspace})
}

// Environment classifies a failing build with logparse.Environment.
func (Parser) Environment(buildLog string, exitCode int, timedOut bool) *logparse.EnvironmentFailure {
	return logparse.Environment(buildLog, exitCode, timedOut)
}

// Targets adapts the target package to heal.TargetFinder: Go and Python
// through their own parsers, the other languages lexically.
type Targets struct {
	// Options tune the resolver; the zero value is ready to use.
	Options target.Options
}

var _ heal.TargetFinder = Targets{}

// Regions returns the code a failing test exercises, best first.
func (t Targets) Regions(ctx context.Context, workspace string, bug contract.BugReport) ([]undertest.Region, error) {
	return target.Resolve(ctx, workspace, bug, t.Options)
}

// TestSource returns the failing test's own source, numbered.
func (t Targets) TestSource(ctx context.Context, workspace string, bug contract.BugReport) (string, error) {
	return target.TestContext(ctx, workspace, bug, t.Options)
}
