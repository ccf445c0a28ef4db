package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/llm"
)

// perToken prices every provider's model at 1 USD per input token and 2
// per output token (a test table; config.Pricing is the real one).
type perToken struct{}

func (perToken) Cost(provider, model string, u contract.TokenUsage) (float64, bool) {
	if model == "unpriced" {
		return 0, false
	}
	return float64(u.InputTokens) + 2*float64(u.OutputTokens), true
}

func TestCostFromPricingTable(t *testing.T) {
	reported := 0.5
	withCost := toolCall("c", "t__echo", `{"text":"hi"}`)
	withCost.CostUSD = &reported
	cases := []struct {
		name  string
		model string
		resp  llm.Response
		want  []any // costUsd per LLM entry; nil means absent
	}{
		{"table prices every entry", "m", toolCall("c", "t__echo", `{"text":"hi"}`), []any{20.0, 20.0}},
		{"provider-reported cost wins", "m", withCost, []any{0.5, 20.0}},
		{"no row, no cost", "unpriced", toolCall("c", "t__echo", `{"text":"hi"}`), []any{nil, nil}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := script(tc.resp, finalCall("done"))
			o := opts(t, f)
			o.Targets[0].Model = tc.model
			o.Tools = []tools.Provider{echoTools()}
			o.Pricer = perToken{}
			res := run(t, o)
			var got []any
			for _, e := range res.Accounting {
				if e.Type != contract.AccountingLLM {
					continue
				}
				if e.CostUSD == nil {
					got = append(got, nil)
				} else {
					got = append(got, *e.CostUSD)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("llm entries = %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("costUsd = %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestBudgetCapEndsSession(t *testing.T) {
	shared := NewBudget("headend openai-completions maxCostUsd", 25)
	cases := []struct {
		name     string
		max      float64
		budgets  []*Budget
		wantName string
		wantLLM  int
	}{
		{"session cap", 15, nil, "session maxCostUsd 15.0000 USD", 1},
		{"headend cap, first session", 0, []*Budget{shared}, "headend openai-completions maxCostUsd 25.0000 USD", 2},
		{"headend cap already spent", 0, []*Budget{shared}, "headend openai-completions maxCostUsd 25.0000 USD", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := script(toolCall("c", "t__echo", `{"text":"hi"}`))
			o := opts(t, f)
			o.MaxTurns = 5
			o.Tools = []tools.Provider{echoTools()}
			o.Pricer = perToken{}
			o.MaxCostUSD = tc.max
			o.Budgets = tc.budgets
			res := run(t, o)
			if res.Success || res.FinalReport == nil || res.FinalReport.Status != contract.ReportFailure {
				t.Fatalf("want a synthetic failure, got %+v", res)
			}
			if got := res.FinalReport.Metadata["reason"]; got != ReasonCostCap {
				t.Fatalf("reason = %v", got)
			}
			if !strings.Contains(res.Error, "cost budget cap reached: "+tc.wantName) {
				t.Fatalf("report does not name the cap: %q", res.Error)
			}
			if n := len(f.reqs); n != tc.wantLLM {
				t.Fatalf("LLM requests = %d, want %d", n, tc.wantLLM)
			}
		})
	}
}

// recObserver records the observer calls it sees.
type recObserver struct {
	nopObserver
	mu     sync.Mutex
	events []string
}

func (r *recObserver) add(s string) { r.mu.Lock(); r.events = append(r.events, s); r.mu.Unlock() }

func (r *recObserver) StartSession(ctx context.Context, _ SessionInfo) (context.Context, func(SessionEnd)) {
	r.add("session")
	return ctx, func(e SessionEnd) { r.add("session end") }
}
func (r *recObserver) StartTurn(ctx context.Context, turn int) (context.Context, func()) {
	r.add("turn")
	return ctx, func() {}
}
func (r *recObserver) StartLLM(ctx context.Context, t LLMTarget) (context.Context, func(LLMEvent)) {
	return ctx, func(e LLMEvent) {
		if e.Entry.CostUSD != nil {
			r.add("llm priced")
		} else {
			r.add("llm")
		}
	}
}
func (r *recObserver) StartTool(ctx context.Context, name string) (context.Context, func(ToolEvent)) {
	return ctx, func(e ToolEvent) { r.add("tool " + e.Name + " " + e.Kind + " " + e.Provider) }
}
func (r *recObserver) FinalReport(_ context.Context, ev FinalReportEvent) {
	r.add("report " + ev.Source + " " + ev.ForcedFinalReason)
}

func TestObserverSeesEveryStep(t *testing.T) {
	f := script(toolCall("c", "t__echo", `{"text":"hi"}`), finalCall("done"))
	o := opts(t, f)
	o.Transport = TransportNative
	o.Tools = []tools.Provider{echoTools()}
	o.Pricer = perToken{}
	rec := &recObserver{}
	o.Observer = rec
	if res := run(t, o); !res.Success {
		t.Fatalf("session failed: %s", res.Error)
	}
	want := "session,turn,llm priced,tool t__echo mcp mcp:t,turn,llm priced,report tool-call none,session end"
	if got := strings.Join(rec.events, ","); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
}

// TestToolsSeeTheSessionsLimits: a tool call's context carries the
// session's headend and budgets (its own cap and the ones it was given),
// so a sub-agent it starts spends from the same caps.
func TestToolsSeeTheSessionsLimits(t *testing.T) {
	shared := NewBudget("headend api maxCostUsd", 100)
	var got Limits
	var seen bool
	tp := echoTools()
	echo := tp.call
	tp.call = func(ctx context.Context, name string, args json.RawMessage) (tools.Result, error) {
		got, seen = LimitsFrom(ctx)
		return echo(ctx, name, args)
	}
	o := opts(t, script(toolCall("c", "t__echo", `{"text":"hi"}`)))
	o.MaxTurns = 3
	o.Tools = []tools.Provider{tp}
	o.Headend = "api"
	o.MaxCostUSD = 10
	o.Budgets = []*Budget{shared}
	run(t, o)
	if !seen {
		t.Fatal("the tool call's context carries no limits")
	}
	if got.Headend != "api" || len(got.Budgets) != 2 || got.Budgets[0].Name != "session maxCostUsd" || got.Budgets[1] != shared {
		t.Fatalf("limits = %+v", got)
	}
	if _, ok := LimitsFrom(context.Background()); ok {
		t.Fatal("limits outside a tool call")
	}
}
