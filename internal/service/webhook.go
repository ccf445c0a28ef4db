package service

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/salve-dev/salve/internal/heal/forge"
)

// The environment variables that hold the webhook secrets of salve serve.
const (
	EnvGitHubSecret = "SALVE_GITHUB_WEBHOOK_SECRET"
	EnvGitLabToken  = "SALVE_GITLAB_WEBHOOK_TOKEN"
)

// GitHubEvent is the part of a workflow_run or check_suite payload salve
// reads.
type GitHubEvent struct {
	Action      string       `json:"action"`
	WorkflowRun *githubSuite `json:"workflow_run"`
	CheckSuite  *githubSuite `json:"check_suite"`
	Repository  githubRepo   `json:"repository"`
	// Installation is the GitHub App installation the event was sent to.
	Installation *struct {
		ID int64 `json:"id"`
	} `json:"installation"`
}

type githubRepo struct {
	ID       int64  `json:"id"`
	CloneURL string `json:"clone_url"`
	FullName string `json:"full_name"`
	HTMLURL  string `json:"html_url"`
}

type githubSuite struct {
	ID         int64  `json:"id"`
	RunAttempt int    `json:"run_attempt"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
	HeadBranch string `json:"head_branch"`
	HeadSha    string `json:"head_sha"`
	// HeadRepository is the repository of the head commit (workflow_run
	// only): a fork's, for a pull request from a fork.
	HeadRepository *githubRepo `json:"head_repository"`
	HeadCommit     *struct {
		Message string `json:"message"`
	} `json:"head_commit"`
	// PullRequests are the pull requests the run belongs to, each with
	// the ids of its head and base repositories.
	PullRequests []struct {
		Number int          `json:"number"`
		Head   *githubPRRef `json:"head"`
		Base   *githubPRRef `json:"base"`
	} `json:"pull_requests"`
}

type githubPRRef struct {
	Repo *struct {
		ID int64 `json:"id"`
	} `json:"repo"`
}

// repoID is the id of the ref's repository, 0 when the payload lacks it.
func (r *githubPRRef) repoID() int64 {
	if r == nil || r.Repo == nil {
		return 0
	}
	return r.Repo.ID
}

// ownHead reports whether the payload shows that the failing commit is
// the repository's own, not a fork's. The rule fails closed: what the
// payload does not show is a fork. A workflow_run shows it by a
// head_repository of the repository's name (and id, when both carry
// one); a check_suite, which names no head repository, by pull requests
// whose head and base repositories all have the repository's id (GitHub
// gives none for a fork's branch). Anything else (head_repository null
// or absent, a check_suite of a push, an id missing) is not shown.
func (s *githubSuite) ownHead(event string, repo githubRepo, name string) bool {
	if event == "workflow_run" {
		h := s.HeadRepository
		return h != nil && h.FullName != "" && strings.EqualFold(h.FullName, name) &&
			(h.ID == 0 || repo.ID == 0 || h.ID == repo.ID)
	}
	if repo.ID == 0 || len(s.PullRequests) == 0 {
		return false
	}
	for _, pr := range s.PullRequests {
		if pr.Head.repoID() != repo.ID || pr.Base.repoID() != repo.ID {
			return false
		}
	}
	return true
}

// ParseGitHub turns a GitHub event into a heal request, or nil when the
// event is not a completed failure salve acts on.
func ParseGitHub(event string, body []byte) (*Request, error) {
	e, err := ParseGitHubEvent(event, body)
	if e == nil {
		return nil, err
	}
	return &e.Request, nil
}

// ParseGitHubEvent is ParseGitHub with what the intake judges the event
// by: the repository's name, a fork, the run's identity, the commit's
// message.
func ParseGitHubEvent(event string, body []byte) (*Event, error) {
	var e GitHubEvent
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, fmt.Errorf("%w: malformed %s payload: %w", ErrBadRequest, event, err)
	}
	var s *githubSuite
	switch event {
	case "workflow_run":
		s = e.WorkflowRun
	case "check_suite":
		s = e.CheckSuite
	default:
		return nil, nil
	}
	if s == nil || e.Action != "completed" || s.Conclusion != "failure" {
		return nil, nil
	}
	if e.Repository.CloneURL == "" || s.HeadBranch == "" {
		return nil, fmt.Errorf("%w: %s payload without repository.clone_url or head_branch", ErrBadRequest, event)
	}
	if s.HeadSha != "" && !validSha(s.HeadSha) {
		return nil, fmt.Errorf("%w: %s payload with a malformed head_sha", ErrBadRequest, event)
	}
	ev := &Event{
		Request: Request{Repo: e.Repository.CloneURL, Ref: s.HeadBranch, Sha: strings.ToLower(s.HeadSha), Source: "github"},
		Repo:    e.Repository.FullName,
	}
	if ev.Repo == "" {
		ev.Repo = RepoName(e.Repository.CloneURL)
	}
	if !s.ownHead(event, e.Repository, ev.Repo) {
		ev.Fork = true
		// The head's clone URL, when the payload names a head other than
		// the repository; else none, and a healed fork is then refused.
		if h := s.HeadRepository; h != nil && h.FullName != "" && !strings.EqualFold(h.FullName, ev.Repo) {
			ev.HeadCloneURL = h.CloneURL
			if ev.HeadCloneURL == "" && strings.HasPrefix(h.HTMLURL, "https://") {
				ev.HeadCloneURL = h.HTMLURL + ".git"
			}
		}
	}
	if s.HeadCommit != nil {
		ev.Message = s.HeadCommit.Message
	}
	for _, pr := range s.PullRequests {
		if pr.Number > 0 && len(ev.PRs) < maxEventPRs {
			ev.PRs = append(ev.PRs, pr.Number)
		}
	}
	if e.Installation != nil && e.Installation.ID > 0 {
		ev.Installation = e.Installation.ID
		ev.Request.Installation = e.Installation.ID
	}
	if s.ID != 0 {
		ev.Run = fmt.Sprintf("%s %s %d attempt %d", event, strings.ToLower(ev.Repo), s.ID, max(s.RunAttempt, 1))
	}
	return ev, nil
}

// GitLabEvent is the part of a pipeline hook salve reads.
type GitLabEvent struct {
	ObjectKind       string `json:"object_kind"`
	ObjectAttributes struct {
		ID         int64  `json:"id"`
		Status     string `json:"status"`
		Ref        string `json:"ref"`
		Tag        bool   `json:"tag"`
		Sha        string `json:"sha"`
		FinishedAt string `json:"finished_at"`
	} `json:"object_attributes"`
	Project struct {
		ID                int64  `json:"id"`
		GitHTTPURL        string `json:"git_http_url"`
		PathWithNamespace string `json:"path_with_namespace"`
	} `json:"project"`
	MergeRequest *struct {
		IID             int    `json:"iid"`
		SourceBranch    string `json:"source_branch"`
		SourceProjectID int64  `json:"source_project_id"`
		TargetProjectID int64  `json:"target_project_id"`
	} `json:"merge_request"`
	Commit *struct {
		Message string `json:"message"`
	} `json:"commit"`
}

// ParseGitLab turns a GitLab pipeline hook into a heal request, or nil
// when it is not a failed branch pipeline.
func ParseGitLab(body []byte) (*Request, error) {
	e, err := ParseGitLabEvent(body)
	if e == nil {
		return nil, err
	}
	return &e.Request, nil
}

// mrRefPrefix starts the ref of a merge request pipeline that runs on the
// merge request's own ref; its branch is the merge request's source.
const mrRefPrefix = "refs/merge-requests/"

// ParseGitLabEvent is ParseGitLab with what the intake judges the event by.
func ParseGitLabEvent(body []byte) (*Event, error) {
	var e GitLabEvent
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, fmt.Errorf("%w: malformed pipeline payload: %w", ErrBadRequest, err)
	}
	a := e.ObjectAttributes
	if e.ObjectKind != "pipeline" || a.Status != "failed" || a.Tag {
		return nil, nil
	}
	ref := a.Ref
	if mr := e.MergeRequest; mr != nil && strings.HasPrefix(ref, mrRefPrefix) && mr.SourceBranch != "" {
		ref = mr.SourceBranch
	}
	if e.Project.GitHTTPURL == "" || ref == "" {
		return nil, fmt.Errorf("%w: pipeline payload without project.git_http_url or object_attributes.ref", ErrBadRequest)
	}
	if a.Sha != "" && !validSha(a.Sha) {
		return nil, fmt.Errorf("%w: pipeline payload with a malformed sha", ErrBadRequest)
	}
	ev := &Event{
		Request: Request{Repo: e.Project.GitHTTPURL, Ref: ref, Sha: strings.ToLower(a.Sha), Source: "gitlab"},
		Repo:    e.Project.PathWithNamespace,
	}
	if ev.Repo == "" {
		ev.Repo = RepoName(e.Project.GitHTTPURL)
	}
	// A merge request pipeline is the project's own only when the merge
	// request's source and target are the pipeline's project; what the
	// payload does not show (an id missing) is a fork's. A branch
	// pipeline runs the project's own branch.
	if mr := e.MergeRequest; mr != nil && (mr.SourceProjectID == 0 || mr.SourceProjectID != mr.TargetProjectID || e.Project.ID != mr.SourceProjectID) {
		ev.Fork = true
		// A fork's pipeline that runs in the fork names the fork as its
		// project; one run in the target project gives no fork URL.
		if e.Project.ID != 0 && e.Project.ID == mr.SourceProjectID && mr.SourceProjectID != mr.TargetProjectID {
			ev.HeadCloneURL = e.Project.GitHTTPURL
		}
	}
	if e.Commit != nil {
		ev.Message = e.Commit.Message
	}
	if mr := e.MergeRequest; mr != nil && mr.IID > 0 {
		ev.PRs = []int{mr.IID}
	}
	if a.ID != 0 {
		// GitLab keeps a pipeline's id across a retry: its end time tells
		// the retry's failure from a re-delivery of the first.
		ev.Run = fmt.Sprintf("pipeline %d %d %s", e.Project.ID, a.ID, a.FinishedAt)
	}
	return ev, nil
}

// VerifyGitHubSignature checks an X-Hub-Signature-256 header against body.
func VerifyGitHubSignature(secret string, body []byte, header string) bool {
	got, ok := strings.CutPrefix(header, "sha256=")
	if !ok || secret == "" {
		return false
	}
	sig, err := hex.DecodeString(got)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hmac.Equal(sig, mac.Sum(nil))
}

func (s *Server) env(k string) string {
	if s.Getenv == nil {
		return ""
	}
	return s.Getenv(k)
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, "the body could not be read or is too large")
		return nil, false
	}
	return b, true
}

func (s *Server) githubHook(w http.ResponseWriter, r *http.Request) {
	secret := s.env(EnvGitHubSecret)
	if secret == "" {
		s.Metrics.webhook("github", outcomeRefused, "off")
		writeError(w, http.StatusServiceUnavailable, "GitHub webhooks are off: the server has no "+EnvGitHubSecret)
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		s.Metrics.webhook("github", outcomeRefused, "too_large")
		return
	}
	if !VerifyGitHubSignature(secret, body, r.Header.Get("X-Hub-Signature-256")) {
		s.Metrics.webhook("github", outcomeRefused, "bad_signature")
		writeError(w, http.StatusUnauthorized, "bad or missing X-Hub-Signature-256")
		return
	}
	event := r.Header.Get("X-GitHub-Event")
	if event == "ping" {
		writeJSON(w, http.StatusOK, map[string]string{"status": "pong"})
		return
	}
	ev, err := ParseGitHubEvent(event, body)
	s.intake(w, r, delivery{source: "github", id: r.Header.Get("X-GitHub-Delivery"), event: event, body: body}, ev, err)
}

func (s *Server) gitlabHook(w http.ResponseWriter, r *http.Request) {
	token := s.env(EnvGitLabToken)
	if token == "" {
		s.Metrics.webhook("gitlab", outcomeRefused, "off")
		writeError(w, http.StatusServiceUnavailable, "GitLab webhooks are off: the server has no "+EnvGitLabToken)
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("X-Gitlab-Token")), []byte(token)) != 1 {
		s.Metrics.webhook("gitlab", outcomeRefused, "bad_token")
		writeError(w, http.StatusUnauthorized, "bad or missing X-Gitlab-Token")
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		s.Metrics.webhook("gitlab", outcomeRefused, "too_large")
		return
	}
	if r.Header.Get("X-Gitlab-Event") != "Pipeline Hook" {
		s.ignore(w, "gitlab", "not_pipeline", "not a pipeline hook")
		return
	}
	ev, err := ParseGitLabEvent(body)
	// GitLab sends an idempotency key (X-Gitlab-Event-UUID) per delivery.
	s.intake(w, r, delivery{source: "gitlab", id: r.Header.Get("X-Gitlab-Event-UUID"), event: "Pipeline Hook", body: body}, ev, err)
}

// ignore answers 200 ignored with reason, and counts it under label.
func (s *Server) ignore(w http.ResponseWriter, source, label, reason string) {
	s.Metrics.webhook(source, outcomeIgnored, label)
	writeJSON(w, http.StatusOK, map[string]string{"status": "ignored", "reason": reason})
}

// delivery is one verified webhook delivery, as replay detection sees it.
type delivery struct {
	// source is "github" or "gitlab".
	source string
	// id is the sender's delivery id (X-GitHub-Delivery,
	// X-Gitlab-Event-UUID); it may be empty.
	id string
	// event is the event type header.
	event string
	// body is the verified body.
	body []byte
	// run is the CI run's identity (Event.Run); it may be empty.
	run string
}

// replayKey is one key of the deliveries bucket and what a duplicate of it
// means.
type replayKey struct {
	key, reason string
}

// replayKeys returns the deliveries-bucket keys of d: its delivery id's,
// when it has one, and always its content's, a SHA-256 of the event type
// and the verified body. The signature covers the body but not the
// delivery id, so whoever captured a signed delivery could replay it under
// a new id (or none); the content key catches that. A new event (a re-run,
// another pipeline) always differs in its body.
func (d delivery) replayKeys() []replayKey {
	var keys []replayKey
	if d.id != "" {
		sum := sha256.Sum256([]byte(d.id))
		keys = append(keys, replayKey{d.source + "_" + hex.EncodeToString(sum[:24]), "delivery " + d.id + " was already received"})
	}
	h := sha256.New()
	h.Write([]byte(d.event))
	h.Write([]byte{0})
	h.Write(d.body)
	keys = append(keys, replayKey{d.source + "_body_" + hex.EncodeToString(h.Sum(nil)[:24]), "the same " + d.source + " event was already received"})
	if d.run != "" {
		// The same run re-delivered (a new delivery id, a body that
		// differs in a field salve does not read) is not a new failure.
		sum := sha256.Sum256([]byte(d.run))
		keys = append(keys, replayKey{d.source + "_run_" + hex.EncodeToString(sum[:24]), "this run (" + d.run + ") was already received"})
	}
	return keys
}

// claim records the replay keys of d in the deliveries bucket (where they
// expire with the bucket's TTL). It returns the keys it recorded, the
// reason of a duplicate, or an error; on a duplicate or an error it has
// removed what it recorded.
func (s *Server) claim(ctx context.Context, d delivery) (made []string, duplicate string, err error) {
	for _, k := range d.replayKeys() {
		if _, err := s.Queue.Deliveries.Create(ctx, k.key, []byte(d.event+" "+d.id)); err != nil {
			s.forget(ctx, made)
			if errors.Is(err, jetstream.ErrKeyExists) {
				return nil, k.reason, nil
			}
			return nil, "", err
		}
		made = append(made, k.key)
	}
	return made, "", nil
}

// forget removes replay keys, so the sender's retry of a delivery that
// was not queued gets through.
func (s *Server) forget(ctx context.Context, keys []string) {
	for _, k := range keys {
		_ = s.Queue.Deliveries.Delete(context.WithoutCancel(ctx), k)
	}
}

// intake judges a verified event: it ignores what salve must not heal
// (its own branches and commits, opt-outs, forks, repositories off the
// allowlist), drops replays (by delivery id, body and run), applies the
// attempt cap, and queues the job of what is left.
func (s *Server) intake(w http.ResponseWriter, r *http.Request, d delivery, ev *Event, err error) {
	if err != nil {
		s.Metrics.webhook(d.source, outcomeRefused, "bad_request")
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if ev == nil {
		s.ignore(w, d.source, "not_failure", "not a completed failure")
		return
	}
	if rule := s.Policy.judge(ev); rule != nil {
		s.log().Info("webhook ignored", "source", d.source, "delivery", d.id, "repo", ev.Repo, "ref", ev.Request.Ref, "reason", rule.Label)
		s.ignore(w, d.source, rule.Label, rule.Reason)
		return
	}
	if n := s.skipLabelled(r.Context(), d.source, ev); n > 0 {
		s.log().Info("webhook ignored", "source", d.source, "delivery", d.id, "repo", ev.Repo, "ref", ev.Request.Ref, "reason", "skip_label", "request", n)
		s.ignore(w, d.source, "skip_label", fmt.Sprintf("pull or merge request #%d carries the %s label", n, forge.SkipLabel))
		return
	}
	d.run = ev.Run
	made, dup, err := s.claim(r.Context(), d)
	if err != nil {
		s.Metrics.webhook(d.source, outcomeRefused, "error")
		writeError(w, http.StatusServiceUnavailable, "could not record the delivery: "+err.Error())
		return
	}
	if dup != "" {
		s.Metrics.webhook(d.source, outcomeDuplicate, "")
		writeJSON(w, http.StatusOK, map[string]string{"status": "duplicate", "reason": dup})
		return
	}
	req := ev.Request
	if err := req.Validate(); err != nil {
		s.forget(r.Context(), made)
		s.Metrics.webhook(d.source, outcomeRefused, "bad_request")
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	// The delivery stays recorded when the cap answers: a re-delivery of
	// it is a duplicate, not a new attempt.
	ok, release, err := s.Queue.TakeAttempt(r.Context(), req.Repo, req.Ref, s.Policy.maxAttempts(), s.Policy.cooldown(), time.Now())
	if err != nil {
		s.forget(r.Context(), made)
		s.Metrics.webhook(d.source, outcomeRefused, "error")
		writeError(w, http.StatusServiceUnavailable, "could not count the attempts: "+err.Error())
		return
	}
	if !ok {
		s.Metrics.capReached(d.source)
		s.log().Warn("webhook ignored: attempt cap reached", "source", d.source, "repo", req.Repo, "ref", req.Ref)
		s.ignore(w, d.source, "attempt_cap", fmt.Sprintf("attempt cap reached: %d jobs on this repository and ref within %s", s.Policy.maxAttempts(), s.Policy.cooldown()))
		return
	}
	j, err := s.Queue.Submit(r.Context(), req)
	if err != nil {
		s.forget(r.Context(), made)
		release()
		s.Metrics.webhook(d.source, outcomeRefused, "error")
		writeError(w, http.StatusServiceUnavailable, "the job could not be queued: "+err.Error())
		return
	}
	s.Metrics.webhook(d.source, outcomeQueued, "")
	s.log().Info("webhook queued a heal", "source", d.source, "delivery", d.id, "job", j.ID, "repo", req.Repo, "ref", req.Ref, "sha", req.Sha)
	writeJSON(w, http.StatusAccepted, map[string]string{"id": j.ID})
}
