package heal

import (
	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/results"
)

// The results of a heal live in package results, a leaf that the run
// viewer and the services read without linking the pipeline. These names
// are the pipeline's view of them.
type (
	// Results is results.Results: the document of results.json.
	Results = results.Results
	// TypeRate is results.TypeRate.
	TypeRate = results.TypeRate
	// Build is results.Build.
	Build = results.Build
	// StageTiming is results.StageTiming.
	StageTiming = results.StageTiming
	// Commit is results.Commit.
	Commit = results.Commit
	// BugResult is results.BugResult.
	BugResult = results.BugResult
	// Attempt is results.Attempt.
	Attempt = results.Attempt
	// LLMUsage is results.LLMUsage.
	LLMUsage = results.LLMUsage
	// Verdict is results.Verdict: a CI monitor's answer.
	Verdict = results.Verdict
)

// Bug statuses, run outcomes, stages and attempt outcomes: see package
// results.
const (
	StatusFixed    = results.StatusFixed
	StatusRejected = results.StatusRejected
	StatusFailed   = results.StatusFailed
	StatusSkipped  = results.StatusSkipped
	StatusFlaky    = results.StatusFlaky

	OutcomeGreen       = results.OutcomeGreen
	OutcomeRed         = results.OutcomeRed
	OutcomeNoSignal    = results.OutcomeNoSignal
	OutcomeEnvironment = results.OutcomeEnvironment
	OutcomeFlaky       = results.OutcomeFlaky
	OutcomeInterrupted = results.OutcomeInterrupted
	OutcomeError       = results.OutcomeError

	StageSetup   = results.StageSetup
	StageBuild   = results.StageBuild
	StageParse   = results.StageParse
	StageFix     = results.StageFix
	StageGate    = results.StageGate
	StageVerify  = results.StageVerify
	StageCommit  = results.StageCommit
	StagePush    = results.StagePush
	StageCI      = results.StageCI
	StageCleanup = results.StageCleanup
	StageRerun   = results.StageRerun

	AttemptAccepted      = results.AttemptAccepted
	AttemptReverted      = results.AttemptReverted
	AttemptRejected      = results.AttemptRejected
	AttemptNoFix         = results.AttemptNoFix
	AttemptError         = results.AttemptError
	AttemptNotConfigured = results.AttemptNotConfigured
)

// ErrNoFix is wrapped by a Fixer that has no fix for the reports it got.
var ErrNoFix = results.ErrNoFix

// ErrNotConfigured is wrapped by a Fixer tier that cannot run because it
// is not set up; its attempts are recorded as "not_configured".
var ErrNotConfigured = results.ErrNotConfigured

// FormatFixLine is the output formatter (results.FormatFixLine).
func FormatFixLine(bug contract.BugReport, fixReason string) string {
	return results.FormatFixLine(bug, fixReason)
}

// TallyByType counts bugs per error_type (results.TallyByType).
func TallyByType(bugs []BugResult, remaining []contract.BugReport) map[string]TypeRate {
	return results.TallyByType(bugs, remaining)
}

// TierSummary says in one line what each tier did (results.TierSummary).
func TierSummary(as []Attempt) string { return results.TierSummary(as) }

// PullRequestMarker starts the body of every pull or merge request salve
// opens (results.PullRequestMarker).
const PullRequestMarker = results.PullRequestMarker

// PullRequestText returns the title and body of the request that carries
// r's fixes (results.PullRequestText).
func PullRequestText(r *Results, runURL string) (title, body string) {
	return results.PullRequestText(r, runURL)
}
