package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/store"
)

// maxRemoteBody bounds what salve runs reads from a server.
const maxRemoteBody = 64 << 20

// remote reads runs from a `salve serve` server's API (GET /api/v1/runs
// and /api/v1/runs/{id}) instead of a local store, with the bearer token
// of $SALVE_SERVER_TOKEN when set.
type remote struct {
	base  *url.URL
	token string
	http  *http.Client
}

func newRemote(server string, getenv func(string) string) (*remote, error) {
	u, err := url.Parse(strings.TrimRight(server, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, fmt.Errorf("--server %q: want an http(s) URL without credentials (the token goes in $SALVE_SERVER_TOKEN)", server)
	}
	return &remote{base: u, token: getenv("SALVE_SERVER_TOKEN"), http: &http.Client{Timeout: 30 * time.Second}}, nil
}

// get decodes the JSON answer of path into v; an error answer becomes an
// error with the server's message, and a 404 is reported as such.
func (r *remote) get(o *runsOptions, path string, q url.Values, v any) (status int, err error) {
	u := *r.base
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(o.Ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, err
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	resp, err := r.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRemoteBody))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("%s: read the answer: %w", u.Redacted(), err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		msg := strings.TrimSpace(string(body))
		if json.Unmarshal(body, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return resp.StatusCode, fmt.Errorf("%s: %d %s: %s", u.Redacted(), resp.StatusCode, http.StatusText(resp.StatusCode), msg)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return resp.StatusCode, fmt.Errorf("%s: not a runs answer: %w", u.Redacted(), err)
	}
	return resp.StatusCode, nil
}

// remoteCode maps a failed remote read to an exit status: a run or server
// that is not there, or a refused request, is bad input.
func remoteCode(status int) int {
	switch status {
	case http.StatusNotFound, http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden:
		return exitBadInput
	}
	return exitFailure
}

func runsListRemote(o *runsOptions, r *remote) int {
	q := url.Values{}
	if o.Kind != "" {
		q.Set("kind", o.Kind)
	}
	if o.Status != "" {
		q.Set("status", o.Status)
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(min(o.Limit, 500)))
	}
	var ans struct{ Runs []store.Run }
	if status, err := r.get(o, "/api/v1/runs", q, &ans); err != nil {
		fmt.Fprintf(o.Stderr, "salve: runs list: %v\n", err)
		return remoteCode(status)
	}
	if o.JSON {
		return printJSON(o.Stdout, o.Stderr, nonNilRuns(ans.Runs))
	}
	return writeRunsTable(o, ans.Runs)
}

func runsShowRemote(o *runsOptions, r *remote) int {
	var v store.RunView
	if status, err := r.get(o, "/api/v1/runs/"+url.PathEscape(o.RunRef), nil, &v); err != nil {
		fmt.Fprintf(o.Stderr, "salve: runs show: %v\n", err)
		return remoteCode(status)
	}
	if o.JSON {
		return printJSON(o.Stdout, o.Stderr, v)
	}
	if err := writeView(o.Stdout, v); err != nil {
		return exitFailure
	}
	return exitOK
}
