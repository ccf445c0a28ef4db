// Package forgetest runs local servers that speak the parts of the GitHub
// and GitLab REST APIs salve uses, with their documented shapes and
// errors, so tests and the CI action's self-test never need the real
// services: pull and merge requests and comments; GitHub App
// authentication (JWTs verified against the App's public key, installation
// tokens issued and expired); check runs with their annotation limits and
// GitLab commit statuses; pull request files and reviews with suggestion
// comments, whose lines must be in the pull request's diff. A commit's
// check runs and combined status read as a test scripts them, and as none
// reported (a workflow waiting for an approval) by default. Failures are
// injected per route: a status, headers (such as Retry-After) and a body,
// for the next N calls.
package forgetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Call is one request the server received.
type Call struct {
	Method string
	// Path is the escaped path (GitLab project paths keep their %2F).
	Path  string
	Query string
	// Auth is the value of the token header the request carried.
	Auth string
	Body []byte
}

// PR is a pull or merge request held by the server.
type PR struct {
	Number      int
	Head, Base  string
	Title, Body string
	Draft       bool
	Comments    []string
	Open        bool
	// Files are the files the request changes, with their patches, as GET
	// …/pulls/{n}/files lists them; review comments must fall on their
	// lines.
	Files []File
	// Labels are the names of the request's labels (GitHub: GET
	// …/issues/{n}/labels and the pull's labels; GitLab: the merge
	// request's labels).
	Labels []string
}

// File is a file a pull request changes: its path and its diff's hunks
// (no file header), as GitHub's "patch" field holds them.
type File struct {
	Filename string
	Patch    string
}

// Fault is an injected answer.
type Fault struct {
	Status int
	Header map[string]string
	Body   string
	// Times is how many calls it answers; 0 means 1.
	Times int
}

// Server is a fake forge: GitHub routes under /repos/{owner}/{repo}/ and
// GitLab routes under /api/v4/projects/{id}/, on one httptest server.
type Server struct {
	*httptest.Server
	// Token is the token every call must carry (Bearer for GitHub,
	// PRIVATE-TOKEN or JOB-TOKEN for GitLab).
	Token string

	mu     sync.Mutex
	calls  []Call
	prs    map[string][]*PR // key: "github:owner/repo" or "gitlab:project"
	faults map[string][]Fault
	// HeadSHA, when set, tells the commit a head branch is at (a test
	// reads it from its bare remote); requests report it as head.sha (GitHub)
	// and sha (GitLab).
	HeadSHA func(branch string) string

	// Now is the server's clock for JWTs and installation tokens; nil
	// means time.Now. TokenTTL is the lifetime of the installation tokens
	// it issues; 0 means an hour, as GitHub's.
	Now      func() time.Time
	TokenTTL time.Duration

	apps     map[string]*app // by App id
	minted   []Mint
	checks   map[string][]*CheckRun // key: "owner/repo"
	statuses map[string][]Status    // key: the GitLab project
	reviews  map[string][]Review    // key: "owner/repo"

	commits map[string]*commitChecks // key: "owner/repo@sha"
}

// SetHeadSHA sets HeadSHA while the server may be answering requests.
func (s *Server) SetHeadSHA(f func(branch string) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.HeadSHA = f
}

// headSHA is called with s.mu held.
func (s *Server) headSHA(branch string) string {
	if s.HeadSHA == nil {
		return ""
	}
	return s.HeadSHA(branch)
}

// New starts a server that accepts token.
func New(token string) *Server {
	s := &Server{Token: token, prs: map[string][]*PR{}, faults: map[string][]Fault{},
		apps: map[string]*app{}, checks: map[string][]*CheckRun{}, statuses: map[string][]Status{}, reviews: map[string][]Review{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// GitHubAPI is the API root to give a GitHub client.
func (s *Server) GitHubAPI() string { return s.URL }

// GitLabAPI is the API root to give a GitLab client.
func (s *Server) GitLabAPI() string { return s.URL + "/api/v4" }

// Fail makes the next calls whose "METHOD path-suffix" ends with route
// (for example "POST /pulls" or "GET /merge_requests") answer f.
func (s *Server) Fail(route string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Times <= 0 {
		f.Times = 1
	}
	s.faults[route] = append(s.faults[route], f)
}

// Calls returns every request received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// PRs returns copies of the requests held for repo ("owner/name" for
// GitHub, the project id or path for GitLab), in creation order.
func (s *Server) PRs(kind, repo string) []PR {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []PR
	for _, p := range s.prs[kind+":"+repo] {
		c := *p
		c.Comments = append([]string(nil), p.Comments...)
		c.Files = append([]File(nil), p.Files...)
		c.Labels = append([]string(nil), p.Labels...)
		out = append(out, c)
	}
	return out
}

// AddPR puts an open request on the server, as if opened earlier.
func (s *Server) AddPR(kind, repo string, p PR) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := kind + ":" + repo
	p.Number = len(s.prs[key]) + 1
	p.Open = true
	s.prs[key] = append(s.prs[key], &p)
	return p.Number
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	path := r.URL.EscapedPath()
	auth := r.Header.Get("Authorization")
	if strings.HasPrefix(path, "/api/v4/") {
		auth = r.Header.Get("PRIVATE-TOKEN") + r.Header.Get("JOB-TOKEN")
	}
	s.mu.Lock()
	s.calls = append(s.calls, Call{Method: r.Method, Path: path, Query: r.URL.RawQuery, Auth: auth, Body: body})
	route := r.Method + " " + path
	for k, fs := range s.faults {
		if len(fs) == 0 || !strings.HasSuffix(route, k) {
			continue
		}
		f := fs[0]
		f.Times--
		if f.Times <= 0 {
			s.faults[k] = fs[1:]
		} else {
			fs[0] = f
		}
		s.mu.Unlock()
		for h, v := range f.Header {
			w.Header().Set(h, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.Status)
		_, _ = io.WriteString(w, f.Body)
		return
	}
	s.mu.Unlock()
	switch {
	case strings.HasPrefix(path, "/app/"):
		s.app(w, r, strings.TrimPrefix(path, "/app/"), body)
	case strings.HasPrefix(path, "/repos/") && r.Method == http.MethodGet && strings.HasSuffix(path, "/installation"):
		s.repoInstallation(w, r, strings.TrimPrefix(path, "/repos/"))
	case strings.HasPrefix(path, "/repos/"):
		rest := strings.TrimPrefix(path, "/repos/")
		if !s.githubAuth(w, auth, rest) {
			return
		}
		s.github(w, r, rest, body)
	case strings.HasPrefix(path, "/api/v4/projects/"):
		if auth != s.Token {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "401 Unauthorized"})
			return
		}
		s.gitlab(w, r, strings.TrimPrefix(path, "/api/v4/projects/"), body)
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	}
}

func (s *Server) github(w http.ResponseWriter, r *http.Request, rest string, body []byte) {
	parts := strings.Split(rest, "/")
	if len(parts) < 3 {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	repo := parts[0] + "/" + parts[1]
	key := "github:" + repo
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.prs[key]; !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	ghPR := func(p *PR) map[string]any {
		return map[string]any{"number": p.Number, "html_url": fmt.Sprintf("%s/%s/pull/%d", s.URL, repo, p.Number), "draft": p.Draft,
			"title": p.Title, "body": p.Body, "state": map[bool]string{true: "open", false: "closed"}[p.Open],
			"head": map[string]any{"ref": p.Head, "label": parts[0] + ":" + p.Head, "sha": s.headSHA(p.Head)}, "base": map[string]any{"ref": p.Base},
			"labels": ghLabels(repo, p.Labels)}
	}
	switch {
	case r.Method == http.MethodPost && len(parts) == 3 && parts[2] == "pulls":
		var in struct {
			Title, Head, Base, Body string
			Draft                   bool
		}
		if json.Unmarshal(body, &in) != nil || in.Title == "" || in.Head == "" || in.Base == "" {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []map[string]string{{"resource": "PullRequest", "code": "missing_field"}}})
			return
		}
		for _, p := range s.prs[key] {
			if p.Open && p.Head == in.Head && p.Base == in.Base {
				writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed",
					"errors": []map[string]string{{"resource": "PullRequest", "code": "custom", "message": "A pull request already exists for " + parts[0] + ":" + in.Head + "."}}})
				return
			}
		}
		p := &PR{Number: len(s.prs[key]) + 1, Head: in.Head, Base: in.Base, Title: in.Title, Body: in.Body, Draft: in.Draft, Open: true}
		s.prs[key] = append(s.prs[key], p)
		writeJSON(w, http.StatusCreated, ghPR(p))
	case r.Method == http.MethodGet && len(parts) == 3 && parts[2] == "pulls":
		head := r.URL.Query().Get("head")
		base := r.URL.Query().Get("base")
		list := []map[string]any{}
		for _, p := range s.prs[key] {
			if p.Open && (head == "" || head == parts[0]+":"+p.Head) && (base == "" || base == p.Base) {
				list = append(list, ghPR(p))
			}
		}
		writeJSON(w, http.StatusOK, list)
	case r.Method == http.MethodPatch && len(parts) == 4 && parts[2] == "pulls":
		p := s.find(key, parts[3])
		if p == nil {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		var in struct{ Title, Body *string }
		_ = json.Unmarshal(body, &in)
		if in.Title != nil {
			p.Title = *in.Title
		}
		if in.Body != nil {
			p.Body = *in.Body
		}
		writeJSON(w, http.StatusOK, ghPR(p))
	case r.Method == http.MethodPost && len(parts) == 5 && parts[2] == "issues" && parts[4] == "comments":
		p := s.find(key, parts[3])
		var in struct{ Body string }
		if p == nil || json.Unmarshal(body, &in) != nil || in.Body == "" {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		p.Comments = append(p.Comments, in.Body)
		writeJSON(w, http.StatusCreated, map[string]any{"id": len(p.Comments), "body": in.Body})
	case r.Method == http.MethodGet && len(parts) == 5 && parts[2] == "issues" && parts[4] == "labels":
		p := s.find(key, parts[3])
		if p == nil {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		writeJSON(w, http.StatusOK, ghLabels(repo, p.Labels))
	case r.Method == http.MethodGet && len(parts) == 5 && parts[2] == "commits" && (parts[4] == "check-runs" || parts[4] == "status"):
		s.commitRead(w, r, repo, parts[3], parts[4])
	case r.Method == http.MethodGet && len(parts) == 4 && parts[2] == "pulls":
		p := s.find(key, parts[3])
		if p == nil {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		writeJSON(w, http.StatusOK, ghPR(p))
	case strings.HasPrefix(parts[2], "check-runs") || (len(parts) >= 5 && parts[2] == "pulls" && (parts[4] == "files" || parts[4] == "reviews")):
		s.githubMore(w, r, repo, parts, body)
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	}
}

func (s *Server) find(key, num string) *PR {
	n, _ := strconv.Atoi(num)
	for _, p := range s.prs[key] {
		if p.Number == n {
			return p
		}
	}
	return nil
}

// AddRepo makes a repository (GitHub "owner/name") or project (GitLab id
// or path) known, with no requests yet; calls for unknown ones get 404.
func (s *Server) AddRepo(kind, repo string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.prs[kind+":"+repo]; !ok {
		s.prs[kind+":"+repo] = []*PR{}
	}
}

func (s *Server) gitlab(w http.ResponseWriter, r *http.Request, rest string, body []byte) {
	parts := strings.Split(rest, "/")
	project := strings.ReplaceAll(parts[0], "%2F", "/")
	key := "gitlab:" + project
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.prs[key]; !ok || len(parts) < 2 {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Project Not Found"})
		return
	}
	glMR := func(p *PR) map[string]any {
		return map[string]any{"iid": p.Number, "id": 1000 + p.Number, "web_url": fmt.Sprintf("%s/%s/-/merge_requests/%d", s.URL, project, p.Number),
			"source_branch": p.Head, "target_branch": p.Base, "title": p.Title, "description": p.Body, "draft": p.Draft, "sha": s.headSHA(p.Head),
			"state": map[bool]string{true: "opened", false: "closed"}[p.Open], "labels": append([]string{}, p.Labels...)}
	}
	switch {
	case r.Method == http.MethodPost && len(parts) == 2 && parts[1] == "merge_requests":
		var in struct {
			SourceBranch string `json:"source_branch"`
			TargetBranch string `json:"target_branch"`
			Title        string `json:"title"`
			Description  string `json:"description"`
		}
		if json.Unmarshal(body, &in) != nil || in.Title == "" || in.SourceBranch == "" || in.TargetBranch == "" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"message": map[string][]string{"title": {"can't be blank"}}})
			return
		}
		for _, p := range s.prs[key] {
			if p.Open && p.Head == in.SourceBranch && p.Base == in.TargetBranch {
				writeJSON(w, http.StatusConflict, map[string]any{"message": []string{fmt.Sprintf("Another open merge request already exists for this source branch: !%d", p.Number)}})
				return
			}
		}
		p := &PR{Number: len(s.prs[key]) + 1, Head: in.SourceBranch, Base: in.TargetBranch, Title: in.Title, Body: in.Description, Open: true,
			Draft: strings.HasPrefix(strings.ToLower(in.Title), "draft:")}
		s.prs[key] = append(s.prs[key], p)
		writeJSON(w, http.StatusCreated, glMR(p))
	case r.Method == http.MethodGet && len(parts) == 2 && parts[1] == "merge_requests":
		src := r.URL.Query().Get("source_branch")
		tgt := r.URL.Query().Get("target_branch")
		list := []map[string]any{}
		for _, p := range s.prs[key] {
			if p.Open && (src == "" || src == p.Head) && (tgt == "" || tgt == p.Base) {
				list = append(list, glMR(p))
			}
		}
		writeJSON(w, http.StatusOK, list)
	case r.Method == http.MethodGet && len(parts) == 3 && parts[1] == "merge_requests":
		p := s.find(key, parts[2])
		if p == nil {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Not found"})
			return
		}
		writeJSON(w, http.StatusOK, glMR(p))
	case r.Method == http.MethodPut && len(parts) == 3 && parts[1] == "merge_requests":
		p := s.find(key, parts[2])
		if p == nil {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Not found"})
			return
		}
		var in struct {
			Title       *string `json:"title"`
			Description *string `json:"description"`
		}
		_ = json.Unmarshal(body, &in)
		if in.Title != nil {
			p.Title = *in.Title
			p.Draft = strings.HasPrefix(strings.ToLower(p.Title), "draft:")
		}
		if in.Description != nil {
			p.Body = *in.Description
		}
		writeJSON(w, http.StatusOK, glMR(p))
	case r.Method == http.MethodPost && len(parts) == 3 && parts[1] == "statuses":
		s.gitlabStatus(w, project, parts[2], body)
	case r.Method == http.MethodPost && len(parts) == 4 && parts[1] == "merge_requests" && parts[3] == "notes":
		p := s.find(key, parts[2])
		var in struct{ Body string }
		if p == nil || json.Unmarshal(body, &in) != nil || in.Body == "" {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Not found"})
			return
		}
		p.Comments = append(p.Comments, in.Body)
		writeJSON(w, http.StatusCreated, map[string]any{"id": len(p.Comments), "body": in.Body})
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Not Found"})
	}
}

// ghLabels is GitHub's label objects for names, as GET
// …/issues/{n}/labels and a pull request's labels give them.
func ghLabels(repo string, names []string) []map[string]any {
	out := []map[string]any{}
	for i, n := range names {
		out = append(out, map[string]any{"id": 1000 + i, "name": n, "color": "ededed", "default": false,
			"url": "/repos/" + repo + "/labels/" + n})
	}
	return out
}
