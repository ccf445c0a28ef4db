package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/salve-dev/salve/internal/gitagent"
	"github.com/salve-dev/salve/internal/gitagent/server"
	"github.com/salve-dev/salve/internal/gitguard"
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
	f.StringVar(&r.RepoConfigRef, "repo-config-ref", "", "the commit "+repoconfig.File+" is read from (default: the pull or merge request's target branch when CI names it, fetched from origin if the checkout lacks it; else none is read); never the work tree nor the change")
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
		// From the base or from nowhere: never from the change.
		fmt.Fprintf(s.Stderr, "salve heal: %s not read: %s; healing under the defaults and the command line\n", repoconfig.File, why)
		r.record = &results.RepoConfig{File: repoconfig.File, Unread: why}
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
	c.RepoConfig = r.record
	if r.cfg == nil {
		return
	}
	c.ProtectedPaths = r.cfg.ProtectedPaths
	if r.fileEdit && !c.AllowTestEdits {
		c.AllowTestEdits, c.AllowTestEditsBy = true, repoconfig.File+" allow_test_edits"
	}
}

// baseRev is the commit the configuration is read from: the flag; else
// the tip of the pull or merge request's target branch (GITHUB_BASE_REF,
// CI_MERGE_REQUEST_TARGET_BRANCH_NAME) as origin/<branch>, fetched from
// origin when the checkout lacks it, provided it does not hold the commit
// under heal. Nothing else: the first parent of HEAD may be the author's
// own commit (a merge request pipeline, a push of several commits), and a
// change must not choose the rules it is healed under. It returns "" and
// why when there is no such commit.
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
	b := firstNonEmpty(getenv("GITHUB_BASE_REF"), getenv("CI_MERGE_REQUEST_TARGET_BRANCH_NAME"))
	if b == "" {
		return "", "CI names no target branch (GITHUB_BASE_REF, CI_MERGE_REQUEST_TARGET_BRANCH_NAME), so no commit outside the change is known to read it from (give --repo-config-ref)"
	}
	if err := server.ValidateBranchName(b); err != nil {
		return "", fmt.Sprintf("the target branch %q is not a branch name: %v", b, err)
	}
	ref := "refs/remotes/origin/" + b
	h := resolve(ref)
	if h == "" {
		if err := fetchBranch(ctx, dir, b); err != nil {
			return "", fmt.Sprintf("the target branch %s is not in the checkout and could not be fetched from origin: %v", b, err)
		}
		if h = resolve(ref); h == "" {
			return "", fmt.Sprintf("the target branch %s could not be resolved after fetching it", b)
		}
	}
	if inChange, err := holdsHead(ctx, dir, h); err != nil || inChange {
		return "", fmt.Sprintf("the target branch %s (%s) holds the commit under heal, so it is part of the change", b, h)
	}
	return h, ""
}

// baseGitTimeout bounds one git command of baseRev, a fetch included.
const baseGitTimeout = 2 * time.Minute

// baseGit runs git in dir under gitguard's rule for a repository salve
// does not trust (no hooks, prompts, pagers, submodules; transports as t
// allows), as the git agent and the worker do; remote.origin.uploadpack
// is pinned so that the checkout's configuration cannot name a local
// program for a fetch to start. It returns git's exit code; err is set
// when git could not run.
func baseGit(ctx context.Context, dir string, t gitguard.Transport, args ...string) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, baseGitTimeout)
	defer cancel()
	full := append([]string{"-c", "remote.origin.uploadpack=git-upload-pack", "-C", dir}, args...)
	cmd := exec.CommandContext(ctx, "git", gitguard.Args(t, full...)...)
	cmd.Env = os.Environ()
	for k, v := range gitguard.Env() {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), strings.TrimSpace(stderr.String()), nil
	}
	return 0, strings.TrimSpace(string(out)), err
}

// fetchBranch fetches branch from origin into refs/remotes/origin/branch,
// no deeper than the checkout's own history (depth 1 in a shallow one).
func fetchBranch(ctx context.Context, dir, branch string) error {
	args := []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules"}
	if code, out, err := baseGit(ctx, dir, gitguard.Offline, "rev-parse", "--is-shallow-repository"); err == nil && code == 0 && out == "true" {
		args = append(args, "--depth=1")
	}
	args = append(args, "origin", "+refs/heads/"+branch+":refs/remotes/origin/"+branch)
	code, msg, err := baseGit(ctx, dir, gitguard.Remote, args...)
	if err != nil {
		return err
	}
	if code != 0 {
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return fmt.Errorf("git fetch: exit %d: %s", code, msg)
	}
	return nil
}

// holdsHead reports whether commit is HEAD or a descendant of it: a
// target branch that holds the change is no base to read rules from.
func holdsHead(ctx context.Context, dir, commit string) (bool, error) {
	code, msg, err := baseGit(ctx, dir, gitguard.Offline, "merge-base", "--is-ancestor", "HEAD", commit)
	switch {
	case err != nil:
		return false, err
	case code == 0:
		return true, nil
	case code == 1:
		return false, nil
	}
	return false, fmt.Errorf("git merge-base: exit %d: %s", code, msg)
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
