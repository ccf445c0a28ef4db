// Package llmfix is the Fix Agent's llm tier: it sends the seed's Fix
// Agent inputs (bug_report, file_snippet, error_message,
// previous_attempt_info, plus the whole file) to a model through the
// ai-agent engine (package agent), as a one-file session whose final report
// has the json format and the FixResult schema. The engine owns what every
// ai-agent session gets: retries and round-robin fallback over the
// configured targets (auth and quota fatal, rate limits waited, other
// errors cycled), the final report's schema validation with a corrective
// turn, the context guard and the accounting. The guard estimates with
// tokens.Approx, and a request over a target's window is never sent (see
// [Fixer.Fix]). The tier checks the report once more (schema and a
// confidence within 0..1) and keeps the accounting.
package llmfix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/heal"
)

// Name is the tier's name in results and --fixers.
const Name = "llm"

// DefaultMaxRetries is the attempts per turn across the targets.
const DefaultMaxRetries = agent.DefaultMaxRetries

// DefaultMaxTurns bounds a fix session: the answer, and room for the
// engine to ask again after an invalid final report.
const DefaultMaxTurns = 3

// Target is one provider/model pair of the fallback list, as
// [Targets] resolves it: its client, its request parameters with the
// model's overrides applied, its toolChoice, context window, buffer and
// tokenizer (the tokenizer is for the record: heal always estimates with
// tokens.Approx).
type Target = agent.Target

// Fixer is the llm tier. Targets is required.
type Fixer struct {
	Targets []Target
	// MaxRetries is the attempts per turn across Targets; zero means
	// DefaultMaxRetries.
	MaxRetries int
	// MaxTurns bounds one fix session; zero means DefaultMaxTurns.
	MaxTurns int
	// Timeout bounds each attempt; zero means the engine default.
	Timeout time.Duration
	// Sleep waits before a retry; nil means a timer honouring ctx.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives the engine's logs; nil discards them.
	Logger *slog.Logger

	heal.Spending
}

var (
	_ heal.Fixer      = (*Fixer)(nil)
	_ heal.Accountant = (*Fixer)(nil)
)

// Name returns "llm".
func (f *Fixer) Name() string { return Name }

// ErrSession is wrapped when the fix session ended without a valid report
// (a fatal provider error, attempts exhausted, an invalid report).
var ErrSession = errors.New("llm fix session failed")

// Fix runs one engine session for in and returns the validated result. The
// session has the context guard, estimating with tokens.Approx (which errs
// high: salve does not link the exact counters); an attempt whose request
// exceeds its target's context window is not sent, and when no request was
// sent at all the error wraps [ErrContextWindow].
func (f *Fixer) Fix(ctx context.Context, in heal.FixInput) (contract.FixResult, error) {
	if len(f.Targets) == 0 {
		return contract.FixResult{}, fmt.Errorf("llm: no model configured: %w", results.ErrNoFix)
	}
	schema, err := contract.Schema("FixResult")
	if err != nil {
		return contract.FixResult{}, fmt.Errorf("llm: %w", err)
	}
	g, targets, err := guard(slices.Clone(f.Targets), f.Logger)
	if err != nil {
		return contract.FixResult{}, err
	}
	retries := f.MaxRetries
	if retries <= 0 {
		retries = DefaultMaxRetries
	}
	turns := f.MaxTurns
	if turns <= 0 {
		turns = DefaultMaxTurns
	}
	res := agent.Run(ctx, agent.Options{
		SystemPrompt: SystemPrompt, UserPrompt: UserPrompt(in), Targets: targets,
		MaxTurns: turns, MaxRetries: retries, LLMTimeout: f.Timeout,
		Format: agent.FormatJSON, Schema: schema, Transport: agent.TransportNative,
		Sleep: f.Sleep, Now: f.Now, Logger: f.Logger, Guard: g,
	})
	f.Spend(res.Accounting)
	if ctx.Err() != nil {
		return contract.FixResult{}, fmt.Errorf("llm: %w", ctx.Err())
	}
	if o := g.refusedAll(); o != nil && !res.Success {
		return contract.FixResult{}, fmt.Errorf("llm: %w: %s", ErrContextWindow, o.describe())
	}
	if !res.Success || res.FinalReport == nil {
		return contract.FixResult{}, fmt.Errorf("llm: %w: %s", ErrSession, res.Error)
	}
	fix, err := ParseResult(string(res.FinalReport.ContentJSON))
	if err != nil {
		return contract.FixResult{}, fmt.Errorf("llm: %w: %w", ErrSession, err)
	}
	fix.Fixer = Name
	return fix, nil
}

// SystemPrompt states the Fix Agent's boundary rules (docs/contracts/heal-pipeline.md §Boundary rules).
const SystemPrompt = `You are the Fix Agent of salve's self-healing build pipeline.
Fix exactly the reported build errors with the smallest possible edit.
Rules:
- Change only the reported lines and at most 3 lines around each, or the lines of the code under test that the request names; an import line may be added or removed where the imports are.
- Never weaken a check: do not edit tests, test configuration or CI configuration; do not remove or loosen an assertion, change an expected value, skip or delete a test, or add a lint or type-checker suppression. A failing test means the code under test is wrong: fix that code.
- Keep every comment exactly as it is.
- Do not refactor, rename, reorder or reformat unrelated code.
- Deliver the fix as your final report in the json format, an object:
  {"patched_content": "<the FULL content of the file after your fix>", "fix_reason": "<one short sentence>", "confidence_score": <0 to 1>}
- If you cannot fix it safely, report the file unchanged with confidence_score 0.`

// UserPrompt renders the Fix Agent's inputs for one file.
func UserPrompt(in heal.FixInput) string {
	var b strings.Builder
	reports, _ := json.MarshalIndent(in.Reports(), "", "  ")
	snippet := "File snippet (±3 lines around each error)"
	if len(in.Windows) > 0 {
		snippet = "The code under test (you may change these lines)"
	}
	fmt.Fprintf(&b, "File: %s\n\nBug reports (JSON):\n%s\n\nError message:\n%s\n\n%s:\n%s\n",
		in.Path, reports, in.Request.ErrorMessage, snippet, in.Request.FileSnippet)
	if in.Request.PreviousAttemptInfo != nil {
		prev, _ := json.MarshalIndent(in.Request.PreviousAttemptInfo, "", "  ")
		fmt.Fprintf(&b, "\nA previous attempt failed; do not repeat it:\n%s\n", prev)
	}
	fmt.Fprintf(&b, "\nFull content of %s:\n<<<FILE\n%s\nFILE>>>\n", in.Path, in.Content)
	return b.String()
}
