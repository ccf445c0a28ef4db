package llmfix

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/scripted"
)

const good = `{"patched_content":"fixed\n","fix_reason":"use + not -","confidence_score":0.8}`

var input = heal.FixInput{Path: "calc.py", Content: "broken\n", Request: contract.FixRequest{
	BugReport:    contract.BugReport{FilePath: "calc.py", LineNumber: 1, ErrorType: contract.ErrLogic, Message: "AssertionError: 1 != 3"},
	ErrorMessage: "AssertionError: 1 != 3", FileSnippet: "   1 | broken\n", PreviousAttemptInfo: map[string]any{"outcome": "rejected"},
}}

// scenarios are played by the real test-llm provider; the model name
// selects one.
const scenarios = `[
 {"id": "first", "systemPromptMustInclude": ["Fix Agent", "Keep every comment"],
  "turns": [{"turn": 1, "response": {"kind": "final-report", "reportFormat": "json", "reportContentJson": ` + good + `,
             "tokenUsage": {"inputTokens": 300, "outputTokens": 40}}}]},
 {"id": "corrected",
  "turns": [{"turn": 1, "response": {"kind": "final-report", "reportFormat": "json", "reportContentJson": {"patched_content": "x"}}},
            {"turn": 2, "response": {"kind": "final-report", "reportFormat": "json", "reportContentJson": ` + good + `}}]},
 {"id": "server-error",
  "turns": [{"turn": 1, "failuresBeforeSuccess": 1, "failureStatus": "server_error",
             "response": {"kind": "final-report", "reportFormat": "json", "reportContentJson": ` + good + `}}]},
 {"id": "rate-limited",
  "turns": [{"turn": 1, "failuresBeforeSuccess": 1, "failureStatus": "rate_limit", "failureRetryAfterMs": 2000,
             "response": {"kind": "final-report", "reportFormat": "json", "reportContentJson": ` + good + `}}]},
 {"id": "auth",
  "turns": [{"turn": 1, "failuresBeforeSuccess": 9, "failureStatus": "auth_error",
             "response": {"kind": "final-report", "reportFormat": "json", "reportContentJson": ` + good + `}}]},
 {"id": "overconfident",
  "turns": [{"turn": 1, "response": {"kind": "final-report", "reportFormat": "json",
             "reportContentJson": {"patched_content": "x", "fix_reason": "r", "confidence_score": 7}}}]},
 {"id": "never-valid",
  "turns": [{"turn": 1, "response": {"kind": "final-report", "reportFormat": "json", "reportContentJson": {"patched_content": "x"}}},
            {"turn": 2, "response": {"kind": "final-report", "reportFormat": "json", "reportContentJson": {"patched_content": "x"}}},
            {"turn": 3, "response": {"kind": "final-report", "reportFormat": "json", "reportContentJson": {"patched_content": "x"}}}]}
]`

func TestFixThroughTheEngine(t *testing.T) {
	sc, err := scripted.Parse([]byte(scenarios))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		model     string
		wantErr   error
		providers string // providers of the accounting entries, in order
		sleeps    string
	}{
		{model: "first", providers: "a"},
		{model: "corrected", providers: "a,a"},
		{model: "server-error", providers: "a,b,a"},
		{model: "rate-limited", providers: "a,b,a", sleeps: "[2s]"},
		{model: "auth", wantErr: ErrSession, providers: "a"},
		{model: "overconfident", wantErr: ErrInvalidResult, providers: "a"},
		{model: "never-valid", wantErr: ErrSession, providers: "a,a"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			p := scripted.New(sc)
			var slept []time.Duration
			f := &Fixer{Targets: []Target{{Provider: "a", Model: tc.model, Client: p}, {Provider: "b", Model: tc.model, Client: p}},
				Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }}
			res, err := f.Fix(context.Background(), input)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
			} else if err != nil || res.PatchedContent != "fixed\n" || res.Fixer != Name || res.ConfidenceScore != 0.8 || res.FixReason != "use + not -" {
				t.Fatalf("res %+v err %v", res, err)
			}
			var provs []string
			for _, e := range f.Accounting() {
				if e.Type != contract.AccountingLLM {
					continue // the engine also accounts its final-report tool calls
				}
				if e.Model != tc.model || (e.Status == contract.AccountingOK) == (e.Error != "") {
					t.Errorf("accounting entry %+v", e)
				}
				provs = append(provs, e.Provider)
			}
			if got := strings.Join(provs, ","); got != tc.providers {
				t.Errorf("accounting providers %q, want %q", got, tc.providers)
			}
			var waits []time.Duration
			for _, d := range slept {
				if d > 0 {
					waits = append(waits, d)
				}
			}
			if tc.sleeps != "" && fmt.Sprint(waits) != tc.sleeps {
				t.Errorf("slept %v, want %s", slept, tc.sleeps)
			}
		})
	}
}

// captureProvider answers with a native final report and keeps the
// requests, to check what the prompt carries.
type captureProvider struct{ reqs []llm.Request }

func (c *captureProvider) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	c.reqs = append(c.reqs, req)
	return llm.Response{StopReason: "tool_calls", Usage: contract.TokenUsage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15},
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "agent__final_report", Arguments: `{"report_format":"json","content_json":` + good + `}`}}}, nil
}

func TestPromptCarriesTheSeedInputs(t *testing.T) {
	p := &captureProvider{}
	f := &Fixer{Targets: []Target{{Provider: "cap", Model: "m", Client: p}}}
	if _, err := f.Fix(context.Background(), input); err != nil {
		t.Fatal(err)
	}
	var user, system string
	for _, m := range p.reqs[0].Messages {
		switch m.Role {
		case contract.RoleUser:
			user += m.Content
		case contract.RoleSystem:
			system += m.Content
		}
	}
	for _, want := range []string{`"file_path": "calc.py"`, "AssertionError: 1 != 3", "   1 | broken", `"outcome": "rejected"`, "<<<FILE\nbroken\n"} {
		if !strings.Contains(user, want) {
			t.Errorf("user prompt lacks %q:\n%s", want, user)
		}
	}
	if !strings.Contains(system, "Keep every comment") || !strings.Contains(system, "agent__final_report") {
		t.Errorf("system prompt:\n%s", system)
	}
}

func TestNoTargets(t *testing.T) {
	if _, err := (&Fixer{}).Fix(context.Background(), input); !errors.Is(err, results.ErrNoFix) {
		t.Fatalf("err = %v", err)
	}
}

func FuzzParseResult(f *testing.F) {
	f.Add(good)
	f.Add("```json\n{'patched_content': 'x', fix_reason: \"r\", \"confidence_score\": 0.5,}\n```")
	f.Add("{")
	f.Fuzz(func(t *testing.T, s string) {
		res, err := ParseResult(s)
		if err == nil && (res.ConfidenceScore < 0 || res.ConfidenceScore > 1) {
			t.Fatalf("accepted confidence %v", res.ConfidenceScore)
		}
	})
}
