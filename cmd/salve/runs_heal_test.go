package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/logparse"
	"github.com/salve-dev/salve/internal/store"
)

// TestRunsShowHeal: "salve runs show" prints a heal run's outcome, its
// environment failure and its fix rates per error type.
func TestRunsShowHeal(t *testing.T) {
	res := results.Results{Outcome: results.OutcomeRed, Reason: "max iterations (5) reached", Branch: "salve/heal-1", Iterations: 5,
		ByType: map[string]results.TypeRate{
			"SYNTAX":     {Found: 3, Fixed: 2, Left: 1},
			"TYPE_ERROR": {Found: 2, Rejected: 1, Left: 2},
		},
		Environment: &logparse.EnvironmentFailure{Kind: logparse.EnvNetwork, Ecosystem: "npm", Evidence: "npm error code EAI_AGAIN", Hint: "fetch first"},
	}
	doc, _ := json.Marshal(res)
	var b strings.Builder
	if err := writeView(&b, store.RunView{Run: store.Run{RunID: "r1", Kind: store.KindHeal, Status: "red", Summary: doc}}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"  outcome:   red: max iterations (5) reached\n",
		"  branch:    salve/heal-1, 0 commit(s), 5 iteration(s)\n",
		"  environment: network (npm): npm error code EAI_AGAIN\n",
		"fix rates by error type:\n  type            found  fixed  rejected  left\n  SYNTAX              3      2         0     1\n  TYPE_ERROR          2      0         1     2\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "summary:") {
		t.Errorf("the raw summary is printed:\n%s", got)
	}
}

// TestRunsShowIsShort: the default view shows the first rows of a long
// section and says how many more --json holds.
func TestRunsShowIsShort(t *testing.T) {
	v := store.RunView{Run: store.Run{RunID: "r2", Kind: store.KindTool, Status: "succeeded"}}
	for i := 0; i < 30; i++ {
		v.Events = append(v.Events, contract.LogEventV1{Level: "INFO", Message: fmt.Sprintf("event %d", i)})
	}
	var b strings.Builder
	if err := writeView(&b, v); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if !strings.Contains(got, "event 11\n") || strings.Contains(got, "event 12\n") || !strings.Contains(got, "… and 18 more (salve runs show RUN --json prints them all)") {
		t.Errorf("short view:\n%s", got)
	}
}
