package heal

import (
	"context"
	"errors"
	"fmt"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/logparse"
	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/plain"
)

// Unconfigured is a stand-in for a tier that is not set up (the llm tier
// with no provider): it never fixes anything, and every attempt records
// why and how to enable it, so a red heal tells the user what to do next.
type Unconfigured struct {
	// Tier is the tier's name ("llm").
	Tier string
	// Why says why it is not set up.
	Why string
	// Enable is the exact flag or variable that enables it.
	Enable string
}

var _ Fixer = Unconfigured{}

// Name returns the tier's name.
func (u Unconfigured) Name() string { return u.Tier }

// Fix always fails with an error wrapping ErrNotConfigured.
func (u Unconfigured) Fix(context.Context, FixInput) (contract.FixResult, error) {
	return contract.FixResult{}, fmt.Errorf("%s: %w: %s", u.Why, results.ErrNotConfigured, u.Enable)
}

// environment consults the parser's environment classification of a failing
// build. When the build failed because of its environment, it records the
// verdict and returns an error wrapping ErrEnvironment; otherwise nil.
func (r *run) environment(out contract.ExecutorOutput) error {
	env := r.o.Parser.Environment(logparse.GoTestText(out.BuildLog), out.ExitCode, out.EnvironmentMetadata.TimedOut)
	if env == nil {
		if out.ExitCode == 127 {
			return fmt.Errorf("heal: build tool not found (exit 127): %s: %w", lastLine(out.BuildLog), ErrEnvironment)
		}
		return nil
	}
	r.res.Environment = env
	r.res.Outcome = results.OutcomeEnvironment
	r.res.Reason = fmt.Sprintf("the build failed because of its environment (%s): %s", env.Kind, env.Evidence)
	r.o.Logger.Warn("environment failure: not sent to a fixer", "kind", env.Kind, "ecosystem", env.Ecosystem, "evidence", env.Evidence, "log_line", env.Line)
	return fmt.Errorf("heal: %s: %w", env, ErrEnvironment)
}

// close gives a run its outcome when the loop stopped on an error, so the
// results never have a blank outcome or reason, and tallies the bugs by
// type.
func (r *run) close(err error) {
	switch {
	case r.res.Outcome != "":
	case errors.Is(err, ErrEnvironment):
		r.res.Outcome, r.res.Reason = results.OutcomeEnvironment, plain.Message(err)
	case err != nil:
		r.res.Outcome, r.res.Reason = results.OutcomeError, plain.Message(err)
	default:
		r.res.Outcome, r.res.Reason = results.OutcomeRed, "the run stopped without a verdict"
	}
	if r.res.Reason == "" {
		r.res.Reason = r.res.Outcome
	}
	if err != nil {
		r.o.Logger.Debug("the run ended on an error", "error", err.Error())
	}
	r.res.ByType = results.TallyByType(r.res.Bugs, r.res.Remaining)
}
