// Package heal is salve's self-healing pipeline (docs/contracts/heal-pipeline.md): it runs a
// repository's build in an isolated git worktree, turns the log into bug
// reports, asks the Fix Agent's tiers for minimal fixes, enforces the fix
// gate, commits accepted fixes through the Git Agent, and asks a CI monitor
// for the verdict, until the build is green or the iterations run out.
//
// The orchestrator talks to every layer through the small interfaces in
// this file, so the real packages (executor, logparse, gitagent, toolrun,
// llm, store) plug in through the thin adapters of package adapter, which
// the core never imports, and the orchestration logic is tested with
// fakes. The package never formats a fix line anywhere but in
// [FormatFixLine], the seed's output_formatter.
package heal

import (
	"context"
	"sync"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/integrity"
	"github.com/salve-dev/salve/internal/heal/logparse"
)

// Executor runs a build and observes it (docs/contracts/heal-pipeline.md §Executor). The
// error is non-nil only when the build could not be started at all.
type Executor interface {
	Run(ctx context.Context, in contract.ExecutorInput) (contract.ExecutorOutput, error)
}

// Warmer is an Executor that can get ready for the builds of the checkout
// at dir before the heal's worktree exists (choose and probe its sandbox):
// the run starts Warm beside its setup, and the first build waits for
// what it found. Warm reports nothing; a failure shows in the first Run.
type Warmer interface {
	Warm(ctx context.Context, dir string, in contract.ExecutorInput)
}

// Parser turns a build log into bug reports, deterministically (docs/contracts/heal-pipeline.md
// §Parser), and tells, deterministically too, a build that failed because
// of its environment; the orchestrator asks Environment before any fix.
type Parser interface {
	Parse(buildLog, workspace string) []contract.BugReport
	// Environment returns the environment failure of a failing build,
	// nil when the failure is the code's.
	Environment(buildLog string, exitCode int, timedOut bool) *logparse.EnvironmentFailure
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
	// OnlyWindows says the fix may change Windows alone, not the reports'
	// lines ±3: the fix of a failing test goes to the body of the code
	// under test, and the report there is only the test's failure restated
	// at the function's first line (docs/heal.md, "The window").
	OnlyWindows bool
	// Tests are the failing tests the fix answers, read-only, for the
	// integrity rules that judge an edit of the code under test against
	// the test (literals the test feeds in, names it reads); nil when the
	// reports hold no failing test.
	Tests []integrity.TestSource
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

// Accountant is a fixer that spends LLM tokens; Options.Accountants names
// the ones whose entries the results copy.
type Accountant interface {
	Accounting() []contract.AccountingEntry
}

// Spending keeps the accounting entries of a tier's sessions; a tier
// embeds it to be an Accountant. The zero value is empty and ready; it is
// safe for concurrent use.
type Spending struct {
	mu   sync.Mutex
	acct []contract.AccountingEntry
}

// Spend records a session's entries.
func (s *Spending) Spend(entries []contract.AccountingEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.acct = append(s.acct, entries...)
}

// Accounting returns a copy of every entry recorded so far.
func (s *Spending) Accounting() []contract.AccountingEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]contract.AccountingEntry(nil), s.acct...)
}

// Git is git in the user's repository (docs/contracts/git-agent.md): the
// pipeline never calls git directly. Inside a heal worktree it uses the
// WorktreeGit that Worktrees.Pin returns instead.
type Git interface {
	// RevParse returns the commit of ref in dir, or an error when there is
	// none.
	RevParse(ctx context.Context, dir, ref string) (string, error)
	// Diff returns the unstaged changes of the work tree at dir; the
	// orchestrator warns when there are some, since the heal starts from
	// the committed HEAD and does not see them.
	Diff(ctx context.Context, dir string) (string, error)
	// CheckBranch returns an error when name is not a branch name git
	// accepts.
	CheckBranch(name string) error
	// PruneBranches deletes the branches of repo whose name starts with
	// prefix and that hold nothing of their own (merged into HEAD), and
	// returns their names.
	PruneBranches(ctx context.Context, repo, prefix string) ([]string, error)
}

// Worktrees creates and removes the isolated heal worktrees, and gives the
// git of one worktree.
type Worktrees interface {
	// Add creates a worktree at path, detached at the commit start (empty:
	// HEAD of repo), locked with reason so a crashed run can be
	// recognised. It returns the worktree's git directory when the add
	// could find it from the repository's records (as GitDir does), else
	// "": the caller then asks GitDir.
	Add(ctx context.Context, repo, path, start, reason string) (gitDir string, err error)
	// Remove deletes the worktree at path (forcefully, even when locked).
	Remove(ctx context.Context, repo, path string) error
	// RemoveKnown is Remove of a worktree whose git directory the caller
	// found with GitDir and has checked since: it is not looked up again.
	RemoveKnown(ctx context.Context, repo, path, gitDir string) error
	// List returns the repository's worktrees, the main one first.
	List(ctx context.Context, repo string) ([]Worktree, error)
	// Prune drops the records of worktrees whose folder is gone (unlocked
	// ones: git keeps locked records).
	Prune(ctx context.Context, repo string) error
	// GitDir returns the git directory of the worktree at path, found
	// from the repository's own records, never from path/.git.
	GitDir(ctx context.Context, repo, path string) (string, error)
	// Pin returns the git of the worktree at workTree whose git directory
	// is gitDir. Every action it runs is pinned to that git directory and
	// work tree (GIT_DIR and GIT_WORK_TREE), never the worktree's .git
	// file, which a build can rewrite.
	Pin(workTree, gitDir string) WorktreeGit
}

// WorktreeGit is git inside one heal worktree, pinned to the git directory
// salve recorded when it created the worktree (see Worktrees.Pin). Each
// method acts in dir, a folder of the worktree.
type WorktreeGit interface {
	// Head returns the commit hash of HEAD.
	Head(ctx context.Context, dir string) (string, error)
	// CreateBranch creates branch at HEAD and switches to it.
	CreateBranch(ctx context.Context, dir, branch string) error
	// Commit stages files (relative to dir) and commits them with
	// message; Head then reads the new commit.
	Commit(ctx context.Context, dir string, files []string, message string) error
	// Push pushes branch to remote.
	Push(ctx context.Context, dir, remote, branch string) error
	// PushLease pushes branch to remote, replacing the remote branch only
	// when it is at expect (git push --force-with-lease).
	PushLease(ctx context.Context, dir, remote, branch, expect string) error
	// Reset checks commit out, detached and forcefully.
	Reset(ctx context.Context, dir, commit string) error
	// Clean removes every file git does not track, ignored ones included.
	Clean(ctx context.Context, dir string) error
	// Untracked lists what git does not track (ignored files included),
	// empty when nothing.
	Untracked(ctx context.Context, dir string) (string, error)
	// Gitlinks returns the paths of the index's submodule entries.
	Gitlinks(ctx context.Context, dir string) ([]string, error)
	// Detach detaches the work tree from its branch, at commit, leaving
	// the files as they are.
	Detach(ctx context.Context, dir, commit string) error
}

// Worktree is one entry of `git worktree list`.
type Worktree struct {
	Path   string
	Branch string
	// Head is the commit checked out, "" when the entry names none (a
	// bare repository, a branch without a commit yet).
	Head string
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
	Verdict(ctx context.Context, t CITarget) (results.Verdict, error)
}

// Recorder records a run in the run store while it goes, so a heal killed
// at any moment leaves a trace: BeginHeal creates the run (status running,
// with its owner process) at the start, after marking as interrupted the
// runs whose owner is gone, and returns their ids; HealStage records each
// stage as it starts; RecordHeal stores the finished run (creating it
// when BeginHeal did not).
type Recorder interface {
	BeginHeal(ctx context.Context, r *results.Results) (interrupted []string, err error)
	HealStage(ctx context.Context, r *results.Results, iteration int, stage string) error
	RecordHeal(ctx context.Context, r *results.Results) error
}

// Progress receives live progress; see NewProgress.
type Progress interface {
	Stage(iteration int, stage string, fixed int)
	// Focus names the bug the fixers work on next ("calc.go:12").
	Focus(bug string)
	Log(msg string, args ...any)
	Done()
}
