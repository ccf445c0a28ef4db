// Package heal is salve's self-healing pipeline (docs/contracts/heal-pipeline.md): it runs a
// repository's build in an isolated git worktree, turns the log into bug
// reports, asks the Fix Agent's tiers for minimal fixes, enforces the fix
// gate, commits accepted fixes through the Git Agent, and asks a CI monitor
// for the verdict, until the build is green or the iterations run out.
//
// The orchestrator talks to every layer through the small interfaces in
// this file, so the real packages (executor, logparse, gitagent, toolrun,
// llm, store) plug in through thin adapters and the orchestration logic is
// tested with fakes. The package never formats a fix line anywhere but in
// [FormatFixLine], the seed's output_formatter.
package heal

import (
	"context"

	"github.com/salve-dev/salve/contract"
)

// Executor runs a build and observes it (docs/contracts/heal-pipeline.md §Executor). The
// error is non-nil only when the build could not be started at all.
type Executor interface {
	Run(ctx context.Context, in contract.ExecutorInput) (contract.ExecutorOutput, error)
}

// Parser turns a build log into bug reports, deterministically (docs/contracts/heal-pipeline.md
// §Parser).
type Parser interface {
	Parse(buildLog, workspace string) []contract.BugReport
}

// FixInput is what one Fixer call is given: the seed's FixRequest for one
// file's group of bug reports, plus the file itself so the fixer can return
// the full patched content.
type FixInput struct {
	// Request is the seed's Fix Agent input; Related holds the other
	// reports of the same file.
	Request contract.FixRequest
	// Workspace is the absolute root of the heal worktree.
	Workspace string
	// Path is the repo-relative path of the file, forward slashes.
	Path string
	// Content is the file's current content.
	Content string
	// Base is the commit the heal started from: the one whose build broke
	// (its own diff is evidence of what the change meant).
	Base string
	// Windows are lines of Path the fix may change besides the reports'
	// lines ±3: the code a failing test exercises, when the fix of a test
	// failure goes to the code under test. Nil adds none.
	Windows []LineRange
}

// Reports returns the primary bug report followed by the related ones.
func (in FixInput) Reports() []contract.BugReport {
	return append([]contract.BugReport{in.Request.BugReport}, in.Request.Related...)
}

// Fixer is one tier of the Fix Agent: rules, llm or aider. It returns the
// full patched content of FixInput.Path; it never writes the file, never
// commits and never formats output lines (docs/contracts/heal-pipeline.md
// §Boundary rules). It returns an error wrapping [ErrNoFix] when it has nothing to
// offer for these reports.
type Fixer interface {
	Name() string
	Fix(ctx context.Context, in FixInput) (contract.FixResult, error)
}

// Accountant is implemented by fixers that spend LLM tokens; the
// orchestrator copies their entries into the results.
type Accountant interface {
	Accounting() []contract.AccountingEntry
}

// Git commits and pushes through the Git Agent (docs/contracts/git-agent.md). The pipeline
// never calls git directly for these.
type Git interface {
	// Commit stages files (repo-relative) in dir and commits them with
	// message, returning the new HEAD hash.
	Commit(ctx context.Context, dir string, files []string, message string) (string, error)
	// Push pushes branch to remote.
	Push(ctx context.Context, dir, remote, branch string) error
	// Head returns the commit hash of HEAD in dir.
	Head(ctx context.Context, dir string) (string, error)
	// RevParse returns the commit of ref in dir, or an error when there is
	// none.
	RevParse(ctx context.Context, dir, ref string) (string, error)
}

// LeasePusher is implemented by Git values that can replace a remote
// branch only when it is at an expected commit (git push
// --force-with-lease); see Options.PushLease.
type LeasePusher interface {
	PushLease(ctx context.Context, dir, remote, branch, expect string) error
}

// DiffReporter is implemented by Git values that can show the user's
// unstaged changes; the orchestrator then warns that they are not part of
// the heal, which starts from the committed HEAD.
type DiffReporter interface {
	Diff(ctx context.Context, dir string) (string, error)
}

// Worktrees creates and removes the isolated heal worktree.
type Worktrees interface {
	// Add creates a worktree at path on a new branch starting at HEAD of
	// repo, locked with reason so a crashed run can be recognised.
	Add(ctx context.Context, repo, path, branch, reason string) error
	// Remove deletes the worktree at path (forcefully, even when locked).
	Remove(ctx context.Context, repo, path string) error
	// List returns the repository's worktrees, the main one first.
	List(ctx context.Context, repo string) ([]Worktree, error)
}

// Worktree is one entry of `git worktree list`.
type Worktree struct {
	Path   string
	Branch string
	// Locked is the lock reason, empty when the worktree is not locked.
	Locked string
}

// CITarget is what a CI monitor judges: a commit of the heal branch.
type CITarget struct {
	Workspace string
	Branch    string
	Commit    string
	// Build is the orchestrator's verification build of exactly this
	// tree, when it has one; the local monitor uses it as its re-run.
	Build *contract.ExecutorOutput
	// Pushed is true when the commit was pushed to a remote.
	Pushed bool
}

// CIMonitor gives the pass/fail verdict of a commit.
type CIMonitor interface {
	Name() string
	Verdict(ctx context.Context, t CITarget) (Verdict, error)
}

// Recorder stores a finished run (the run store).
type Recorder interface {
	RecordHeal(ctx context.Context, r *Results) error
}

// LiveRecorder is a Recorder that also records a run while it goes, so a
// heal killed at any moment leaves a trace: BeginHeal creates the run
// (status running, with its owner process) at the start, after marking as
// interrupted the runs whose owner is gone, and returns their ids;
// HealStage records each stage as it starts. RecordHeal then finishes the
// same run.
type LiveRecorder interface {
	Recorder
	BeginHeal(ctx context.Context, r *Results) (interrupted []string, err error)
	HealStage(ctx context.Context, r *Results, iteration int, stage string) error
}

// Progress receives live progress; see NewProgress.
type Progress interface {
	Stage(iteration int, stage string, fixed int)
	Log(msg string, args ...any)
	Done()
}
