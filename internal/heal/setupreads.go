package heal

import (
	"context"
	"path/filepath"
	"strings"
)

// SetupReads are the reads of the user's repository a heal's setup starts
// with: its worktrees, whether its checkout has uncommitted changes, and
// whether the heal branch exists. None of them changes anything, and none
// depends on the repository's rules, so a caller that reads the rules
// first (assemble) starts them beside that read ([StartSetupReads]) and
// hands them to the run in Options.Reads. A setup whose repository or
// branch is not the one read reads them again.
type SetupReads struct {
	repo, branch string
	list         func() listRead
	dirty        func() bool
	branchExists func() bool
}

type listRead struct {
	list []Worktree
	err  error
}

// StartSetupReads starts the setup's reads of the repository at repo (a
// folder inside it) for the heal branch branch ("" when not known yet:
// the setup asks for it) and returns at once. Wait waits for them.
func StartSetupReads(ctx context.Context, g Git, w Worktrees, repo, branch string) *SetupReads {
	abs, err := filepath.Abs(repo)
	if err != nil {
		abs = repo
	}
	s := &SetupReads{repo: abs, branch: branch}
	// The check for uncommitted changes reads every file of the user's
	// checkout; refs are the same from any folder of the repository.
	s.dirty = Beside(func() bool {
		diff, err := g.Diff(ctx, abs)
		return err == nil && strings.TrimSpace(diff) != ""
	})
	s.branchExists = func() bool { return false }
	if branch != "" {
		s.branchExists = branchRead(ctx, g, abs, branch)
	}
	s.list = Beside(func() listRead {
		l, err := w.List(ctx, abs)
		return listRead{l, err}
	})
	return s
}

// Wait waits for the reads, so that none outlives a caller that does not
// run the heal.
func (s *SetupReads) Wait() {
	if s != nil {
		s.dirty()
		s.branchExists()
		s.list()
	}
}

// setupReads returns the reads for the run: those handed in Options.Reads
// where they are of this repository, and of this branch (else the
// branch's is read again); otherwise new ones.
func (r *run) setupReads(ctx context.Context) *SetupReads {
	s := r.o.Reads
	if s == nil || s.repo != r.o.Repo {
		s.Wait()
		return StartSetupReads(ctx, r.o.Git, r.o.Worktrees, r.o.Repo, r.o.Branch)
	}
	if s.branch != r.o.Branch {
		again := *s
		again.branch = r.o.Branch
		s.branchExists()
		again.branchExists = branchRead(ctx, r.o.Git, r.o.Repo, r.o.Branch)
		return &again
	}
	return s
}

// branchRead starts asking whether branch exists in the repository at
// repo, and returns what waits for the answer.
func branchRead(ctx context.Context, g Git, repo, branch string) func() bool {
	return Beside(func() bool {
		_, err := g.RevParse(ctx, repo, "refs/heads/"+branch)
		return err == nil
	})
}
