// Package results holds what a heal run produced and how it is shown: the
// results.json document, every bug's status and attempts, the fix lines of
// the output formatter, and the tallies. It is a leaf: the run viewer, the
// run store's readers and the services read heal results through it
// without linking the pipeline, its executor, sandbox or git agent.
package results

import (
	"slices"
	"strings"

	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/salve-dev/salve/internal/lazyre"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/logparse"
)

// Bug statuses in the results (docs/contracts/heal-pipeline.md §Output formatter).
const (
	StatusFixed    = "fixed"
	StatusRejected = "rejected"
	StatusFailed   = "failed"
	StatusSkipped  = "skipped"
	// StatusFlaky: a failing test that passed on a re-run.
	StatusFlaky = "flaky"
)

// Run outcomes.
const (
	OutcomeGreen = "green"
	OutcomeRed   = "red"
	// OutcomeNoSignal: the fixes pass locally, but the remote CI gave no
	// verdict before the timeout.
	OutcomeNoSignal = "no_signal"
	// OutcomeEnvironment: the build failed because of its environment (a
	// missing tool, the network, a dependency, a full disk, memory, time):
	// nothing was sent to a fixer for it and nothing was committed for it.
	OutcomeEnvironment = "environment"
	// OutcomeFlaky: the failing tests passed when they were run again
	// before any fixer; no fixer ran and nothing was committed
	// (Results.Flaky names the tests).
	OutcomeFlaky = "flaky"
	// OutcomeInterrupted: the run was cancelled (SIGINT, SIGTERM).
	OutcomeInterrupted = "interrupted"
	// OutcomeError: the run stopped on an error (Results.Reason).
	OutcomeError = "error"
)

// Stage names used in timings and progress.
const (
	StageSetup   = "setup"
	StageBuild   = "build"
	StageParse   = "parse"
	StageFix     = "fix"
	StageGate    = "gate"
	StageVerify  = "verify"
	StageCommit  = "commit"
	StagePush    = "push"
	StageCI      = "ci"
	StageCleanup = "cleanup"
	// StageRerun is the re-run of the failing tests that tells a flaky
	// test from a bug.
	StageRerun = "rerun"
	// StageProof is the re-run of the failing tests, after a verify build
	// passed, whose structured output proves they now pass.
	StageProof = "proof"
	// StageTrial is a run of the failing tests an investigating fixer
	// (the agent tier) asked for, its edits in place.
	StageTrial = "trial"
)

// Results is the document written to results.json and stored in the run
// store: everything a heal run did and why.
type Results struct {
	RunID string `json:"run_id"`
	// Repo is the absolute path of the user's repository.
	Repo string `json:"repo"`
	// Branch is the heal branch holding the fixes.
	Branch     string `json:"branch"`
	BaseCommit string `json:"base_commit"`
	HeadCommit string `json:"head_commit"`
	// Outcome is "green", "red", "environment" (the build failed because
	// of its environment: see Environment) or "error" (the run itself
	// failed: see Reason).
	Outcome string `json:"outcome"`
	// Reason says why the run stopped.
	Reason string `json:"reason"`
	// AllowTestEdits says who let fixes edit test files and test
	// configuration ("--allow-test-edits" or ".salve.yml"); empty when
	// tests were protected, the default. The other integrity rules apply
	// either way.
	AllowTestEdits string `json:"allow_test_edits,omitempty"`
	// RepoConfig is the repository's configuration (.salve.yml) the run
	// applied, read from its base; nil when there was none or it was not
	// read.
	RepoConfig *RepoConfig `json:"repo_config,omitempty"`
	// Warnings lists what the user should know (uncommitted changes that
	// the heal did not see).
	Warnings []string `json:"warnings,omitempty"`
	Command  string   `json:"command"`
	Fixers   []string `json:"fixers"`
	// Unconfigured names the tiers of Fixers that were not set up (the
	// llm tier without a model): listed, never run.
	Unconfigured []string `json:"unconfigured,omitempty"`
	Commits      []Commit `json:"commits"`
	Iterations   int      `json:"iterations"`
	// MaxIterations is the limit the run had.
	MaxIterations int `json:"max_iterations"`
	// Bugs lists every bug handled, per iteration, with its status.
	Bugs []BugResult `json:"bugs"`
	// Flaky names the tests that failed once and passed on a re-run before
	// any fixer ran (outcome "flaky").
	Flaky []string `json:"flaky,omitempty"`
	// Proofs lists, for every verify run that passed, what proved the
	// pass: for failing tests, the runner's own structured output (which
	// tests ran and passed, its closing summary); for compile and lint
	// errors, the build passing with the reported errors gone.
	Proofs []Proof `json:"proofs,omitempty"`
	// Builds lists every build the run made, with its log, so that a run
	// can be explained afterwards even when its log named no error.
	Builds []Build `json:"builds,omitempty"`
	// Remaining lists the bugs of the last build, when it is still red.
	Remaining []contract.BugReport `json:"remaining"`
	// ByType counts, per error_type, the bugs found, fixed, rejected and
	// left, so a user can see where salve is strong.
	ByType map[string]TypeRate `json:"by_type"`
	// Environment is the parser's verdict when the build failed because of
	// its environment; such a failure is never sent to a fixer.
	Environment *logparse.EnvironmentFailure `json:"environment,omitempty"`
	Pushed      bool                         `json:"pushed"`
	Remote      string                       `json:"remote,omitempty"`
	CI          *Verdict                     `json:"ci,omitempty"`
	// Timings holds the seconds spent per stage over the whole run.
	Timings map[string]float64 `json:"timings"`
	// Stages lists every timed step in order, for the run store.
	Stages []StageTiming `json:"stages"`
	// IterationTimings holds the seconds per stage of each iteration.
	IterationTimings []map[string]float64 `json:"iteration_timings"`
	LLM              LLMUsage             `json:"llm"`
	StartedAt        string               `json:"started_at"`
	CompletedAt      string               `json:"completed_at"`
}

// Proof kinds.
const (
	// ProofTests: the failing tests were re-run with the runner's
	// structured output and it was read.
	ProofTests = "tests"
	// ProofBuild: no test was failing; the build passes and the errors
	// it reported are gone.
	ProofBuild = "build"
)

// Proof is what one verify run proved.
type Proof struct {
	Iteration int `json:"iteration"`
	// Kind is ProofTests or ProofBuild.
	Kind string `json:"kind"`
	// Command is the command whose output was read (the re-run of the
	// failing tests with the runner's structured output switched on).
	Command string `json:"command,omitempty"`
	// Runner and Format name the test runner and the output that was
	// read ("go", "go-test-json"; "pytest", "junit-xml"…).
	Runner string `json:"runner,omitempty"`
	Format string `json:"format,omitempty"`
	// Tests are the failing tests the fixes had to make pass.
	Tests []string `json:"tests,omitempty"`
	// Passed, Failed and Skipped are the tests the runner's output shows
	// in each state.
	Passed  []string `json:"passed,omitempty"`
	Failed  []string `json:"failed,omitempty"`
	Skipped []string `json:"skipped,omitempty"`
	// Completed says the runner reached its normal end.
	Completed bool `json:"completed"`
	// Summary is the runner's own closing line.
	Summary string `json:"summary,omitempty"`
	// Proven says the pass is proven; Why says what is missing when it
	// is not.
	Proven bool   `json:"proven"`
	Why    string `json:"why,omitempty"`
	// Unproven accepted: the user opted in to commit a pass the runner
	// could not prove (--accept-unproven).
	AcceptedUnproven bool `json:"accepted_unproven,omitempty"`
}

// TypeRate is the tally of one error_type over a run. A bug is counted
// once however many iterations saw it (same file, type and message with
// its numbers blanked).
type TypeRate struct {
	// Found is how many distinct bugs of the type the builds reported.
	Found int `json:"found"`
	// Fixed is how many were fixed by a committed fix.
	Fixed int `json:"fixed"`
	// Rejected is how many ended with every fix refused by the gate.
	Rejected int `json:"rejected"`
	// Flaky is how many were failing tests that passed on a re-run.
	Flaky int `json:"flaky,omitempty"`
	// Left is how many were not fixed at the end and not flaky (Found -
	// Fixed - Flaky).
	Left int `json:"left"`
}

// TallyByType counts bugs per error_type: every handled bug by its last
// status, and every remaining report never handled as found and left.
func TallyByType(bugs []BugResult, remaining []contract.BugReport) map[string]TypeRate {
	last := map[string]string{}
	typ := map[string]string{}
	var order []string
	see := func(b contract.BugReport, status string) {
		k := Key(b)
		if _, ok := typ[k]; !ok {
			order = append(order, k)
			typ[k] = string(b.ErrorType)
		}
		last[k] = status
	}
	for _, b := range bugs {
		see(b.Bug, b.Status)
	}
	for _, b := range remaining {
		if _, ok := typ[Key(b)]; !ok {
			see(b, StatusFailed)
		}
	}
	out := map[string]TypeRate{}
	sort.Strings(order)
	for _, k := range order {
		t := out[typ[k]]
		t.Found++
		switch last[k] {
		case StatusFixed:
			t.Fixed++
		case StatusRejected:
			t.Rejected++
		case StatusFlaky:
			t.Flaky++
		}
		t.Left = t.Found - t.Fixed - t.Flaky
		out[typ[k]] = t
	}
	return out
}

// Build is one build or test run of a heal.
type Build struct {
	Stage     string `json:"stage"`
	Iteration int    `json:"iteration"`
	// Command is the command given to the Executor; empty means detected.
	Command  string  `json:"command,omitempty"`
	ExitCode int     `json:"exit_code"`
	Seconds  float64 `json:"seconds"`
	// Log is the file holding the build's whole log (the run store keeps
	// it as an artifact of the heal).
	Log      string `json:"log,omitempty"`
	LogBytes int64  `json:"log_bytes,omitempty"`
}

// StageTiming is one timed step of a run.
type StageTiming struct {
	Stage     string  `json:"stage"`
	Iteration int     `json:"iteration"`
	StartedAt string  `json:"started_at"`
	Seconds   float64 `json:"seconds"`
}

// Commit is one commit made on the heal branch.
type Commit struct {
	Hash      string   `json:"hash"`
	Message   string   `json:"message"`
	Files     []string `json:"files"`
	Iteration int      `json:"iteration"`
}

// BugResult is one bug report and what became of it.
type BugResult struct {
	Bug       contract.BugReport `json:"bug"`
	Iteration int                `json:"iteration"`
	Status    string             `json:"status"`
	// Line is the output_formatter's line for this bug.
	Line       string  `json:"line"`
	Fixer      string  `json:"fixer,omitempty"`
	FixReason  string  `json:"fix_reason,omitempty"`
	Confidence float64 `json:"confidence,omitempty"`
	// Reason explains a rejection, failure or skip.
	Reason string `json:"reason,omitempty"`
	Commit string `json:"commit,omitempty"`
	Diff   string `json:"diff,omitempty"`
	// Attempts lists every tier's attempt on this bug's file group.
	Attempts []Attempt `json:"attempts,omitempty"`
}

// Attempt is one fixer tier's try at a file group.
type Attempt struct {
	Fixer      string  `json:"fixer"`
	Outcome    string  `json:"outcome"`
	Reason     string  `json:"reason,omitempty"`
	Confidence float64 `json:"confidence,omitempty"`
	// Rules names each gate rule a rejected fix broke ("test-file",
	// "assertion-removed", "outside-window"…).
	Rules []string `json:"rules,omitempty"`
	// Agent is what an investigating tier's session did: turns, tool
	// calls, tokens, cost, the budget that ran out, and the transcript;
	// nil for the other tiers.
	Agent *AgentSession `json:"agent,omitempty"`
}

// LLMUsage sums the LLM accounting of the run.
type LLMUsage struct {
	Requests     int                        `json:"requests"`
	InputTokens  int                        `json:"input_tokens"`
	OutputTokens int                        `json:"output_tokens"`
	CostUSD      float64                    `json:"cost_usd"`
	Accounting   []contract.AccountingEntry `json:"accounting"`
}

// Add folds accounting entries into u.
func (u *LLMUsage) Add(entries []contract.AccountingEntry) {
	for _, e := range entries {
		u.Accounting = append(u.Accounting, e)
		if e.Type != contract.AccountingLLM {
			continue
		}
		u.Requests++
		if e.Tokens != nil {
			u.InputTokens += e.Tokens.InputTokens
			u.OutputTokens += e.Tokens.OutputTokens
		}
		if e.CostUSD != nil {
			u.CostUSD += *e.CostUSD
		}
	}
}

// FixLines returns the formatted lines of the fixed bugs, in order.
func (r *Results) FixLines() []string {
	var out []string
	for _, b := range r.Bugs {
		if b.Status == StatusFixed {
			out = append(out, b.Line)
		}
	}
	return out
}

// WriteFile writes r as indented JSON to path (0644), creating its folder.
func (r *Results) WriteFile(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("heal: encode results: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("heal: write results %s: %w", path, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("heal: write results %s: %w", path, err)
	}
	return nil
}

// Verdict is a CI monitor's answer for one commit: green, red, or no
// signal (NoSignal) when the checks never settled, which is never taken
// for green.
type Verdict struct {
	// Green is true when the checks passed.
	Green bool
	// NoSignal is true when the monitor gave up waiting: checks stayed
	// queued, waited for an approval, or never appeared.
	NoSignal bool
	// Source names the monitor ("local", "github").
	Source string
	// Detail is a one-line summary (the failing checks, the exit code).
	Detail string
	// Build is the build that gave the verdict, for the local monitor. It
	// is the run's last build, listed in Builds with its log file, and is
	// not written again (with its whole log) into results.json or the run
	// store.
	Build *contract.ExecutorOutput `json:"-"`
}

// Key identifies a bug across builds, where line numbers may shift: the
// file, the type and the message's first line with its numbers blanked.
func Key(b contract.BugReport) string {
	return b.FilePath + "|" + string(b.ErrorType) + "|" + digits.ReplaceAllString(firstLine(b.Message), "N")
}

var digits = lazyre.New(`[0-9]+`)

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// RepoConfig records the repository configuration a heal applied
// (docs/heal.md, "Repository configuration").
type RepoConfig struct {
	// File is the file's path in the repository (".salve.yml").
	File string `json:"file"`
	// Rev is the commit it was read from: the base, never the change
	// under heal.
	Rev string `json:"rev"`
	// Applied lists each key that took effect, as "key: value".
	Applied []string `json:"applied,omitempty"`
	// Overridden lists the keys the caller kept: a flag that overrode the
	// file, or a floor the file could not loosen.
	Overridden []string `json:"overridden,omitempty"`
	// Unread says why no file was read (Rev is then ""): no commit
	// outside the change under heal was found to read it from, so the
	// heal ran under the defaults and the caller's settings.
	Unread string `json:"unread,omitempty"`
}

// TiersRun returns the tiers of Fixers that were set up, in order: the
// llm tier listed without a model is left out.
func (r *Results) TiersRun() []string {
	var out []string
	for _, f := range r.Fixers {
		if !slices.Contains(r.Unconfigured, f) {
			out = append(out, f)
		}
	}
	return out
}
