package service

import (
	"fmt"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/salve-dev/salve/internal/lazyre"
)

// OwnBranchPrefix starts every branch salve pushes (heal.DefaultBranchPrefix
// and the jobs' branches live under it). A failure on such a branch is a
// failure of salve's own fix: healing it again would loop.
const OwnBranchPrefix = "salve/"

// Defaults of Policy.
const (
	DefaultMaxAttempts = 3
	DefaultCooldown    = time.Hour
)

// Policy is what the webhook intake (and, for AllowRepos, the jobs API)
// lets through. The zero value allows any repository, ignores forks and
// applies the default attempt cap.
type Policy struct {
	// AllowRepos are globs over repository names ("acme/api", "acme/*",
	// "acme/**" for nested GitLab groups); empty allows any repository.
	// A name is compared without case.
	AllowRepos []string
	// HealForks heals failures of forks (a stranger's code then runs in
	// the workers' sandbox, and the fix targets their branch), on the
	// fork's clone URL. Off, they are ignored.
	HealForks bool
	// MaxAttempts is the most webhook jobs per repository and ref within
	// Cooldown (default DefaultMaxAttempts).
	MaxAttempts int
	// Cooldown is the window of MaxAttempts (default DefaultCooldown).
	Cooldown time.Duration
}

// CheckAllowRepos refuses a malformed glob of AllowRepos.
func (p Policy) CheckAllowRepos() error {
	for _, g := range p.AllowRepos {
		if g == "" || !doublestar.ValidatePattern(strings.ToLower(g)) {
			return fmt.Errorf("--allow-repo %q: not a valid glob (owner/name, acme/*, acme/**)", g)
		}
	}
	return nil
}

// Allowed reports whether the repository named name (RepoName's form) may
// be healed.
func (p Policy) Allowed(name string) bool {
	if len(p.AllowRepos) == 0 {
		return true
	}
	name = strings.ToLower(name)
	for _, g := range p.AllowRepos {
		if ok, err := doublestar.Match(strings.ToLower(g), name); err == nil && ok {
			return true
		}
	}
	return false
}

func (p Policy) maxAttempts() int {
	if p.MaxAttempts <= 0 {
		return DefaultMaxAttempts
	}
	return p.MaxAttempts
}

func (p Policy) cooldown() time.Duration {
	if p.Cooldown <= 0 {
		return DefaultCooldown
	}
	return p.Cooldown
}

// RepoName names a repository for the allowlist: the path of its URL
// without the leading "/" and a ".git" suffix ("acme/api" for
// https://github.com/acme/api.git and git@github.com:acme/api.git; the
// whole path, "srv/git/acme/api", for a local one). The host is not part
// of the name.
func RepoName(repo string) string {
	p := repo
	if u, err := url.Parse(repo); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		p = u.Path
	} else if i := strings.Index(repo, ":"); i > 0 && !strings.ContainsAny(repo[:i], "/\\") {
		p = repo[i+1:] // scp-like user@host:owner/name
	}
	p = strings.TrimSuffix(strings.Trim(path.Clean("/"+p), "/"), ".git")
	return p
}

// Event is a CI failure a webhook reported: the job it asks for, and what
// the intake judges it by.
type Event struct {
	Request Request
	// Repo names the repository the hook was sent for (GitHub's
	// full_name, GitLab's path_with_namespace, else RepoName of the clone
	// URL).
	Repo string
	// Fork is set when the payload does not show the failing commit to
	// be the repository's own: a GitHub head_repository other than the
	// repository, null or absent, a check_suite without pull requests of
	// the repository's own, a GitLab merge request whose source project
	// is not its target or not known.
	Fork bool
	// HeadCloneURL is the fork's clone URL, when the payload gives one.
	HeadCloneURL string
	// Run is the CI run's identity (repository, run id and attempt); ""
	// when the payload has none.
	Run string
	// Message is the failing commit's message, when the payload has it.
	Message string
	// PRs are the numbers of the pull requests (GitHub's
	// pull_requests[]) or the merge request (GitLab's iid) the failing
	// build belongs to; their labels may opt out (forge.SkipLabel).
	PRs []int
	// Installation is the GitHub App installation the webhook was sent
	// to (installation.id); 0 when the payload has none.
	Installation int64
}

// maxEventPRs bounds the pull requests of one event whose labels are
// read.
const maxEventPRs = 5

// skipMarkers in a commit message ask salve not to heal its failure
// (compared without case).
var skipMarkers = []string{"[skip salve]", "[salve skip]"}

// ownRunTrailer is the "Run: <run id>" trailer of salve's fix commits.
var ownRunTrailer = lazyre.New(`(?m)^Run: [0-9A-Za-z][0-9A-Za-z_-]{7,127}\s*$`)

// OwnCommit reports whether msg is the message of one of salve's fix
// commits: its subject starts "salve heal: fix", or its last paragraph
// (the trailers) holds salve's "Run: <run id>" trailer.
func OwnCommit(msg string) bool {
	msg = strings.TrimSpace(strings.ReplaceAll(msg, "\r\n", "\n"))
	if strings.HasPrefix(msg, "salve heal: fix") {
		return true
	}
	paras := strings.Split(msg, "\n\n")
	return len(paras) > 1 && ownRunTrailer.MatchString(paras[len(paras)-1])
}

// SkipRequested reports whether msg carries a skip marker.
func SkipRequested(msg string) bool {
	low := strings.ToLower(msg)
	for _, m := range skipMarkers {
		if strings.Contains(low, m) {
			return true
		}
	}
	return false
}

// ignoreRule is one reason the intake does not heal a verified failure:
// Label is the metrics label, Reason the answer's.
type ignoreRule struct {
	Label, Reason string
	Applies       func(p Policy, e *Event) bool
}

// ignoreRules are checked in order; the first that applies answers.
var ignoreRules = []ignoreRule{
	{"own_branch", "the branch is one of salve's own (" + OwnBranchPrefix + "…): healing it again would loop",
		func(_ Policy, e *Event) bool { return strings.HasPrefix(e.Request.Ref, OwnBranchPrefix) }},
	{"own_commit", "the failing commit is one of salve's own fixes: healing it again would loop",
		func(_ Policy, e *Event) bool { return OwnCommit(e.Message) }},
	{"skip_marker", "the commit message asks salve to skip it ([skip salve])",
		func(_ Policy, e *Event) bool { return SkipRequested(e.Message) }},
	{"fork", "the failure comes from a fork, or from a head the payload does not show to be the repository's own; salve serve --heal-forks heals forks",
		func(p Policy, e *Event) bool { return e.Fork && !p.HealForks }},
	{"fork_no_url", "the failure comes from a fork, or a head not shown to be the repository's own, whose clone URL the payload does not give",
		func(p Policy, e *Event) bool { return e.Fork && p.HealForks && e.HeadCloneURL == "" }},
	{"not_allowed", "the repository is not in the server's --allow-repo list",
		func(p Policy, e *Event) bool { return !p.Allowed(e.Repo) }},
}

// judge returns the ignore rule that applies to e, or nil; with forks
// healed, it points the request at the fork, untrusted, with the
// repository as its upstream.
func (p Policy) judge(e *Event) *ignoreRule {
	for i := range ignoreRules {
		if ignoreRules[i].Applies(p, e) {
			return &ignoreRules[i]
		}
	}
	if e.Fork {
		// The fork's change is healed in the fork, reading the build-cache
		// layer of the repository it is proposed to, never writing it.
		e.Request.Upstream, e.Request.Repo, e.Request.Untrusted = e.Request.Repo, e.HeadCloneURL, true
	}
	return nil
}
