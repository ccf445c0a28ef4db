// Package forge opens and updates the pull requests (GitHub) and merge
// requests (GitLab) that carry a heal's fix, and comments on them, through
// each forge's documented REST API. One interface, [Forge], hides the
// differences; [GitHub] and [GitLab] implement it on net/http.
//
// Both clients are careful with what a network peer sends back: response
// bodies are size-bounded, error messages are taken from the API's own
// error fields, tokens never appear in errors, and rate limits are waited
// out (honouring Retry-After or the reset header) a bounded number of
// times, within the caller's context.
package forge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Request is a pull or merge request to open, or to update when one from
// the same head branch to the same base is already open.
type Request struct {
	// Head is the branch with the fix; Base the branch it is for.
	Head, Base string
	// Title and Body describe the change; Body is Markdown.
	Title, Body string
	// Draft opens the request as a draft (GitLab: a "Draft:" title).
	Draft bool
}

// PullRequest is an open pull or merge request.
type PullRequest struct {
	// Number is the number users see (GitHub's number, GitLab's iid).
	Number int `json:"number"`
	// URL is the web page of the request.
	URL string `json:"url"`
	// Head and Base are its branches.
	Head string `json:"head"`
	Base string `json:"base"`
	// Draft tells whether it is a draft.
	Draft bool `json:"draft"`
	// HeadSHA is the commit the head branch is at, when the forge says.
	HeadSHA string `json:"head_sha,omitempty"`
	// Created is true when this call opened it, false when it updated an
	// open one.
	Created bool `json:"created"`
}

// Forge is a code-hosting service that takes pull or merge requests.
type Forge interface {
	// Name is "github" or "gitlab".
	Name() string
	// OpenOrUpdate opens the request, or updates the title and body of the
	// open request with the same head and base, so that re-running a heal
	// on the same base never opens a second one.
	OpenOrUpdate(ctx context.Context, r Request) (PullRequest, error)
	// Comment adds a comment to the pull or merge request number.
	Comment(ctx context.Context, number int, body string) error
	// FindOpen returns the open request whose head is branch, when there
	// is one (ok false otherwise).
	FindOpen(ctx context.Context, branch string) (pr PullRequest, ok bool, err error)
	// Check reports a heal on a commit: a check run on GitHub, a commit
	// status on GitLab (see [CheckRequest]).
	Check(ctx context.Context, c CheckRequest) (CheckRun, error)
}

// Errors wrapped by the clients, for callers that map them to exit codes
// or advice.
var (
	// ErrAuth: the token is missing, invalid, or lacks the permission.
	ErrAuth = errors.New("forge: not authorised")
	// ErrNotFound: the repository or project does not exist, or the token
	// cannot see it.
	ErrNotFound = errors.New("forge: not found")
	// ErrRateLimited: the rate limit was still exhausted after waiting.
	ErrRateLimited = errors.New("forge: rate limited")
	// ErrAPI: any other refusal by the API.
	ErrAPI = errors.New("forge: API error")
)

// maxBody bounds every response body read from a forge.
const maxBody = 4 << 20

// DefaultRetries is how many times a rate-limited or 5xx call is retried.
const DefaultRetries = 3

// DefaultMaxWait caps one wait for a rate limit to reset.
const DefaultMaxWait = 2 * time.Minute

// client holds what both forges share: the HTTP client, retries and sleep.
type client struct {
	HTTP    *http.Client
	Retries int
	MaxWait time.Duration
	Sleep   func(ctx context.Context, d time.Duration) error
	Now     func() time.Time
	// auth sets the token header on a request.
	auth func(*http.Request)
	// token, when set, gives the token of each attempt (a GitHub App's
	// installation token, minted and refreshed on demand); auth then
	// receives it through the Authorization header.
	token func(ctx context.Context) (string, error)
	// redact is the token, removed from any error text.
	redact string
	// secrets, when set, lists further values to remove from error text
	// (the JWTs and installation tokens of a GitHub App).
	secrets func() []string
}

func (c *client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: 30 * time.Second}
}

func (c *client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (c *client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// response is a finished call: its status, headers and bounded body.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// do sends one API call, retrying rate limits and server errors. newReq
// builds a fresh request for each attempt (bodies are single-use).
func (c *client) do(ctx context.Context, newReq func() (*http.Request, error)) (response, error) {
	retries := c.Retries
	if retries <= 0 {
		retries = DefaultRetries
	}
	maxWait := c.MaxWait
	if maxWait <= 0 {
		maxWait = DefaultMaxWait
	}
	for attempt := 0; ; attempt++ {
		req, err := newReq()
		if err != nil {
			return response{}, err
		}
		req = req.WithContext(ctx)
		c.auth(req)
		if c.token != nil {
			tok, err := c.token(ctx)
			if err != nil {
				return response{}, c.scrub(err)
			}
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := c.httpClient().Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return response{}, ctx.Err()
			}
			if attempt < retries {
				if serr := c.sleep(ctx, backoff(attempt)); serr != nil {
					return response{}, serr
				}
				continue
			}
			return response{}, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, c.scrub(err))
		}
		body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
		if rerr != nil {
			return response{}, fmt.Errorf("%s %s: read response: %w", req.Method, req.URL.Path, rerr)
		}
		r := response{Status: resp.StatusCode, Header: resp.Header, Body: body}
		wait, limited := c.rateLimitWait(r)
		switch {
		case limited && attempt < retries:
			if wait > maxWait {
				return r, fmt.Errorf("%s %s: %w: the limit resets in %s", req.Method, req.URL.Path, ErrRateLimited, wait.Round(time.Second))
			}
			if err := c.sleep(ctx, wait); err != nil {
				return r, err
			}
			continue
		case limited:
			return r, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, ErrRateLimited)
		case r.Status >= 500 && attempt < retries:
			if err := c.sleep(ctx, backoff(attempt)); err != nil {
				return r, err
			}
			continue
		}
		return r, nil
	}
}

func backoff(attempt int) time.Duration {
	return time.Duration(1<<min(attempt, 5)) * time.Second
}

// callJSON sends method base+path?q with a JSON body (nil for none) and
// decodes a 2xx answer into out (nil to ignore it). A refused call comes
// back with its response and an error classified with message, the
// forge's own reading of its error body.
func (c *client) callJSON(ctx context.Context, base, method, path string, q url.Values, body, out any, message func([]byte) string) (response, error) {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return response{}, err
		}
	}
	u := base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	r, err := c.do(ctx, func() (*http.Request, error) {
		req, err := http.NewRequest(method, u, bytes.NewReader(payload))
		if err == nil && body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req, err
	})
	if err != nil {
		return r, c.scrub(err)
	}
	if r.Status < 200 || r.Status > 299 {
		return r, c.scrub(classify(method, path, r, message(r.Body)))
	}
	if out != nil {
		if err := json.Unmarshal(r.Body, out); err != nil {
			return r, fmt.Errorf("%s %s: %w: undecodable answer: %v", method, path, ErrAPI, err)
		}
	}
	return r, nil
}

// rateLimitWait tells whether r is a rate-limit refusal and how long to
// wait: Retry-After (seconds or an HTTP date) first, then the reset time
// GitHub (x-ratelimit-reset) and GitLab (RateLimit-Reset) send as epoch
// seconds, else a minute. GitHub answers a primary limit with 403 and
// x-ratelimit-remaining 0, a secondary one with 403 or 429 and Retry-After.
func (c *client) rateLimitWait(r response) (time.Duration, bool) {
	limited := r.Status == http.StatusTooManyRequests
	if r.Status == http.StatusForbidden {
		limited = r.Header.Get("Retry-After") != "" || r.Header.Get("X-Ratelimit-Remaining") == "0" ||
			strings.Contains(strings.ToLower(string(r.Body)), "rate limit")
	}
	if !limited {
		return 0, false
	}
	if ra := strings.TrimSpace(r.Header.Get("Retry-After")); ra != "" {
		if s, err := strconv.Atoi(ra); err == nil && s >= 0 {
			return time.Duration(s) * time.Second, true
		}
		if t, err := http.ParseTime(ra); err == nil {
			return max(t.Sub(c.now()), 0), true
		}
	}
	for _, h := range []string{"X-Ratelimit-Reset", "Ratelimit-Reset"} {
		if v := r.Header.Get(h); v != "" {
			if s, err := strconv.ParseInt(v, 10, 64); err == nil {
				return max(time.Unix(s, 0).Sub(c.now()), time.Second), true
			}
		}
	}
	return time.Minute, true
}

// scrub removes the token, and every other secret the client knows, from
// an error's text. An error that carried none is returned as it is, so
// errors.Is still sees through it.
func (c *client) scrub(err error) error {
	vals := []string{c.redact}
	if c.secrets != nil {
		vals = append(vals, c.secrets()...)
	}
	return scrubError(err, vals)
}

// scrubError replaces every non-empty value of vals in err's text with
// "[REDACTED]", keeping the package error err wrapped, if any, for
// errors.Is.
func scrubError(err error, vals []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	hit := false
	for _, v := range vals {
		if v != "" && strings.Contains(msg, v) {
			msg, hit = strings.ReplaceAll(msg, v, "[REDACTED]"), true
		}
	}
	if !hit {
		return err
	}
	for _, kind := range []error{ErrAuth, ErrNotFound, ErrRateLimited, ErrAPI, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, kind) {
			return &scrubbed{msg: msg, kind: kind}
		}
	}
	return errors.New(msg)
}

// scrubbed is an error whose text had secrets removed, still wrapping the
// package error it was.
type scrubbed struct {
	msg  string
	kind error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.kind }

// classify maps a refused call to one of the package errors, with the
// API's own message.
func classify(method, path string, r response, msg string) error {
	var kind error
	switch r.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		kind = ErrAuth
	case http.StatusNotFound:
		kind = ErrNotFound
	default:
		kind = ErrAPI
	}
	if msg == "" {
		msg = http.StatusText(r.Status)
	}
	return fmt.Errorf("%s %s: %w: %d %s", method, path, kind, r.Status, oneLine(msg, 300))
}

// oneLine folds s onto one line and bounds its length: API messages end up
// in logs and terminals.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
