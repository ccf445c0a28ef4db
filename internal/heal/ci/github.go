package ci

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/heal"
)

// DefaultGitHubAPI is the GitHub REST API root.
const DefaultGitHubAPI = "https://api.github.com"

// GitHub polls the checks of a pushed commit through the GitHub REST API:
// the check runs (GET /repos/{owner}/{repo}/commits/{ref}/check-runs) and
// the combined commit status (GET /repos/{owner}/{repo}/commits/{ref}/status).
// The verdict is green when every check run completed with success,
// neutral or skipped and the combined status is success (or has no
// statuses); red as soon as every check finished and one did not pass.
type GitHub struct {
	// BaseURL is the API root; empty means DefaultGitHubAPI.
	BaseURL string
	// Owner and Repo name the repository.
	Owner, Repo string
	// Token is sent as a bearer token; it never appears in errors or logs.
	Token string
	// Client is the HTTP client; nil means a client with a 30 s timeout.
	Client *http.Client
	// Interval is the wait between polls; zero means 10 s.
	Interval time.Duration
	// Timeout bounds the whole wait; zero means 30 minutes.
	Timeout time.Duration
	// Sleep waits between polls; nil means a context-aware timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

var _ heal.CIMonitor = (*GitHub)(nil)

// ErrCI is wrapped by GitHub errors that are not a verdict: a refused
// token, an unknown repository, a timeout.
var ErrCI = errors.New("ci github")

// Name returns "github".
func (g *GitHub) Name() string { return "github" }

// checkRun is the part of a check run object the monitor reads.
type checkRun struct {
	ID         int64   `json:"id"`
	Name       string  `json:"name"`
	HeadSHA    string  `json:"head_sha"`
	Status     string  `json:"status"`
	Conclusion *string `json:"conclusion"`
	HTMLURL    string  `json:"html_url"`
}

type checkRunList struct {
	TotalCount int        `json:"total_count"`
	CheckRuns  []checkRun `json:"check_runs"`
}

type commitStatus struct {
	State       string `json:"state"`
	Context     string `json:"context"`
	Description string `json:"description"`
}

type combinedStatus struct {
	State      string         `json:"state"`
	SHA        string         `json:"sha"`
	TotalCount int            `json:"total_count"`
	Statuses   []commitStatus `json:"statuses"`
}

// Verdict polls until the checks of t.Commit are settled or the timeout.
func (g *GitHub) Verdict(ctx context.Context, t heal.CITarget) (heal.Verdict, error) {
	if !t.Pushed {
		return heal.Verdict{}, fmt.Errorf("%w: commit %s was not pushed (use --push)", ErrCI, t.Commit)
	}
	timeout, interval := g.Timeout, g.Interval
	if timeout == 0 {
		timeout = 30 * time.Minute
	}
	if interval == 0 {
		interval = 10 * time.Second
	}
	deadline := time.Now().Add(timeout)
	for {
		v, settled, err := g.poll(ctx, t.Commit)
		if err != nil && !errors.Is(err, errRetry) {
			return heal.Verdict{}, err
		}
		if settled {
			return v, nil
		}
		wait := interval
		if err != nil {
			v.Detail = err.Error()
		}
		if time.Now().Add(wait).After(deadline) {
			// Checks that stay queued or wait for an approval are no
			// signal: reported as such, never as green.
			return heal.Verdict{Source: "github", NoSignal: true, Detail: fmt.Sprintf("checks of %s not settled after %s: %s", short(t.Commit), timeout, v.Detail)}, nil
		}
		if err := g.sleep(ctx, wait); err != nil {
			return heal.Verdict{}, fmt.Errorf("%w: wait for checks: %w", ErrCI, err)
		}
	}
}

func (g *GitHub) sleep(ctx context.Context, d time.Duration) error {
	if g.Sleep != nil {
		return g.Sleep(ctx, d)
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// errRetry marks a poll that should be tried again (a commit GitHub does
// not know yet, a server error, a rate limit).
var errRetry = errors.New("retry")

// poll reads the checks once and says whether they are settled.
func (g *GitHub) poll(ctx context.Context, sha string) (heal.Verdict, bool, error) {
	runs, err := g.checkRuns(ctx, sha)
	if err != nil {
		return heal.Verdict{Source: "github"}, false, err
	}
	var st combinedStatus
	if err := g.get(ctx, g.path(sha, "status"), nil, &st); err != nil {
		return heal.Verdict{Source: "github"}, false, err
	}
	return judge(runs, st)
}

// judge turns check runs and the combined status into a verdict.
func judge(runs []checkRun, st combinedStatus) (heal.Verdict, bool, error) {
	v := heal.Verdict{Source: "github"}
	var pending, failed, passed []string
	for _, r := range runs {
		switch {
		case r.Status != "completed":
			pending = append(pending, r.Name+" ("+r.Status+")")
		case r.Conclusion != nil && (*r.Conclusion == "success" || *r.Conclusion == "neutral" || *r.Conclusion == "skipped"):
			passed = append(passed, r.Name)
		default:
			c := "no conclusion"
			if r.Conclusion != nil {
				c = *r.Conclusion
			}
			failed = append(failed, r.Name+" ("+c+")")
		}
	}
	for _, s := range st.Statuses {
		switch s.State {
		case "pending":
			pending = append(pending, s.Context+" (pending)")
		case "success":
			passed = append(passed, s.Context)
		default:
			failed = append(failed, s.Context+" ("+s.State+")")
		}
	}
	sort.Strings(failed)
	switch {
	case len(pending) > 0:
		v.Detail = "waiting for " + strings.Join(pending, ", ")
		return v, false, nil
	case len(failed) > 0:
		v.Detail = "failed: " + strings.Join(failed, ", ")
		return v, true, nil
	case len(passed) == 0:
		v.Detail = "no checks reported yet"
		return v, false, nil
	}
	v.Green = true
	v.Detail = fmt.Sprintf("%d checks passed", len(passed))
	return v, true, nil
}

// checkRuns lists every check run of sha, page by page.
func (g *GitHub) checkRuns(ctx context.Context, sha string) ([]checkRun, error) {
	var all []checkRun
	for page := 1; page <= 50; page++ {
		var l checkRunList
		q := url.Values{"per_page": {"100"}, "page": {strconv.Itoa(page)}}
		if err := g.get(ctx, g.path(sha, "check-runs"), q, &l); err != nil {
			return nil, err
		}
		all = append(all, l.CheckRuns...)
		if len(l.CheckRuns) == 0 || len(all) >= l.TotalCount {
			break
		}
	}
	return all, nil
}

func (g *GitHub) path(sha, what string) string {
	return "/repos/" + url.PathEscape(g.Owner) + "/" + url.PathEscape(g.Repo) + "/commits/" + url.PathEscape(sha) + "/" + what
}

// get performs one API request and decodes its JSON body.
func (g *GitHub) get(ctx context.Context, p string, q url.Values, into any) error {
	base := g.BaseURL
	if base == "" {
		base = DefaultGitHubAPI
	}
	u := strings.TrimRight(base, "/") + p
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("%w: request %s: %w", ErrCI, p, err)
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("User-Agent", "salve-heal")
	if g.Token != "" {
		req.Header.Set("Authorization", "Bearer "+g.Token)
	}
	client := g.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: GET %s: %w", ErrCI, p, ctx.Err())
		}
		return fmt.Errorf("%w: GET %s: network error", errRetry, p)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	switch {
	case resp.StatusCode == http.StatusOK:
		if err := json.Unmarshal(body, into); err != nil {
			return fmt.Errorf("%w: GET %s: decode: %w", ErrCI, p, err)
		}
		return nil
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusUnprocessableEntity:
		// GitHub may not know a just-pushed commit yet.
		return fmt.Errorf("%w: GET %s: HTTP %d (commit not known yet)", errRetry, p, resp.StatusCode)
	case resp.StatusCode >= 500, resp.StatusCode == http.StatusTooManyRequests,
		resp.StatusCode == http.StatusForbidden && resp.Header.Get("X-RateLimit-Remaining") == "0":
		return fmt.Errorf("%w: GET %s: HTTP %d", errRetry, p, resp.StatusCode)
	}
	return fmt.Errorf("%w: GET %s: HTTP %d: %s", ErrCI, p, resp.StatusCode, apiMessage(body))
}

func apiMessage(body []byte) string {
	var m struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &m) == nil && m.Message != "" {
		return m.Message
	}
	return strings.TrimSpace(string(body[:min(len(body), 200)]))
}

func short(sha string) string { return sha[:min(len(sha), 12)] }
