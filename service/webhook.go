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

	"github.com/nats-io/nats.go/jetstream"
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
	Repository  struct {
		CloneURL string `json:"clone_url"`
	} `json:"repository"`
}

type githubSuite struct {
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
	HeadBranch string `json:"head_branch"`
}

// ParseGitHub turns a GitHub event into a heal request, or nil when the
// event is not a completed failure salve acts on.
func ParseGitHub(event string, body []byte) (*Request, error) {
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
	return &Request{Repo: e.Repository.CloneURL, Ref: s.HeadBranch, Source: "github"}, nil
}

// GitLabEvent is the part of a pipeline hook salve reads.
type GitLabEvent struct {
	ObjectKind       string `json:"object_kind"`
	ObjectAttributes struct {
		Status string `json:"status"`
		Ref    string `json:"ref"`
		Tag    bool   `json:"tag"`
	} `json:"object_attributes"`
	Project struct {
		GitHTTPURL string `json:"git_http_url"`
	} `json:"project"`
}

// ParseGitLab turns a GitLab pipeline hook into a heal request, or nil
// when it is not a failed branch pipeline.
func ParseGitLab(body []byte) (*Request, error) {
	var e GitLabEvent
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, fmt.Errorf("%w: malformed pipeline payload: %w", ErrBadRequest, err)
	}
	if e.ObjectKind != "pipeline" || e.ObjectAttributes.Status != "failed" || e.ObjectAttributes.Tag {
		return nil, nil
	}
	if e.Project.GitHTTPURL == "" || e.ObjectAttributes.Ref == "" {
		return nil, fmt.Errorf("%w: pipeline payload without project.git_http_url or object_attributes.ref", ErrBadRequest)
	}
	return &Request{Repo: e.Project.GitHTTPURL, Ref: e.ObjectAttributes.Ref, Source: "gitlab"}, nil
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
		writeError(w, http.StatusServiceUnavailable, "GitHub webhooks are off: the server has no "+EnvGitHubSecret)
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	if !VerifyGitHubSignature(secret, body, r.Header.Get("X-Hub-Signature-256")) {
		writeError(w, http.StatusUnauthorized, "bad or missing X-Hub-Signature-256")
		return
	}
	event := r.Header.Get("X-GitHub-Event")
	if event == "ping" {
		writeJSON(w, http.StatusOK, map[string]string{"status": "pong"})
		return
	}
	req, err := ParseGitHub(event, body)
	s.intake(w, r, delivery{source: "github", id: r.Header.Get("X-GitHub-Delivery"), event: event, body: body}, req, err)
}

func (s *Server) gitlabHook(w http.ResponseWriter, r *http.Request) {
	token := s.env(EnvGitLabToken)
	if token == "" {
		writeError(w, http.StatusServiceUnavailable, "GitLab webhooks are off: the server has no "+EnvGitLabToken)
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("X-Gitlab-Token")), []byte(token)) != 1 {
		writeError(w, http.StatusUnauthorized, "bad or missing X-Gitlab-Token")
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	if r.Header.Get("X-Gitlab-Event") != "Pipeline Hook" {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ignored", "reason": "not a pipeline hook"})
		return
	}
	req, err := ParseGitLab(body)
	// GitLab sends an idempotency key (X-Gitlab-Event-UUID) per delivery.
	s.intake(w, r, delivery{source: "gitlab", id: r.Header.Get("X-Gitlab-Event-UUID"), event: "Pipeline Hook", body: body}, req, err)
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

// intake drops replayed deliveries and queues the job of an event.
func (s *Server) intake(w http.ResponseWriter, r *http.Request, d delivery, req *Request, err error) {
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if req == nil {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ignored", "reason": "not a completed failure"})
		return
	}
	made, dup, err := s.claim(r.Context(), d)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "could not record the delivery: "+err.Error())
		return
	}
	if dup != "" {
		writeJSON(w, http.StatusOK, map[string]string{"status": "duplicate", "reason": dup})
		return
	}
	j, err := s.Queue.Submit(r.Context(), *req)
	if err != nil {
		s.forget(r.Context(), made)
	}
	if errors.Is(err, ErrBadRequest) {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "the job could not be queued: "+err.Error())
		return
	}
	s.log().Info("webhook queued a heal", "source", d.source, "delivery", d.id, "job", j.ID, "repo", req.Repo, "ref", req.Ref)
	writeJSON(w, http.StatusAccepted, map[string]string{"id": j.ID})
}
