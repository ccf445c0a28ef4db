package service

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestValidateFixersFromTheTable: the jobs API accepts every tier of the
// one table (internal/heal/tiers), suggest included, and refuses the rest.
func TestValidateFixersFromTheTable(t *testing.T) {
	for _, fixers := range []string{"", "suggest", "rules,suggest", "rules, suggest, llm", "aider"} {
		r := Request{Repo: "/srv/a.git", Fixers: fixers}
		if err := r.Validate(); err != nil {
			t.Errorf("fixers %q: %v", fixers, err)
		}
	}
	for _, fixers := range []string{"magic", "rules,,llm", "rules,"} {
		r := Request{Repo: "/srv/a.git", Fixers: fixers}
		if err := r.Validate(); !errors.Is(err, ErrBadRequest) {
			t.Errorf("fixers %q: %v, want a bad request", fixers, err)
		}
	}
}

// TestAPIAcceptsSuggestAndNoIsolation: over HTTP, a job asking for the
// suggest tier is queued, and a job naming an isolation is refused: a job
// always runs under its worker's own --isolation, so a client cannot lower
// it.
func TestAPIAcceptsSuggestAndNoIsolation(t *testing.T) {
	_, hs := newTestServer(t, nil)
	code, out := do(t, "POST", hs.URL+"/api/v1/heals", `{"repo": "/srv/a.git", "fixers": "rules,suggest"}`, nil)
	if code != http.StatusAccepted {
		t.Fatalf("suggest: %d %v", code, out)
	}
	code, out = do(t, "POST", hs.URL+"/api/v1/heals", `{"repo": "/srv/a.git", "isolation": "none"}`, nil)
	if code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out["error"]), `unknown field "isolation"`) {
		t.Fatalf("isolation none: %d %v", code, out)
	}
}
