package llmfix

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/heal"
	"github.com/salve-dev/salve/llm"
)

// fakeProvider answers from a list of replies, one per call.
type fakeProvider struct {
	replies []func(req llm.Request) (llm.Response, error)
	calls   []llm.Request
}

func (p *fakeProvider) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	p.calls = append(p.calls, req)
	i := min(len(p.calls), len(p.replies)) - 1
	return p.replies[i](req)
}

func text(s string) func(llm.Request) (llm.Response, error) {
	return func(llm.Request) (llm.Response, error) {
		return llm.Response{Content: s, StopReason: "stop", Usage: contract.TokenUsage{InputTokens: 100, OutputTokens: 20}}, nil
	}
}

func fail(c llm.Class, retryAfter time.Duration) func(llm.Request) (llm.Response, error) {
	return func(llm.Request) (llm.Response, error) {
		return llm.Response{}, &llm.Error{Class: c, Message: "simulated " + string(c), RetryAfter: retryAfter}
	}
}

const good = `{"patched_content":"fixed\n","fix_reason":"use + not -","confidence_score":0.8}`

var input = heal.FixInput{Path: "calc.py", Content: "broken\n", Request: contract.FixRequest{
	BugReport:    contract.BugReport{FilePath: "calc.py", LineNumber: 1, ErrorType: contract.ErrLogic, Message: "AssertionError: 1 != 3"},
	ErrorMessage: "AssertionError: 1 != 3", FileSnippet: "   1 | broken\n", PreviousAttemptInfo: map[string]any{"outcome": "rejected"},
}}

func TestFix(t *testing.T) {
	for _, tc := range []struct {
		name      string
		a, b      []func(llm.Request) (llm.Response, error)
		wantErr   error
		wantCalls [2]int
		sleeps    int
		entries   int
	}{
		{name: "first answer", a: []func(llm.Request) (llm.Response, error){text(good)}, wantCalls: [2]int{1, 0}, entries: 1},
		{name: "fenced with prose", a: []func(llm.Request) (llm.Response, error){text("Here:\n```json\n" + good + "\n```")}, wantCalls: [2]int{1, 0}, entries: 1},
		{name: "invalid then corrected", a: []func(llm.Request) (llm.Response, error){text(`{"patched_content":"x"}`)}, b: []func(llm.Request) (llm.Response, error){text(good)}, wantCalls: [2]int{1, 1}, entries: 2},
		{name: "server error falls back", a: []func(llm.Request) (llm.Response, error){fail(llm.ClassServer, 0)}, b: []func(llm.Request) (llm.Response, error){text(good)}, wantCalls: [2]int{1, 1}, entries: 2},
		{name: "rate limits wait when all limited", a: []func(llm.Request) (llm.Response, error){fail(llm.ClassRateLimit, 3*time.Second), text(good)}, b: []func(llm.Request) (llm.Response, error){fail(llm.ClassRateLimit, 0)}, wantCalls: [2]int{2, 1}, sleeps: 1, entries: 3},
		{name: "auth is fatal", a: []func(llm.Request) (llm.Response, error){fail(llm.ClassAuth, 0)}, b: []func(llm.Request) (llm.Response, error){text(good)}, wantErr: ErrFatal, wantCalls: [2]int{1, 0}, entries: 1},
		{name: "never valid", a: []func(llm.Request) (llm.Response, error){text("no json here")}, b: []func(llm.Request) (llm.Response, error){text(`{"patched_content":"x","fix_reason":"r","confidence_score":7}`)}, wantErr: ErrInvalidResult, wantCalls: [2]int{3, 3}, entries: 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pa := &fakeProvider{replies: tc.a}
			pb := &fakeProvider{replies: tc.b}
			if pb.replies == nil {
				pb.replies = []func(llm.Request) (llm.Response, error){text(good)}
			}
			var slept []time.Duration
			f := &Fixer{Targets: []Target{{"a", "m1", pa}, {"b", "m2", pb}},
				Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }}
			res, err := f.Fix(context.Background(), input)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
			} else if err != nil || res.PatchedContent != "fixed\n" || res.Fixer != Name || res.ConfidenceScore != 0.8 {
				t.Fatalf("res %+v err %v", res, err)
			}
			if got := [2]int{len(pa.calls), len(pb.calls)}; got != tc.wantCalls {
				t.Errorf("calls %v, want %v", got, tc.wantCalls)
			}
			if len(slept) != tc.sleeps {
				t.Errorf("slept %v, want %d sleeps", slept, tc.sleeps)
			}
			acct := f.Accounting()
			if len(acct) != tc.entries {
				t.Errorf("%d accounting entries, want %d", len(acct), tc.entries)
			}
			for _, e := range acct {
				if e.Type != contract.AccountingLLM || e.Provider == "" || e.Model == "" || (e.Status == contract.AccountingOK) != (e.Tokens != nil) {
					t.Errorf("bad accounting entry %+v", e)
				}
			}
		})
	}
}

func TestPromptCarriesTheSeedInputs(t *testing.T) {
	p := &fakeProvider{replies: []func(llm.Request) (llm.Response, error){text(`{"bad":1}`), text(good)}}
	f := &Fixer{Targets: []Target{{"a", "m", p}}}
	if _, err := f.Fix(context.Background(), input); err != nil {
		t.Fatal(err)
	}
	user := p.calls[0].Messages[1].Content
	for _, want := range []string{`"file_path": "calc.py"`, "AssertionError: 1 != 3", "   1 | broken", `"outcome": "rejected"`, "<<<FILE\nbroken\n"} {
		if !strings.Contains(user, want) {
			t.Errorf("user prompt lacks %q:\n%s", want, user)
		}
	}
	if p.calls[0].Messages[0].Role != contract.RoleSystem || !strings.Contains(p.calls[0].Messages[0].Content, "Keep every comment") {
		t.Error("system prompt missing the boundary rules")
	}
	second := p.calls[1].Messages
	if len(second) != 4 || second[2].Role != contract.RoleAssistant || !strings.Contains(second[3].Content, "not a valid FixResult") {
		t.Errorf("retry messages: %+v", second)
	}
}

func TestNoTargets(t *testing.T) {
	if _, err := (&Fixer{}).Fix(context.Background(), input); !errors.Is(err, heal.ErrNoFix) {
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
		_ = fmt.Sprint(res)
	})
}
