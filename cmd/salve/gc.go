package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/adapter"
	"github.com/salve-dev/salve/internal/heal/assemble"
	"github.com/salve-dev/salve/internal/heal/executor"
)

// gcOptions are the flags of "salve gc".
type gcOptions struct {
	Workspace string
	Root      string
	GitAgent  string
	// UnusedFor, when positive, removes only the worktrees no heal used
	// for that long.
	UnusedFor time.Duration
	// CacheMax is the build cache's budget ("10G"); empty means
	// $SALVE_BUILD_CACHE_MAX or 10 GiB.
	CacheMax string
}

// newGCCmd builds "salve gc".
func newGCCmd(s *streams) *cobra.Command {
	o := &gcOptions{}
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Remove salve's heal worktrees that no heal is using",
		Long: `gc removes the worktrees salve keeps for its heals (one or more per
repository, in salve's data folder, reused from one heal to the next), the
worktrees left by crashed heals, and their stale records in the
repositories (git worktree prune), and the heal branches (salve/heal-…)
that hold nothing of their own: merged into the repository's HEAD, as git
branch -d requires. A worktree a running heal holds is left alone and
listed as in use. gc never touches a worktree salve did not make, another
branch, or a heal branch with a fix found nowhere else. With --unused-for
only the worktrees no heal used for that long are removed (the others are
listed as recent). Without gc, a worktree kept for the next heal (a large
repository's) is removed by the first heal that runs after a week in which
no heal used it.

Without --workspace every repository salve has healed is collected, and
salve's build cache is trimmed too: the layers that keep what a
repository's builds compiled are removed when no build used them for 30
days, and then, least recently used first, while the cache is over its
budget (--cache-max, else $SALVE_BUILD_CACHE_MAX, else 10 GiB; heals and
worker jobs trim to it too). A layer a build is using is kept. The clones
a queue worker keeps of the repositories it heals (in salve's data folder)
are trimmed by the same rule and budget, on their own; a clone a job is
using is kept. gc then prints each total.`,
		Example: "  salve gc\n  salve gc --workspace ./repo\n  salve gc --unused-for 168h",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.UnusedFor < 0 {
				return exitWith(exitBadInput, fmt.Errorf("--unused-for must be a duration, 0 or more, got %s", o.UnusedFor))
			}
			budget, err := cacheBudget(o.CacheMax, s.Getenv)
			if err != nil {
				return exitWith(exitBadInput, err)
			}
			agent, err := assemble.GitAgent(o.GitAgent, s.Getenv)
			if err != nil {
				return exitWith(exitEnvironment, err)
			}
			root := o.Root
			if root == "" {
				if root, err = heal.DefaultWorktreeRoot(s.Getenv); err != nil {
					return exitWith(exitEnvironment, err)
				}
			}
			rep, err := heal.GC(cmd.Context(), heal.GCOptions{Root: root, Repo: o.Workspace, Worktrees: adapter.Worktrees{Git: adapter.Git{Bin: agent}}, Git: adapter.Git{Bin: agent}, UnusedFor: o.UnusedFor})
			for _, p := range rep.Removed {
				fmt.Fprintf(s.Stdout, "removed %s\n", p)
			}
			for _, p := range rep.InUse {
				fmt.Fprintf(s.Stdout, "in use %s\n", p)
			}
			for _, p := range rep.Recent {
				fmt.Fprintf(s.Stdout, "recent %s\n", p)
			}
			for _, b := range rep.Branches {
				fmt.Fprintf(s.Stdout, "deleted branch %s\n", b)
			}
			if err == nil && o.Workspace == "" {
				err = trimBuildCache(cmd.Context(), s.Stdout, budget, s.Getenv)
			}
			if errors.Is(err, heal.ErrBadInput) {
				return exitWith(exitBadInput, err)
			}
			if err != nil {
				return exitWith(exitFailure, err)
			}
			fmt.Fprintf(s.Stderr, "salve gc: %d worktree(s) removed, %d in use, %d repositor(ies) pruned, %d heal branch(es) deleted\n", len(rep.Removed), len(rep.InUse), len(rep.Pruned), len(rep.Branches))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Workspace, "workspace", "", "collect only this repository's worktrees")
	f.StringVar(&o.Root, "worktrees", "", "the folder of salve's heal worktrees (default $XDG_DATA_HOME/salve/worktrees)")
	f.Var(durationFlag{&o.UnusedFor}, "unused-for", "remove only the worktrees no heal used for this long (168h, 36h); 0 removes every one no heal holds")
	f.StringVar(&o.GitAgent, "git-agent", "", "the git_agent program (default: beside salve, then PATH)")
	f.StringVar(&o.CacheMax, "cache-max", "", "the build cache's budget: bytes, or a number with K, M, G or T (default $"+executor.EnvCacheBudget+", else 10G)")
	return cmd
}
