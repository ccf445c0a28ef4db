package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
)

// PullRequests opens GitHub pull requests with the worker's own token.
type PullRequests struct {
	// API is the GitHub API root, e.g. https://api.github.com.
	API string
	// Token is the worker's token (from its environment).
	Token  string
	Client *http.Client
}

// PullRequest is an opened (or found) pull request.
type PullRequest struct {
	URL    string `json:"html_url"`
	Number int    `json:"number"`
}

// OwnerRepo returns owner and name from a repository URL or path: its last
// two path segments, without ".git".
func OwnerRepo(repo string) (string, string, error) {
	p := repo
	if u, err := url.Parse(repo); err == nil && u.Scheme != "" {
		p = u.Path
	} else if _, after, ok := strings.Cut(repo, ":"); ok && !strings.HasPrefix(repo, "/") {
		p = after // scp-like git@host:owner/name.git
	}
	p = strings.TrimSuffix(strings.TrimSuffix(p, "/"), ".git")
	name := path.Base(p)
	owner := path.Base(path.Dir(p))
	if name == "" || name == "." || name == "/" || owner == "" || owner == "." || owner == "/" {
		return "", "", fmt.Errorf("cannot tell owner/name from %q", repo)
	}
	return owner, name, nil
}

// Open opens the pull request of head into base, or returns the one that is
// already open for head (so a redelivered job never opens a second).
func (p *PullRequests) Open(ctx context.Context, owner, name, head, base, title, body string) (*PullRequest, bool, error) {
	var found []PullRequest
	q := url.Values{"head": {owner + ":" + head}, "state": {"all"}}
	if err := p.call(ctx, "GET", fmt.Sprintf("/repos/%s/%s/pulls?%s", url.PathEscape(owner), url.PathEscape(name), q.Encode()), nil, &found); err != nil {
		return nil, false, err
	}
	if len(found) > 0 {
		return &found[0], true, nil
	}
	var pr PullRequest
	in := map[string]any{"title": title, "head": head, "base": base, "body": body}
	if err := p.call(ctx, "POST", fmt.Sprintf("/repos/%s/%s/pulls", url.PathEscape(owner), url.PathEscape(name)), in, &pr); err != nil {
		return nil, false, err
	}
	return &pr, false, nil
}

func (p *PullRequests) call(ctx context.Context, method, path string, in, out any) error {
	var rd io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(p.API, "/")+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("Authorization", "Bearer "+p.Token)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c := p.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("github %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		var e struct{ Message string }
		_ = json.Unmarshal(b, &e)
		return fmt.Errorf("github %s %s: %s: %s", method, path, resp.Status, e.Message)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("github %s %s: %w", method, path, err)
	}
	return nil
}
