package forge

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// DefaultGitHubAPI is the public GitHub REST API root.
const DefaultGitHubAPI = "https://api.github.com"

// GitHub opens pull requests through the GitHub REST API
// (POST /repos/{owner}/{repo}/pulls), finds an open one by head branch, updates
// it (PATCH …/pulls/{number}) and comments on it (POST
// …/issues/{number}/comments).
type GitHub struct {
	client
	base        string
	owner, repo string
	app         *App
}

var _ Forge = (*GitHub)(nil)

// App returns the GitHub App the client acts as, nil when a token
// authenticates it.
func (g *GitHub) App() *App { return g.app }

// GitHubConfig configures NewGitHub.
type GitHubConfig struct {
	// API is the REST root; empty means DefaultGitHubAPI. On GitHub
	// Actions it is $GITHUB_API_URL.
	API string
	// Repo is "owner/name" ($GITHUB_REPOSITORY on GitHub Actions).
	Repo string
	// Token is sent as a bearer token ($GITHUB_TOKEN).
	Token string
	// App, when set, authenticates instead of Token: every call carries
	// the App's current installation token.
	App *App
	// HTTP is the client; nil means one with a 30 s timeout.
	HTTP *http.Client
}

// NewGitHub checks cfg and returns a client. A token or an App is
// required.
func NewGitHub(cfg GitHubConfig) (*GitHub, error) {
	api := strings.TrimRight(cfg.API, "/")
	if api == "" {
		api = DefaultGitHubAPI
	}
	u, err := url.Parse(api)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("forge: GitHub API %q is not an http(s) URL", cfg.API)
	}
	owner, name, ok := strings.Cut(cfg.Repo, "/")
	if !ok || !validName(owner) || !validName(name) {
		return nil, fmt.Errorf("forge: GitHub repository %q is not owner/name", cfg.Repo)
	}
	g := &GitHub{base: api, owner: owner, repo: name}
	if cfg.App != nil {
		g.app = cfg.App
		g.client = client{HTTP: cfg.HTTP, auth: ghHeaders, token: cfg.App.Token, secrets: cfg.App.Secrets}
		return g, nil
	}
	if cfg.Token == "" {
		return nil, fmt.Errorf("%w: no GitHub token (set GITHUB_TOKEN, or a GitHub App with %s)", ErrAuth, EnvAppID)
	}
	token := cfg.Token
	g.client = client{HTTP: cfg.HTTP, redact: token, auth: func(r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+token)
		ghHeaders(r)
	}}
	return g, nil
}

// validName accepts GitHub owner and repository names: letters, digits,
// '-', '_' and '.', never "." or "..".
func validName(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 100 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// Name returns "github".
func (g *GitHub) Name() string { return "github" }

type ghPull struct {
	Number  int    `json:"number"`
	HTMLURL string `json:"html_url"`
	Draft   bool   `json:"draft"`
	Head    struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	} `json:"head"`
	Base struct {
		Ref string `json:"ref"`
	} `json:"base"`
}

func (p ghPull) pr(created bool) PullRequest {
	return PullRequest{Number: p.Number, URL: p.HTMLURL, Head: p.Head.Ref, Base: p.Base.Ref, Draft: p.Draft, Created: created, HeadSHA: p.Head.SHA}
}

func (g *GitHub) path(parts ...string) string {
	esc := []string{"repos", url.PathEscape(g.owner), url.PathEscape(g.repo)}
	for _, p := range parts {
		esc = append(esc, url.PathEscape(p))
	}
	return "/" + strings.Join(esc, "/")
}

// call sends method path with a JSON body (nil for none) and decodes a
// 2xx answer into out. A non-2xx answer is returned as the response with
// a classified error.
func (g *GitHub) call(ctx context.Context, method, path string, q url.Values, body, out any) (response, error) {
	return g.callJSON(ctx, g.base, method, path, q, body, out, ghMessage)
}

// ghMessage reads GitHub's error body: a message, plus the messages of
// the validation errors.
func ghMessage(body []byte) string {
	var e struct {
		Message string            `json:"message"`
		Errors  []json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(body, &e) != nil {
		return oneLine(string(body), 200)
	}
	parts := []string{e.Message}
	for _, raw := range e.Errors {
		// An error is an object with a message or a code, or (review
		// comments) a plain string.
		var x struct {
			Message string `json:"message"`
			Code    string `json:"code"`
		}
		var str string
		switch {
		case json.Unmarshal(raw, &str) == nil && str != "":
			parts = append(parts, str)
		case json.Unmarshal(raw, &x) != nil:
		case x.Message != "":
			parts = append(parts, x.Message)
		case x.Code != "":
			parts = append(parts, x.Code)
		}
	}
	return strings.Join(parts, ": ")
}

// OpenOrUpdate opens the pull request, or, when GitHub answers 422
// because one from the same head is already open, updates that one.
func (g *GitHub) OpenOrUpdate(ctx context.Context, r Request) (PullRequest, error) {
	if err := checkRequest(r); err != nil {
		return PullRequest{}, err
	}
	if pr, ok, err := g.find(ctx, r.Head, r.Base); err != nil {
		return PullRequest{}, err
	} else if ok {
		return g.update(ctx, pr.Number, r)
	}
	var p ghPull
	resp, err := g.call(ctx, http.MethodPost, g.path("pulls"), nil,
		map[string]any{"title": r.Title, "head": r.Head, "base": r.Base, "body": r.Body, "draft": r.Draft, "maintainer_can_modify": true}, &p)
	if err == nil {
		return p.pr(true), nil
	}
	if resp.Status == http.StatusUnprocessableEntity && strings.Contains(strings.ToLower(ghMessage(resp.Body)), "already exists") {
		// Opened by a concurrent run between the look-up and the create.
		if pr, ok, ferr := g.find(ctx, r.Head, r.Base); ferr == nil && ok {
			return g.update(ctx, pr.Number, r)
		}
	}
	return PullRequest{}, err
}

func (g *GitHub) update(ctx context.Context, number int, r Request) (PullRequest, error) {
	var p ghPull
	if _, err := g.call(ctx, http.MethodPatch, g.path("pulls", strconv.Itoa(number)), nil,
		map[string]any{"title": r.Title, "body": r.Body}, &p); err != nil {
		return PullRequest{}, err
	}
	return p.pr(false), nil
}

// find returns the open pull request from head to base ("" base: any).
func (g *GitHub) find(ctx context.Context, head, base string) (PullRequest, bool, error) {
	q := url.Values{"state": {"open"}, "head": {g.owner + ":" + head}, "per_page": {"10"}}
	if base != "" {
		q.Set("base", base)
	}
	var list []ghPull
	if _, err := g.call(ctx, http.MethodGet, g.path("pulls"), q, nil, &list); err != nil {
		return PullRequest{}, false, err
	}
	for _, p := range list {
		if p.Head.Ref == head && (base == "" || p.Base.Ref == base) {
			return p.pr(false), true, nil
		}
	}
	return PullRequest{}, false, nil
}

// FindOpen returns the open pull request whose head is branch.
func (g *GitHub) FindOpen(ctx context.Context, branch string) (PullRequest, bool, error) {
	return g.find(ctx, branch, "")
}

// Comment adds body as a comment on pull request number.
func (g *GitHub) Comment(ctx context.Context, number int, body string) error {
	if number <= 0 {
		return fmt.Errorf("forge: pull request number %d", number)
	}
	_, err := g.call(ctx, http.MethodPost, g.path("issues", strconv.Itoa(number), "comments"), nil, map[string]string{"body": body}, nil)
	return err
}

// checkRequest refuses requests the APIs would refuse anyway, with a
// clearer message.
func checkRequest(r Request) error {
	switch {
	case r.Head == "" || r.Base == "":
		return fmt.Errorf("forge: a request needs a head and a base branch")
	case r.Head == r.Base:
		return fmt.Errorf("forge: head and base are both %q", r.Head)
	case strings.TrimSpace(r.Title) == "":
		return fmt.Errorf("forge: a request needs a title")
	}
	return nil
}
