package assemble

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/gitagent"
	"github.com/salve-dev/salve/internal/gitagent/server"
	"github.com/salve-dev/salve/internal/gitguard"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/adapter"
	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/repoconfig"
	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/heal/tiers"
)

// Rules says whose rules govern a heal: the assembly reads the
// repository's .salve.yml from the base of the change (never the change
// nor the work tree), for every entry point, and applies it as Rules says.
type Rules int

const (
	// RulesRepo: the repository's file fills in every setting the caller
	// did not set itself (Config.Explicit): salve heal, where the caller
	// is the repository's own CI or its developer.
	RulesRepo Rules = iota
	// RulesFloor: the caller's settings are a server operator's floor the
	// file may tighten but never loosen: it adds protected paths, turns
	// test edits off, keeps a subset of the tiers, or turns the heal off;
	// it cannot allow test edits, add a tier or choose the models. The
	// MCP server and the queue worker heal under it.
	RulesFloor
	// RulesNone leaves the file unread.
	RulesNone
)

// The settings a caller may set itself (Config.Explicit): under RulesRepo
// the caller's value wins over the file's.
const (
	SetCommand        = "command"
	SetFixers         = "fixers"
	SetModels         = "models"
	SetMode           = "mode"
	SetAllowTestEdits = "allow_test_edits"
)

// OffError is New's error when the repository's file turns salve off for
// this heal (heal: false, or a skip_branches match): nothing is to be
// done, which is not a failure.
type OffError struct {
	// Why says which key turned it off, and Rev where it was read.
	Why, Rev string
}

func (e *OffError) Error() string {
	return fmt.Sprintf("nothing to do: %s (read from %s)", e.Why, e.Rev)
}

// ReadRules reads the repository's file from the base and applies it to
// c as c.Rules says, for a caller that gates fixes without a whole heal
// (salve fix): c's protected paths, test edits and tiers become what a
// heal of the same repository would run under. It returns the notes to
// show the user; its errors are New's.
func ReadRules(ctx context.Context, c *Config) ([]string, error) {
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	agent, err := GitAgent(c.GitAgent, c.Getenv)
	if err != nil {
		return nil, kindError{heal.ErrEnvironment, err}
	}
	notes, err := repoRules(ctx, c, adapter.Git{Bin: agent, ExtraEnv: c.GitEnv})
	var off *OffError
	if err != nil && !errors.As(err, &off) {
		return nil, kindError{heal.ErrBadInput, err}
	}
	return notes, err
}

// baseGitTimeout bounds one git command of the base's search, a fetch
// included.
const baseGitTimeout = 2 * time.Minute

// repoRules reads the repository's file from the base and applies it to c
// as c.Rules says. It fills c.RepoConfig (the record for results.json)
// and returns the notes to show the user (the file was not read, and
// why). A malformed file, or an explicit ref that names no commit, is bad
// input; a file that turns salve off is an *OffError.
func repoRules(ctx context.Context, c *Config, g adapter.Git) ([]string, error) {
	if c.Rules == RulesNone {
		return nil, nil
	}
	// Without a ref or a target branch the base is origin/HEAD, which a
	// repository without a remote (or a CI checkout) lacks: then all that
	// matters is whether HEAD has the file. That question then runs beside
	// the search for the base, and is waited for before returning.
	headHasFile := func() error {
		_, err := g.ShowFile(ctx, c.Workspace, "HEAD", repoconfig.File)
		return err
	}
	if c.RepoConfigRef == "" && targetBranch(c) == "" {
		headHasFile = heal.Beside(headHasFile)
		defer headHasFile()
	}
	rev, why := baseRev(ctx, c, g)
	if rev == "" && c.RepoConfigRef != "" {
		return nil, errors.New(why)
	}
	if rev == "" {
		c.RepoConfig = &results.RepoConfig{File: repoconfig.File, Unread: why}
		if err := headHasFile(); err != nil {
			return nil, nil // the repository has no such file: nothing to say
		}
		return []string{fmt.Sprintf("%s not read: %s; healing under the defaults and the caller's settings", repoconfig.File, why)}, nil
	}
	text, err := g.ShowFile(ctx, c.Workspace, rev, repoconfig.File)
	var ae *gitagent.ActionError
	if errors.As(err, &ae) && (strings.Contains(ae.Data, "does not exist in") || strings.Contains(ae.Data, "exists on disk, but not in")) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", repoconfig.File, rev, err)
	}
	cfg, err := repoconfig.Parse([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("%w (read from %s)", err, rev)
	}
	if off := cfg.Off(buildBranch(ctx, c, g)); off != "" {
		return nil, &OffError{Why: off, Rev: rev}
	}
	rec := &results.RepoConfig{File: repoconfig.File, Rev: rev}
	c.RepoConfig = rec
	apply(c, cfg, rec)
	return nil, nil
}

// apply merges the file's settings into c as c.Rules says, recording each
// key that took effect and each the caller kept.
func apply(c *Config, cfg *repoconfig.Config, rec *results.RepoConfig) {
	explicit := func(key string) bool { return slices.Contains(c.Explicit, key) }
	applied := func(key, value string) { rec.Applied = append(rec.Applied, key+": "+value) }
	kept := func(key string) { rec.Overridden = append(rec.Overridden, key) }
	floor := c.Rules == RulesFloor

	// Protected paths only ever add to the caller's.
	if len(cfg.ProtectedPaths) > 0 {
		for _, g := range cfg.ProtectedPaths {
			if !slices.Contains(c.ProtectedPaths, g) {
				c.ProtectedPaths = append(c.ProtectedPaths, g)
			}
		}
		applied("protected_paths", strings.Join(cfg.ProtectedPaths, ", "))
	}
	if cfg.Command != "" {
		if explicit(SetCommand) || c.Command != "" && floor {
			kept("command")
		} else {
			c.Command = cfg.Command
			applied("command", cfg.Command)
		}
	}
	if len(cfg.Fixers) > 0 {
		switch {
		case explicit(SetFixers) && !floor:
			kept("fixers")
		case floor:
			// The file may keep a subset of the caller's tiers, in its
			// own order; a tier the caller did not allow stays out.
			allowed := tiers.Defaults(func(tiers.Tier) bool { return true })
			if names, err := tiers.Parse(c.Fixers); err == nil && len(names) > 0 {
				allowed = names
			}
			var keep []string
			for _, f := range cfg.Fixers {
				if slices.Contains(allowed, f) {
					keep = append(keep, f)
				}
			}
			if len(keep) == 0 {
				kept("fixers")
				break
			}
			c.Fixers = strings.Join(keep, ",")
			applied("fixers", c.Fixers)
		default:
			c.Fixers = strings.Join(cfg.Fixers, ",")
			applied("fixers", c.Fixers)
		}
	}
	if len(cfg.Models) > 0 {
		if explicit(SetModels) || floor {
			kept("models")
		} else {
			c.Models = cfg.Models
			applied("models", strings.Join(cfg.Models, ","))
		}
	}
	if cfg.Mode != "" {
		if explicit(SetMode) {
			kept("mode")
		} else {
			c.Mode = cfg.Mode
			applied("mode", cfg.Mode)
		}
	}
	if cfg.Has("allow_test_edits") {
		switch {
		case cfg.AllowTestEdits && (floor || explicit(SetAllowTestEdits)):
			kept("allow_test_edits")
		case cfg.AllowTestEdits:
			if !c.AllowTestEdits {
				c.AllowTestEdits, c.AllowTestEditsBy = true, repoconfig.File+" allow_test_edits"
			}
			applied("allow_test_edits", "true")
		case floor && c.AllowTestEdits:
			// false tightens the floor.
			c.AllowTestEdits, c.AllowTestEditsBy = false, ""
			applied("allow_test_edits", "false")
		}
	}
}

// baseRev is the commit the file is read from: c.RepoConfigRef; else the
// tip of the target branch (c.TargetBranch, else CI's GITHUB_BASE_REF or
// CI_MERGE_REQUEST_TARGET_BRANCH_NAME) as origin/<branch>, fetched from
// origin when the checkout lacks it; else the remote's default branch
// (origin/HEAD) when the checkout has it. A branch that holds the commit
// under heal is part of the change and is never used, nor is the first
// parent of HEAD, which may be the author's own commit. It returns "" and
// why when there is no such commit.
func baseRev(ctx context.Context, c *Config, g adapter.Git) (string, string) {
	dir := c.Workspace
	resolve := func(ref string) string {
		h, err := g.RevParse(ctx, dir, ref)
		if err != nil {
			return ""
		}
		return h
	}
	if c.RepoConfigRef != "" {
		return resolve(c.RepoConfigRef), "the commit to read it from, " + c.RepoConfigRef + ", names no commit"
	}
	b := targetBranch(c)
	if b == "" {
		h := resolve("refs/remotes/origin/HEAD")
		if h == "" {
			return "", "no target branch is known (CI names none, and the checkout has no origin/HEAD), so no commit outside the change is known to read it from"
		}
		if inChange, err := holdsHead(ctx, dir, h); err != nil || inChange {
			return "", "the remote's default branch (origin/HEAD) holds the commit under heal, so it is part of the change; a push has no base to read it from"
		}
		return h, ""
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

// targetBranch is the branch a change under heal is to merge into:
// c.TargetBranch, else what CI names; "" when none is known.
func targetBranch(c *Config) string {
	return firstNonEmpty(c.TargetBranch, forge.NewCI(c.Getenv).TargetBranch())
}

// buildBranch is the branch the failing build ran on, for skip_branches:
// c.BuildBranch, else what CI says, else the checkout's branch.
func buildBranch(ctx context.Context, c *Config, g adapter.Git) string {
	if b := firstNonEmpty(c.BuildBranch, forge.NewCI(c.Getenv).BuiltBranch()); b != "" {
		return b
	}
	b, err := g.CurrentBranch(ctx, c.Workspace)
	if err != nil || b == "HEAD" {
		return ""
	}
	return b
}

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
// branch that holds the change is no base to read rules from.
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

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
