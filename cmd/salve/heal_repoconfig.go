package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/salve-dev/salve/internal/gitagent"
	"github.com/salve-dev/salve/internal/gitagent/server"
	"github.com/salve-dev/salve/internal/heal/adapter"
	"github.com/salve-dev/salve/internal/heal/assemble"
	"github.com/salve-dev/salve/internal/heal/repoconfig"
	"github.com/salve-dev/salve/internal/heal/results"
)

// repoConfigOptions are the flags of "salve heal" about the repository's
// configuration (.salve.yml, docs/heal.md "Repository configuration"),
// and what was read.
type repoConfigOptions struct {
	RepoConfigRef string
	NoRepoConfig  bool

	fs       *pflag.FlagSet
	cfg      *repoconfig.Config
	record   *results.RepoConfig
	fileEdit bool // allow_test_edits came from the file
}

func (r *repoConfigOptions) flags(f *pflag.FlagSet) {
	r.fs = f
	f.StringVar(&r.RepoConfigRef, "repo-config-ref", "", "the commit "+repoconfig.File+" is read from (default: the pull request's base branch when CI names it and it is fetched, else the first parent of the commit under heal); never the work tree")
	f.BoolVar(&r.NoRepoConfig, "no-repo-config", false, "do not read "+repoconfig.File)
}

// changed reports whether the command line set flag.
func (r *repoConfigOptions) changed(flag string) bool {
	return r.fs != nil && r.fs.Changed(flag)
}

// readRepoConfig reads .salve.yml from the base of the heal through the
// git agent, applies the keys that shape the pipeline (command, fixers,
// models, mode) where the command line did not set them, and tells
// whether the file turns salve off for this branch (done: nothing to
// heal, exit 0). A malformed file is bad input.
func (o *healOptions) readRepoConfig(ctx context.Context, s *streams) (done bool, err error) {
	r := &o.repoConfigOptions
	if r.NoRepoConfig {
		return false, nil
	}
	bin, err := assemble.GitAgent(o.GitAgent, s.Getenv)
	if err != nil {
		return false, nil // buildPipeline reports it
	}
	g := adapter.Git{Bin: bin}
	rev, why := r.baseRev(ctx, g, o.Workspace, s.Getenv)
	if rev == "" && r.RepoConfigRef != "" {
		return false, exitWith(exitBadInput, errors.New(why))
	}
	if rev == "" {
		s.logger().Debug(repoconfig.File+" not read", "why", why)
		return false, nil
	}
	text, err := g.ShowFile(ctx, o.Workspace, rev, repoconfig.File)
	var ae *gitagent.ActionError
	if errors.As(err, &ae) && (strings.Contains(ae.Data, "does not exist in") || strings.Contains(ae.Data, "exists on disk, but not in")) {
		return false, nil
	}
	if err != nil {
		return false, exitWith(exitBadInput, fmt.Errorf("read %s at %s: %w", repoconfig.File, rev, err))
	}
	cfg, err := repoconfig.Parse([]byte(text))
	if err != nil {
		return false, exitWith(exitBadInput, fmt.Errorf("%w (read from %s)", err, rev))
	}
	if off := cfg.Off(buildBranch(ctx, g, o.Workspace, s.Getenv)); off != "" {
		fmt.Fprintf(s.Stderr, "salve heal: nothing to do: %s (read from %s)\n", off, rev)
		return true, nil
	}
	r.cfg = cfg
	r.record = &results.RepoConfig{File: repoconfig.File, Rev: rev}
	set := func(key, flag string, present bool, value string, apply func()) {
		switch {
		case !present:
		case r.changed(flag):
			r.record.Overridden = append(r.record.Overridden, key)
		default:
			apply()
			r.record.Applied = append(r.record.Applied, key+": "+value)
		}
	}
	set("command", "cmd", cfg.Command != "", cfg.Command, func() { o.Command = cfg.Command })
	set("fixers", "fixers", len(cfg.Fixers) > 0, strings.Join(cfg.Fixers, ","), func() { o.Fixers = strings.Join(cfg.Fixers, ",") })
	set("models", "models", len(cfg.Models) > 0, strings.Join(cfg.Models, ","), func() { o.Models = cfg.Models })
	suggest := cfg.Mode == repoconfig.ModeSuggest || cfg.Mode == repoconfig.ModeBoth
	set("mode", "suggest-review", cfg.Mode != "", cfg.Mode, func() { o.SuggestReview = o.SuggestReview || suggest })
	set("allow_test_edits", "allow-test-edits", cfg.AllowTestEdits, "true", func() { r.fileEdit = true })
	if len(cfg.ProtectedPaths) > 0 {
		r.record.Applied = append(r.record.Applied, "protected_paths: "+strings.Join(cfg.ProtectedPaths, ", "))
	}
	return false, nil
}

// applyRepoConfig hands the heal what the file sets for it: protected
// paths, test edits (the flag's own say wins) and the record for the
// results.
func (r *repoConfigOptions) applyRepoConfig(c *assemble.Config) {
	if r.cfg == nil {
		return
	}
	c.RepoConfig, c.ProtectedPaths = r.record, r.cfg.ProtectedPaths
	if r.fileEdit && !c.AllowTestEdits {
		c.AllowTestEdits, c.AllowTestEditsBy = true, repoconfig.File+" allow_test_edits"
	}
}

// baseRev is the commit the configuration is read from: the flag; else
// the pull or merge request's target branch (GITHUB_BASE_REF,
// CI_MERGE_REQUEST_TARGET_BRANCH_NAME) when the checkout has it as
// origin/<branch>; else the first parent of HEAD (on a pull request's
// merge commit, the base branch; on a push, the commit before it). It
// returns "" and why when there is none.
func (r *repoConfigOptions) baseRev(ctx context.Context, g adapter.Git, dir string, getenv func(string) string) (string, string) {
	resolve := func(ref string) string {
		h, err := g.RevParse(ctx, dir, ref)
		if err != nil {
			return ""
		}
		return h
	}
	if r.RepoConfigRef != "" {
		return resolve(r.RepoConfigRef), "--repo-config-ref " + r.RepoConfigRef + " names no commit"
	}
	if b := firstNonEmpty(getenv("GITHUB_BASE_REF"), getenv("CI_MERGE_REQUEST_TARGET_BRANCH_NAME")); b != "" && server.ValidateBranchName(b) == nil {
		if h := resolve("refs/remotes/origin/" + b); h != "" {
			return h, ""
		}
	}
	return resolve("HEAD^1"), "the commit under heal has no parent, so there is no base to read it from (give --repo-config-ref)"
}

// buildBranch is the branch the failing build ran on, for skip_branches:
// what CI says, else the checkout's branch.
func buildBranch(ctx context.Context, g adapter.Git, dir string, getenv func(string) string) string {
	if b := firstNonEmpty(getenv("GITHUB_HEAD_REF"), getenv("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"), getenv("CI_COMMIT_BRANCH")); b != "" {
		return b
	}
	if getenv("GITHUB_REF_TYPE") == "branch" && getenv("GITHUB_REF_NAME") != "" {
		return getenv("GITHUB_REF_NAME")
	}
	b, err := g.CurrentBranch(ctx, dir)
	if err != nil || b == "HEAD" {
		return ""
	}
	return b
}
