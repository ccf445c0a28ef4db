package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/httpguard"
	"github.com/salve-dev/salve/internal/store"
)

// MaxBodyBytes bounds request and webhook bodies.
const MaxBodyBytes = 1 << 20

// Server is the HTTP side of salve serve: the jobs API and webhook intake.
type Server struct {
	Queue *Queue
	// Token, when set, is required as "Authorization: Bearer <token>" (or
	// the web viewer's login cookie) on every route but the webhooks,
	// which authenticate with their own secrets, and /healthz.
	Token string
	// Getenv reads the webhook secrets; nil means no webhook is accepted.
	Getenv func(string) string
	// Recorder, when set, records every finished heal in the run store.
	Recorder heal.Recorder
	// Store, when set, is served read-only at /api/v1/runs.
	Store *store.Store
	// Policy is what the webhook intake lets through (and, for its
	// allowlist, the jobs API); the zero value allows any repository,
	// ignores forks and caps attempts at the defaults.
	Policy Policy
	// Labels, when set, reads the labels of the pull or merge request a
	// webhook's failure belongs to: one with forge.SkipLabel is not
	// healed. Nil reads none.
	Labels LabelReader
	// Metrics, when set, are served at /metrics (behind the token, like
	// the API) and fed by the intake and Watch.
	Metrics *Metrics
	Logger  *slog.Logger
}

// Handler returns the server's routes behind the shared guard (package
// httpguard): on loopback a foreign Host is refused (DNS rebinding), a
// browser request must come from the server's own pages, the token is
// required (but on the webhooks and /healthz), and the jobs API takes JSON
// bodies only. mount, when non-nil, is called with the mux so the web run
// viewer (or anything else) can add its routes at "/".
func (s *Server) Handler(mount func(*http.ServeMux)) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/heals", s.createHeal)
	mux.HandleFunc("GET /api/v1/heals/{id}", s.getHeal)
	mux.HandleFunc("GET /api/v1/heals", s.listHeals)
	mux.HandleFunc("GET /api/v1/runs", s.listRuns)
	mux.HandleFunc("GET /api/v1/runs/{id}", s.getRun)
	mux.HandleFunc("POST /webhooks/github", s.githubHook)
	mux.HandleFunc("POST /webhooks/gitlab", s.gitlabHook)
	if s.Metrics != nil {
		mux.Handle("GET /metrics", s.Metrics.Handler())
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	// The web run viewer mounts here (package ui: ui.New(store, token, logger)).
	if mount != nil {
		mount(mux)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Built per request: the token may be set after the handler.
		g := s.guard()
		if g.Allow(w, r) {
			mux.ServeHTTP(w, r)
		}
	})
}

// guardRules exempt the webhooks (signed with their own secrets, any body
// type) and the health check from the token. The viewer's login page
// checks the token it is given itself.
var guardRules = []httpguard.Rule{
	{Path: "/webhooks/", NoToken: true, AnyBody: true},
	{Path: "/healthz", NoToken: true},
	{Path: "/login", NoToken: true},
}

func (s *Server) guard() httpguard.Guard {
	return httpguard.Guard{
		Token:        httpguard.Token{Value: s.Token, Cookie: httpguard.SessionCookie},
		Rules:        guardRules,
		JSON:         true,
		MaxBodyBytes: MaxBodyBytes,
		// The viewer mounted at "/" is linked to from elsewhere, and
		// the API's GETs change nothing.
		Navigation: true,
		Deny: func(w http.ResponseWriter, _ *http.Request, status int, reason string) {
			if status == http.StatusUnauthorized {
				reason = "a bearer token is required: send Authorization: Bearer TOKEN (a browser: open /login?token=TOKEN once)"
			}
			writeError(w, status, reason)
		},
	}
}

func (s *Server) log() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

func (s *Server) createHeal(w http.ResponseWriter, r *http.Request) {
	var req Request
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", MaxBodyBytes))
			return
		}
		writeError(w, http.StatusBadRequest, "malformed request body: "+err.Error())
		return
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		writeError(w, http.StatusBadRequest, "malformed request body: more than one JSON value")
		return
	}
	req.Source = "api"
	if req.Installation != 0 {
		writeError(w, http.StatusBadRequest, "installation is set by GitHub webhooks only")
		return
	}
	if req.Upstream != "" {
		writeError(w, http.StatusBadRequest, "upstream is set by webhooks only")
		return
	}
	if !s.Policy.Allowed(RepoName(strings.TrimSpace(req.Repo))) {
		writeError(w, http.StatusForbidden, "the repository is not in the server's --allow-repo list")
		return
	}
	j, err := s.Queue.Submit(r.Context(), req)
	if errors.Is(err, ErrBadRequest) {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err != nil {
		s.log().Error("submit", "error", err)
		writeError(w, http.StatusServiceUnavailable, "the job could not be queued: "+err.Error())
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"id": j.ID, "status": string(j.Status), "branch": j.Branch})
}

func (s *Server) getHeal(w http.ResponseWriter, r *http.Request) {
	j, _, err := s.Queue.Get(r.Context(), r.PathValue("id"))
	if errors.Is(err, ErrNotFound) {
		writeError(w, http.StatusNotFound, "no such job")
		return
	}
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, j)
}

func (s *Server) listHeals(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := Filter{Status: Status(q.Get("status")), Repo: q.Get("repo"), Ref: q.Get("ref"), Limit: 50}
	switch f.Status {
	case "", StatusQueued, StatusRunning, StatusGreen, StatusRed, StatusError:
	default:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("status: want queued, running, green, red or error, got %q", f.Status))
		return
	}
	for name, dst := range map[string]*int{"limit": &f.Limit, "offset": &f.Offset} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || (name == "limit" && (n == 0 || n > 500)) {
				writeError(w, http.StatusBadRequest, fmt.Sprintf("%s: want a whole number (limit 1 to 500), got %q", name, v))
				return
			}
			*dst = n
		}
	}
	jobs, total, err := s.Queue.List(r.Context(), f)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	if jobs == nil {
		jobs = []*Job{}
	}
	out := map[string]any{"jobs": jobs, "total": total, "offset": f.Offset, "limit": f.Limit}
	if f.Offset+len(jobs) < total {
		out["next_offset"] = f.Offset + len(jobs)
	}
	writeJSON(w, http.StatusOK, out)
}

// maxDeliveriesAdvisory is the part of JetStream's max-deliveries advisory
// salve reads.
type maxDeliveriesAdvisory struct {
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries uint64 `json:"deliveries"`
}

// Watch runs until ctx ends: it turns JetStream's max-deliveries
// advisories into error jobs (a job whose every delivery died with its
// worker), records finished heals in the run store, and keeps the jobs'
// states for the metrics.
func (s *Server) Watch(ctx context.Context) error {
	sub, err := s.Queue.NC.Subscribe(fmt.Sprintf("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.%s.%s", Stream, Consumer), func(m *nats.Msg) {
		var a maxDeliveriesAdvisory
		if json.Unmarshal(m.Data, &a) == nil {
			s.maxDelivered(ctx, a)
		}
	})
	if err != nil {
		return fmt.Errorf("service: subscribe to advisories: %w", err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if s.Recorder == nil && s.Metrics == nil {
		<-ctx.Done()
		return nil
	}
	w, err := s.Queue.Jobs.WatchAll(ctx)
	if err != nil {
		return fmt.Errorf("service: watch jobs: %w", err)
	}
	defer func() { _ = w.Stop() }()
	for {
		select {
		case <-ctx.Done():
			return nil
		case e := <-w.Updates():
			if e == nil {
				continue
			}
			if e.Operation() != jetstream.KeyValuePut {
				s.Metrics.job(e.Key(), "")
				continue
			}
			var j Job
			if json.Unmarshal(e.Value(), &j) != nil {
				continue
			}
			s.Metrics.job(e.Key(), j.Status)
			if s.Recorder == nil || !j.Status.Final() || j.Results == nil {
				continue
			}
			// The run id is the job's: a record made twice (the watch
			// replays on restart) fails on the store's unique id.
			if err := s.Recorder.RecordHeal(ctx, j.Results); err != nil {
				s.log().Debug("heal not recorded (already there?)", "job", j.ID, "error", err)
			}
		}
	}
}

func (s *Server) maxDelivered(ctx context.Context, a maxDeliveriesAdvisory) {
	st, err := s.Queue.JS.Stream(ctx, Stream)
	if err != nil {
		s.log().Error("max deliveries: stream", "error", err)
		return
	}
	raw, err := st.GetMsg(ctx, a.StreamSeq)
	if err != nil {
		s.log().Warn("max deliveries: message gone", "seq", a.StreamSeq, "error", err)
		return
	}
	var m Message
	if err := json.Unmarshal(raw.Data, &m); err != nil {
		return
	}
	reason := fmt.Sprintf("the job was delivered %d times and no worker finished it (each worker died, or stopped signalling progress for longer than the ack wait)", a.Deliveries)
	_, err = s.Queue.Update(ctx, m.ID, func(j *Job) error {
		if j.Status.Final() {
			return nil
		}
		j.Status, j.Error = StatusError, reason
		return nil
	})
	if err != nil {
		s.log().Error("max deliveries: update job", "job", m.ID, "error", err)
	}
	// The work-queue stream keeps an unacknowledged message: remove it.
	_ = st.DeleteMsg(ctx, a.StreamSeq)
	s.Metrics.maxDelivered()
	s.log().Warn("job failed after max deliveries", "job", m.ID, "deliveries", a.Deliveries)
}
