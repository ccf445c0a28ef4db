// Package llmfix is the Fix Agent's llm tier: it sends the seed's Fix
// Agent inputs (bug_report, file_snippet, error_message,
// previous_attempt_info, plus the whole file) to a model through the
// llm.Provider layer and validates the structured answer against the
// FixResult schema. Attempts go round-robin over the configured targets
// with the runtime's rules (seed 003, §3): auth and quota errors are fatal,
// a rate limit waits for Retry-After (or backs off) once every target was
// limited, other errors move to the next target at once, and an answer
// that fails the schema is sent back for a corrected reply. Every attempt
// is an accounting entry.
package llmfix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/heal"
	"github.com/salve-dev/salve/llm"
)

// Name is the tier's name in results and --fixers.
const Name = "llm"

// DefaultMaxRetries is how many cycles over the targets a fix may take.
const DefaultMaxRetries = 3

// Target is one provider/model pair of the fallback list.
type Target struct {
	// Provider is the configured provider name (accounting "provider").
	Provider string
	// Model is the model name within the provider.
	Model  string
	Client llm.Provider
}

// Fixer is the llm tier. Targets is required.
type Fixer struct {
	Targets []Target
	// MaxRetries is the number of cycles over Targets; zero means
	// DefaultMaxRetries.
	MaxRetries int
	// MaxOutputTokens bounds each answer; zero means 16384.
	MaxOutputTokens int
	// Temperature, when set, is sent with each request.
	Temperature *float64
	// Timeout bounds each attempt; zero means 10 minutes.
	Timeout time.Duration
	// Sleep waits before a retry; nil means a timer honouring ctx.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu   sync.Mutex
	acct []contract.AccountingEntry
}

var (
	_ heal.Fixer      = (*Fixer)(nil)
	_ heal.Accountant = (*Fixer)(nil)
)

// Name returns "llm".
func (f *Fixer) Name() string { return Name }

// Accounting returns a copy of every attempt's accounting entry so far.
func (f *Fixer) Accounting() []contract.AccountingEntry {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]contract.AccountingEntry(nil), f.acct...)
}

// ErrFatal is wrapped when a provider error ends the fix at once (auth,
// quota, a failed test-llm expectation).
var ErrFatal = errors.New("fatal provider error")

// Fix asks the targets for a fix of in and returns the validated result.
func (f *Fixer) Fix(ctx context.Context, in heal.FixInput) (contract.FixResult, error) {
	if len(f.Targets) == 0 {
		return contract.FixResult{}, fmt.Errorf("llm: no model configured: %w", heal.ErrNoFix)
	}
	msgs := []llm.Message{
		{Role: contract.RoleSystem, Content: SystemPrompt},
		{Role: contract.RoleUser, Content: UserPrompt(in)},
	}
	retries := f.MaxRetries
	if retries <= 0 {
		retries = DefaultMaxRetries
	}
	cycle := newRateCycle(len(f.Targets))
	var last error
	for attempt := 0; attempt < retries*len(f.Targets); attempt++ {
		idx := attempt % len(f.Targets)
		t := f.Targets[idx]
		resp, err := f.complete(ctx, t, msgs)
		if ctx.Err() != nil {
			return contract.FixResult{}, fmt.Errorf("llm: %w", ctx.Err())
		}
		if err != nil {
			e := llm.AsError(err)
			last = e
			if e.Fatal() {
				return contract.FixResult{}, fmt.Errorf("llm: %s/%s: %w: %w", t.Provider, t.Model, ErrFatal, e)
			}
			if e.Class == llm.ClassRateLimit {
				if err := f.sleep(ctx, cycle.record(idx, e)); err != nil {
					return contract.FixResult{}, fmt.Errorf("llm: %w", err)
				}
				continue
			}
			cycle.other()
			continue
		}
		cycle.other()
		res, verr := ParseResult(resp.Content)
		if verr == nil {
			res.Fixer = Name
			return res, nil
		}
		last = verr
		msgs = append(msgs,
			llm.Message{Role: contract.RoleAssistant, Content: resp.Content},
			llm.Message{Role: contract.RoleUser, Content: "Your reply is not a valid FixResult: " + verr.Error() + ". Reply again with only the JSON object."})
	}
	return contract.FixResult{}, fmt.Errorf("llm: no valid fix after %d attempts: %w", retries*len(f.Targets), last)
}

// complete performs one attempt and records its accounting entry.
func (f *Fixer) complete(ctx context.Context, t Target, msgs []llm.Message) (llm.Response, error) {
	now := f.Now
	if now == nil {
		now = time.Now
	}
	timeout := f.Timeout
	if timeout == 0 {
		timeout = 10 * time.Minute
	}
	maxOut := f.MaxOutputTokens
	if maxOut == 0 {
		maxOut = 16384
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := now()
	resp, err := t.Client.Complete(actx, llm.Request{
		Model: t.Model, Messages: msgs, Temperature: f.Temperature, MaxOutputTokens: maxOut,
		Session: llm.SessionInfo{ProviderName: t.Provider, Transport: "native", Format: "json"},
	})
	e := contract.AccountingEntry{
		Type: contract.AccountingLLM, Status: contract.AccountingOK, Latency: now().Sub(start).Milliseconds(),
		Timestamp: start.UnixMilli(), Provider: t.Provider, Model: t.Model,
	}
	if err != nil {
		e.Status, e.Error = contract.AccountingFail, llm.AsError(err).Error()
	} else {
		u := resp.Usage
		if u.TotalTokens == 0 {
			u.TotalTokens = u.InputTokens + u.OutputTokens
		}
		e.Tokens, e.StopReason, e.CostUSD = &u, resp.StopReason, resp.CostUSD
		e.ActualProvider, e.ActualModel = resp.ActualProvider, resp.ActualModel
	}
	f.mu.Lock()
	f.acct = append(f.acct, e)
	f.mu.Unlock()
	return resp, err
}

func (f *Fixer) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	if f.Sleep != nil {
		return f.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// SystemPrompt states the Fix Agent's boundary rules (seed 001).
const SystemPrompt = `You are the Fix Agent of salve's self-healing build pipeline.
Fix exactly the reported build errors with the smallest possible edit.
Rules:
- Change only the reported lines and at most 3 lines around each; an import line may be added or removed where the imports are.
- Keep every comment exactly as it is.
- Do not refactor, rename, reorder or reformat unrelated code.
- Reply with only one JSON object, no prose and no code fence:
  {"patched_content": "<the FULL content of the file after your fix>", "fix_reason": "<one short sentence>", "confidence_score": <0 to 1>}
- If you cannot fix it safely, return the file unchanged with confidence_score 0.`

// UserPrompt renders the Fix Agent's inputs for one file.
func UserPrompt(in heal.FixInput) string {
	var b strings.Builder
	reports, _ := json.MarshalIndent(in.Reports(), "", "  ")
	fmt.Fprintf(&b, "File: %s\n\nBug reports (JSON):\n%s\n\nError message:\n%s\n\nFile snippet (±3 lines around each error):\n%s\n",
		in.Path, reports, in.Request.ErrorMessage, in.Request.FileSnippet)
	if in.Request.PreviousAttemptInfo != nil {
		prev, _ := json.MarshalIndent(in.Request.PreviousAttemptInfo, "", "  ")
		fmt.Fprintf(&b, "\nA previous attempt failed; do not repeat it:\n%s\n", prev)
	}
	fmt.Fprintf(&b, "\nFull content of %s:\n<<<FILE\n%s\nFILE>>>\n", in.Path, in.Content)
	return b.String()
}
