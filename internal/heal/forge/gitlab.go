package forge

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// DefaultGitLabAPI is GitLab.com's REST API root.
const DefaultGitLabAPI = "https://gitlab.com/api/v4"

// GitLab opens merge requests through the GitLab REST API
// (POST /projects/:id/merge_requests), finds an open one by source branch,
// updates it (PUT …/merge_requests/:iid) and comments on it (POST
// …/merge_requests/:iid/notes).
type GitLab struct {
	client
	base    string
	project string // the project's id or its full path
}

var _ Forge = (*GitLab)(nil)

// GitLabConfig configures NewGitLab.
type GitLabConfig struct {
	// API is the REST root, ending in /api/v4; empty means
	// DefaultGitLabAPI. In GitLab CI it is $CI_API_V4_URL.
	API string
	// Project is the numeric id or the full path ("group/sub/project");
	// $CI_PROJECT_ID in GitLab CI.
	Project string
	// Token is a personal, project or group access token, sent as
	// PRIVATE-TOKEN ($GITLAB_TOKEN).
	Token string
	// JobToken is a CI job token, sent as JOB-TOKEN ($CI_JOB_TOKEN); used
	// only when Token is empty. Many GitLab versions do not let a job
	// token open merge requests; the API's refusal is then reported.
	JobToken string
	// HTTP is the client; nil means one with a 30 s timeout.
	HTTP *http.Client
}

// NewGitLab checks cfg and returns a client. A token is required.
func NewGitLab(cfg GitLabConfig) (*GitLab, error) {
	api := strings.TrimRight(cfg.API, "/")
	if api == "" {
		api = DefaultGitLabAPI
	}
	u, err := url.Parse(api)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("forge: GitLab API %q is not an http(s) URL", cfg.API)
	}
	p := strings.Trim(cfg.Project, "/")
	if p == "" || strings.Contains(p, "..") || strings.ContainsAny(p, "?#\\ \t\n") {
		return nil, fmt.Errorf("forge: GitLab project %q is not an id or a group/project path", cfg.Project)
	}
	gl := &GitLab{base: api, project: p}
	switch {
	case cfg.Token != "":
		tok := cfg.Token
		gl.client = client{HTTP: cfg.HTTP, redact: tok, auth: func(r *http.Request) { r.Header.Set("PRIVATE-TOKEN", tok); r.Header.Set("User-Agent", "salve") }}
	case cfg.JobToken != "":
		tok := cfg.JobToken
		gl.client = client{HTTP: cfg.HTTP, redact: tok, auth: func(r *http.Request) { r.Header.Set("JOB-TOKEN", tok); r.Header.Set("User-Agent", "salve") }}
	default:
		return nil, fmt.Errorf("%w: no GitLab token (set GITLAB_TOKEN, or CI_JOB_TOKEN in GitLab CI)", ErrAuth)
	}
	return gl, nil
}

// Name returns "gitlab".
func (gl *GitLab) Name() string { return "gitlab" }

type glMR struct {
	IID          int    `json:"iid"`
	WebURL       string `json:"web_url"`
	SourceBranch string `json:"source_branch"`
	TargetBranch string `json:"target_branch"`
	Draft        bool   `json:"draft"`
	SHA          string `json:"sha"`
	WorkInProg   bool   `json:"work_in_progress"`
}

func (m glMR) pr(created bool) PullRequest {
	return PullRequest{Number: m.IID, URL: m.WebURL, Head: m.SourceBranch, Base: m.TargetBranch, Draft: m.Draft || m.WorkInProg, Created: created, HeadSHA: m.SHA}
}

// path builds /projects/:id/… with the project path URL-encoded as one
// segment, as GitLab requires ("group%2Fproject").
func (gl *GitLab) path(parts ...string) string {
	esc := []string{"projects", url.PathEscape(gl.project)}
	for _, p := range parts {
		esc = append(esc, url.PathEscape(p))
	}
	return "/" + strings.Join(esc, "/")
}

// call sends one API call; see client.callJSON. The project path in the
// URL is already escaped (group%2Fproject) and kept as is.
func (gl *GitLab) call(ctx context.Context, method, path string, q url.Values, body, out any) (response, error) {
	return gl.callJSON(ctx, gl.base, method, path, q, body, out, glMessage)
}

// glMessage reads GitLab's error bodies: {"message": "…"}, {"message":
// ["…"]}, {"message": {"field": ["…"]}} or {"error": "…"}.
func glMessage(body []byte) string {
	var e struct {
		Message json.RawMessage `json:"message"`
		Error   string          `json:"error"`
		Desc    string          `json:"error_description"`
	}
	if json.Unmarshal(body, &e) != nil {
		return oneLine(string(body), 200)
	}
	var parts []string
	var s string
	var list []string
	var fields map[string][]string
	switch {
	case json.Unmarshal(e.Message, &s) == nil:
		parts = append(parts, s)
	case json.Unmarshal(e.Message, &list) == nil:
		parts = append(parts, list...)
	case json.Unmarshal(e.Message, &fields) == nil:
		keys := make([]string, 0, len(fields))
		for k := range fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			parts = append(parts, k+" "+strings.Join(fields[k], ", "))
		}
	}
	if e.Error != "" {
		parts = append(parts, e.Error)
	}
	if e.Desc != "" {
		parts = append(parts, e.Desc)
	}
	return strings.Join(parts, ": ")
}

func draftTitle(t string, draft bool) string {
	if !draft || strings.HasPrefix(strings.ToLower(t), "draft:") {
		return t
	}
	return "Draft: " + t
}

// OpenOrUpdate opens the merge request, or updates the open one from the
// same source branch to the same target (GitLab answers 409 to a second
// one).
func (gl *GitLab) OpenOrUpdate(ctx context.Context, r Request) (PullRequest, error) {
	if err := checkRequest(r); err != nil {
		return PullRequest{}, err
	}
	if pr, ok, err := gl.find(ctx, r.Head, r.Base); err != nil {
		return PullRequest{}, err
	} else if ok {
		return gl.update(ctx, pr.Number, r)
	}
	var m glMR
	resp, err := gl.call(ctx, http.MethodPost, gl.path("merge_requests"), nil, map[string]any{
		"source_branch": r.Head, "target_branch": r.Base, "title": draftTitle(r.Title, r.Draft), "description": r.Body,
	}, &m)
	if err == nil {
		return m.pr(true), nil
	}
	if resp.Status == http.StatusConflict {
		if pr, ok, ferr := gl.find(ctx, r.Head, r.Base); ferr == nil && ok {
			return gl.update(ctx, pr.Number, r)
		}
	}
	return PullRequest{}, err
}

func (gl *GitLab) update(ctx context.Context, iid int, r Request) (PullRequest, error) {
	var m glMR
	if _, err := gl.call(ctx, http.MethodPut, gl.path("merge_requests", strconv.Itoa(iid)), nil,
		map[string]any{"title": draftTitle(r.Title, r.Draft), "description": r.Body}, &m); err != nil {
		return PullRequest{}, err
	}
	return m.pr(false), nil
}

func (gl *GitLab) find(ctx context.Context, head, base string) (PullRequest, bool, error) {
	q := url.Values{"state": {"opened"}, "source_branch": {head}, "per_page": {"10"}}
	if base != "" {
		q.Set("target_branch", base)
	}
	var list []glMR
	if _, err := gl.call(ctx, http.MethodGet, gl.path("merge_requests"), q, nil, &list); err != nil {
		return PullRequest{}, false, err
	}
	for _, m := range list {
		if m.SourceBranch == head && (base == "" || m.TargetBranch == base) {
			return m.pr(false), true, nil
		}
	}
	return PullRequest{}, false, nil
}

// FindOpen returns the open merge request whose source branch is branch.
func (gl *GitLab) FindOpen(ctx context.Context, branch string) (PullRequest, bool, error) {
	return gl.find(ctx, branch, "")
}

// Comment adds body as a note on merge request iid.
func (gl *GitLab) Comment(ctx context.Context, iid int, body string) error {
	if iid <= 0 {
		return fmt.Errorf("forge: merge request number %d", iid)
	}
	_, err := gl.call(ctx, http.MethodPost, gl.path("merge_requests", strconv.Itoa(iid), "notes"), nil, map[string]string{"body": body}, nil)
	return err
}
