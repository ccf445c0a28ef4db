package heal

import (
	"context"
	"errors"
	"fmt"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/heal/logparse"
)

// ExecutorLayer adapts the executor package to Executor: bad input (no
// project detected, a bad timeout) wraps ErrBadInput, and a failed run
// record is not an error (the output is complete).
type ExecutorLayer struct {
	E *executor.Executor
}

var _ Executor = ExecutorLayer{}

// Run runs the build.
func (a ExecutorLayer) Run(ctx context.Context, in contract.ExecutorInput) (contract.ExecutorOutput, error) {
	out, err := a.E.Run(ctx, in)
	if errors.Is(err, executor.ErrRecord) {
		return out, nil
	}
	if errors.Is(err, executor.ErrBadInput) {
		return out, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return out, err
}

// LogParser adapts the logparse package to Parser, with the heal worktree
// as both the log's root and the checkout.
type LogParser struct{}

var _ Parser = LogParser{}

// Parse returns the bug reports of a build log.
func (LogParser) Parse(log, workspace string) []contract.BugReport {
	return logparse.ParseString(log, logparse.Options{Root: workspace, Workspace: workspace})
}
