// Package service runs heal as a service: an HTTP API and webhook intake
// that turn requests and failed-CI events into heal jobs on a NATS
// JetStream work-queue stream, an embedded NATS server (or a connection to
// an existing cluster), and the job records that workers update as they
// heal. The workers themselves live in package worker.
package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/tiers"
	"github.com/salve-dev/salve/internal/sandbox"
)

// Status is where a job stands.
type Status string

// The job statuses. Queued and running are transient; green, red, flaky
// and error are final.
const (
	StatusQueued  Status = "queued"
	StatusRunning Status = "running"
	StatusGreen   Status = "green"
	StatusRed     Status = "red"
	// StatusFlaky: the failing tests passed on a re-run before any fix;
	// nothing was committed.
	StatusFlaky Status = "flaky"
	StatusError Status = "error"
)

// Final reports whether s is a final status.
func (s Status) Final() bool {
	return s == StatusGreen || s == StatusRed || s == StatusFlaky || s == StatusError
}

// Request is what a client (or a webhook) asks for: heal Ref of Repo.
// It carries no credential: workers take tokens from their own environment.
type Request struct {
	// Repo is a git URL (https, ssh, git, file://) or a path on the workers.
	Repo string `json:"repo"`
	// Ref is the branch to heal; empty means the remote's default branch.
	Ref string `json:"ref,omitempty"`
	// Fixers are the fixer tiers, as salve heal --fixers: a comma-separated
	// list of the names of package internal/heal/tiers; empty means the default list.
	Fixers string `json:"fixers,omitempty"`
	// Cmd is the build command, as salve heal --cmd.
	Cmd string `json:"cmd,omitempty"`
	// PR asks for a pull request for the heal branch, opened after a
	// green heal (as salve heal --pr).
	PR bool `json:"pr,omitempty"`
	// CheckRun asks for the heal to be reported on the failing commit (Sha,
	// else the healed commit): a GitHub check run with one annotation per
	// bug, or a GitLab commit status (as salve heal --check-run).
	CheckRun bool `json:"check_run,omitempty"`
	// Source says where the job came from: api, github or gitlab.
	Source string `json:"source,omitempty"`
	// Sha is the commit to heal: the one whose CI failed (a webhook's
	// head_sha or pipeline sha), 40 or 64 hexadecimal characters. The
	// worker checks it out, whatever Ref's tip is by then, and starts the
	// heal branch from it. Empty means Ref's tip when the job runs.
	Sha string `json:"sha,omitempty"`
	// Models are the llm tier's targets in fallback order, each
	// "provider/model" (as salve heal --models); empty means the worker's
	// own configuration.
	Models []string `json:"models,omitempty"`
	// Installation is the GitHub App installation a GitHub webhook was
	// sent to (its installation.id), which the worker acts as when it has
	// the App's key and no SALVE_GITHUB_APP_INSTALLATION_ID of its own.
	// Webhooks set it; the jobs API refuses it.
	Installation int64 `json:"installation,omitempty"`
	// Untrusted says the change comes from someone salve does not trust
	// with the repository's build-cache layer: its heal reads the layer and
	// writes a throw-away one (docs/executor.md §Caches). Webhooks set it
	// for forks; the jobs API may set it, never unset what Upstream implies.
	Untrusted bool `json:"untrusted,omitempty"`
	// Upstream is the repository a fork's change is proposed to, when Repo
	// is the fork: its build-cache layer is the one the heal reads (and
	// never writes; a job with Upstream is untrusted). Webhooks set it;
	// the jobs API refuses it.
	Upstream string `json:"upstream,omitempty"`
}

// Attempt is one delivery of a job to a worker.
type Attempt struct {
	Delivery  uint64 `json:"delivery"`
	Worker    string `json:"worker"`
	StartedAt string `json:"started_at"`
	EndedAt   string `json:"ended_at,omitempty"`
	// Resumed is set when the attempt found the job's heal branch already
	// pushed by an earlier attempt and carried on from it.
	Resumed bool   `json:"resumed,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Job is the record of one heal job, kept in the jobs bucket.
type Job struct {
	ID        string    `json:"id"`
	Request   Request   `json:"request"`
	Status    Status    `json:"status"`
	Branch    string    `json:"branch"`
	CreatedAt string    `json:"created_at"`
	UpdatedAt string    `json:"updated_at"`
	Attempts  []Attempt `json:"attempts"`
	// Error says why a job ended in StatusError.
	Error string `json:"error,omitempty"`
	// BranchCommit is the heal branch's commit on the remote, read back
	// with git ls-remote after the heal.
	BranchCommit string `json:"branch_commit,omitempty"`
	// PullRequest is the URL of the job's pull request, when one was asked
	// for and opened (or found already open).
	PullRequest string `json:"pull_request,omitempty"`
	// Warnings are things the user should know (an unsupported option…).
	Warnings []string `json:"warnings,omitempty"`
	// Results are the heal's results.json, once it has run.
	Results *results.Results `json:"results,omitempty"`
}

// BranchFor returns the heal branch of job id: the same however often the
// job is delivered, so that a job has one heal branch.
func BranchFor(id string) string {
	return heal.DefaultBranchPrefix + "job-" + id[:min(8, len(id))]
}

// LockKey returns the key that serialises jobs on the same repository and
// ref.
func LockKey(repo, ref string) string {
	h := sha256.Sum256([]byte(repo + "\x00" + ref))
	return "repo_" + hex.EncodeToString(h[:16])
}

// ErrBadRequest is wrapped by Validate.
var ErrBadRequest = errors.New("bad request")

// Validate checks r, and refuses credentials in the repository URL: they
// would be stored in the stream, where nothing secret may go.
func (r *Request) Validate() error {
	r.Repo = strings.TrimSpace(r.Repo)
	if err := checkRepoURL(r.Repo); err != nil {
		return err
	}
	if r.Repo == "" {
		return fmt.Errorf("%w: repo is required (a git URL or a path)", ErrBadRequest)
	}
	if len(r.Repo) > 2048 || strings.ContainsAny(r.Repo, "\x00\n\r") {
		return fmt.Errorf("%w: repo is not a valid URL or path", ErrBadRequest)
	}
	if strings.HasPrefix(r.Repo, "-") {
		return fmt.Errorf("%w: repo %q may not start with '-'", ErrBadRequest, r.Repo)
	}
	if strings.HasPrefix(strings.ToLower(r.Repo), "ext::") || strings.HasPrefix(strings.ToLower(r.Repo), "fd::") {
		return fmt.Errorf("%w: repo %q uses a refused git transport", ErrBadRequest, r.Repo)
	}
	if u, err := url.Parse(r.Repo); err == nil && u.User != nil {
		if _, hasPw := u.User.Password(); hasPw {
			return fmt.Errorf("%w: repo URL carries a password or token; give workers their credentials in their environment instead", ErrBadRequest)
		}
	}
	if r.Upstream != "" {
		if err := checkRepoURL(r.Upstream); err != nil {
			return err
		}
		r.Untrusted = true
	}
	if r.Ref != "" {
		if err := checkRef(r.Ref); err != nil {
			return err
		}
	}
	if len(r.Cmd) > 4096 {
		return fmt.Errorf("%w: cmd is longer than 4096 bytes", ErrBadRequest)
	}
	if _, err := tiers.Parse(r.Fixers); err != nil {
		return fmt.Errorf("%w: fixers: %w", ErrBadRequest, err)
	}
	if r.Sha != "" && !validSha(r.Sha) {
		return fmt.Errorf("%w: sha: want a full commit id, 40 or 64 hexadecimal characters", ErrBadRequest)
	}
	r.Sha = strings.ToLower(r.Sha)
	return checkModels(r.Models)
}

// validSha reports whether s is a full SHA-1 or SHA-256 commit id.
func validSha(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// MaxModels bounds Request.Models.
const MaxModels = 8

// checkModels accepts at most MaxModels targets, each "provider/model":
// a provider of lower-case letters, digits, '-' and '_', and a model name
// of letters, digits and "-_.:/@+" (no spaces, nothing an option parser
// or a shell could read otherwise), each target at most 200 bytes.
func checkModels(models []string) error {
	if len(models) > MaxModels {
		return fmt.Errorf("%w: models: at most %d, got %d", ErrBadRequest, MaxModels, len(models))
	}
	for _, m := range models {
		provider, model, ok := strings.Cut(m, "/")
		if !ok || provider == "" || model == "" || len(m) > 200 ||
			strings.Trim(provider, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" || provider[0] == '-' ||
			strings.Trim(model, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/@+") != "" || model[0] == '-' {
			return fmt.Errorf("%w: models: %q is not provider/model (lower-case provider; letters, digits and -_.:/@+ in the model)", ErrBadRequest, truncate(m, 80))
		}
	}
	return nil
}

// truncate bounds s for an error message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// checkRef refuses a branch name git would refuse, without running a
// shell: git check-ref-format --branch when git is there, a conservative
// check otherwise.
func checkRef(ref string) error {
	bad := strings.HasPrefix(ref, "-") || strings.Contains(ref, "..") || strings.ContainsAny(ref, " ~^:?*[\\\x00\x7f") ||
		strings.HasSuffix(ref, ".lock") || strings.HasSuffix(ref, "/") || strings.HasSuffix(ref, ".") || len(ref) > 255
	if !bad {
		if _, err := exec.LookPath("git"); err == nil {
			res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "git", Args: []string{"check-ref-format", "--branch", ref}, Env: sandbox.AllowedEnv(), Timeout: 10 * time.Second})
			bad = err != nil || res.ExitCode != 0
		}
	}
	if bad {
		return fmt.Errorf("%w: ref %q is not a valid branch name", ErrBadRequest, ref)
	}
	return nil
}

// now formats t as the job records do.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
