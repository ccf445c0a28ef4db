package conformance

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// §2 always return output: every way a session can end yields a result
// document whose fields agree with each other and with the exit code.
func TestSection2_AlwaysReturnsResult(t *testing.T) {
	cases := []struct {
		name     string
		scenario string
		args     []string
		code     int
	}{
		{"model report", one("a", report(1, "ok")), nil, 0},
		{"max turns", one("a", echoTurn(1, "x")), []string{"--max-turns", "1", "--tools", "echo"}, 1},
		{"auth error", one("a", `{"turn":1,"failuresBeforeSuccess":1,"failureStatus":"auth_error","response":{"kind":"final-report","reportContent":"x"}}`), nil, 1},
		{"unknown scenario turn", one("a", report(5, "late")), nil, 1},
		{"retries exhausted", one("a", `{"turn":1,"failuresBeforeSuccess":9,"failureStatus":"model_error","response":{"kind":"final-report","reportContent":"x"}}`),
			[]string{"--max-turns", "2"}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.scenario(tc.scenario)
			args := append([]string{"--models", "test/a"}, tc.args...)
			o := h.run(append(args, "sys", "user")...).mustExit(t, tc.code)
			o.checkInvariants(t, 10)
		})
	}
}

// §2 status is set by the system, never by the model.
func TestSection2_StatusSetBySystem(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("s", `{"turn":1,"response":{"kind":"tool-call","toolCalls":[{"toolName":"agent__final_report",
		"arguments":{"report_format":"pipe","report_content":"fine","status":"failure","metadata":{"status":"failure"}}}]}}`))
	o := h.run("--models", "test/s", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	if o.res.FinalReport.Status != contract.ReportSuccess || !o.res.Success {
		t.Fatalf("model-provided status leaked: %+v", o.res.FinalReport)
	}
}

// §2 exit codes by category.
func TestSection2_ExitCodes(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("e", report(1, "ok")))
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"success", []string{"--models", "test/e", "s", "u"}, 0},
		{"help", []string{"--help"}, 0},
		{"version", []string{"--version"}, 0},
		{"dry run", []string{"--dry-run", "--models", "test/e", "s"}, 0},
		{"unknown tool", []string{"--models", "test/e", "--tools", "ghost", "s", "u"}, 3},
		{"unknown flag", []string{"--frobnicate", "s", "u"}, 4},
		{"missing prompt", []string{"--models", "test/e", "s"}, 4},
		{"unknown provider", []string{"--models", "nope/e", "s", "u"}, 4},
		{"invalid schema", []string{"--models", "test/e", "--schema", `{"type":"nonsense"}`, "s", "u"}, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := h.run(tc.args...).mustExit(t, tc.code)
			if tc.code >= 3 && o.stdout != "" {
				t.Fatalf("stdout on a start-up error: %q", o.stdout)
			}
			// docs/contracts/ai-agent-cli.md §8: the document is written on
			// every exit after the flags are parsed, so a flag error has
			// none.
			if tc.code >= 3 && tc.name != "unknown flag" {
				if o.res.Success || o.res.Error == "" || o.res.Conversation == nil || o.res.Accounting == nil {
					t.Fatalf("start-up result = %s", o.raw)
				}
			}
		})
	}
}

// §2 empty response: not added to the conversation; the ephemeral retry
// notice is sent on the retry; it counts as an attempt.
func TestSection2_EmptyResponseRetryNotice(t *testing.T) {
	w := newWire(t)
	w.srv.Push(llmtest.Reply{}, finalReply("after notice"))
	o := w.h.run("--models", "wire/m", "--tooling-transport", "native", "--max-retries", "2", "s", "u").mustExit(t, 0)
	o.checkInvariants(t, 10)
	if n := count(o.res.Conversation, contract.RoleAssistant); n != 1 {
		t.Fatalf("empty response stored: %d assistant messages", n)
	}
	reqs := w.srv.Requests()
	msgs := requestMessages(reqs[1])
	last := msgs[len(msgs)-1]
	if last["content"] != "System notice: plain text responses without tool calls are ignored. Use final_report to provide your answer." {
		t.Fatalf("retry request ends with %v", last)
	}
	for _, m := range o.res.Conversation {
		if strings.Contains(m.Content, "System notice: plain text") {
			t.Fatalf("ephemeral notice stored in the conversation")
		}
	}
	if got := llmSeq(o.res.Accounting); len(got) != 2 {
		t.Fatalf("the empty response did not count as an attempt: %v", got)
	}
}

// §2 reasoning-only response: the turn proceeds and the reasoning is kept.
func TestSection2_ReasoningOnlyProceeds(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("r", `{"turn":1,"response":{"kind":"text","assistantText":"","reasoning":"thinking hard"}}`, report(2, "done")))
	o := h.run("--models", "test/r", "s", "u").mustExit(t, 0)
	a := o.res.Conversation[2]
	if a.Role != contract.RoleAssistant || len(a.Reasoning) == 0 || a.Reasoning[0].Text != "thinking hard" {
		t.Fatalf("reasoning turn not kept: %+v", a)
	}
}

// §2 synthetic failure report: exact text, metadata and success:false.
func TestSection2_SyntheticFailureReport(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("f", `{"turn":1,"failuresBeforeSuccess":9,"failureStatus":"model_error","failureMessage":"upstream exploded","response":{"kind":"final-report","reportContent":"x"}}`))
	o := h.run("--models", "test/f", "--max-turns", "1", "--max-retries", "1", "--format", "json", "s", "u").mustExit(t, 1)
	fr := o.res.FinalReport
	want := "Session completed without a final report after 1 turn. Cause: upstream exploded"
	if fr == nil || *fr.Content != want || o.res.Error != want || fr.Format != "json" {
		t.Fatalf("synthetic report = %s", o.raw)
	}
	md := fr.Metadata
	if md["reason"] != contract.ReasonMaxTurns || md["turns_completed"] != float64(1) || md["last_error"] != "upstream exploded" {
		t.Fatalf("metadata = %v", md)
	}
	if o.stdout != want+"\n" {
		t.Fatalf("stdout = %q", o.stdout)
	}
}

// §3 auth and quota errors are fatal: no retry, no other target.
func TestSection3_AuthAndQuotaFatal(t *testing.T) {
	for _, status := range []string{"auth_error", "quota_exceeded"} {
		t.Run(status, func(t *testing.T) {
			h := newHarness(t)
			h.scenario(one("a", `{"turn":1,"failuresBeforeSuccess":5,"failureStatus":"`+status+`","failureMessage":"denied: `+status+`","response":{"kind":"final-report","reportContent":"x"}}`))
			o := h.run("--models", "test/a,test2/a", "--max-retries", "5", "s", "u").mustExit(t, 1)
			if got := llmSeq(o.res.Accounting); !slices.Equal(got, []string{"test:failed"}) {
				t.Fatalf("retried after a fatal error: %v", got)
			}
			if o.res.FinalReport != nil || !strings.Contains(o.res.Error, "denied: "+status) || !strings.Contains(o.stderr, "AGENT FAILED: ") {
				t.Fatalf("result = %s\nstderr %s", o.raw, o.stderr)
			}
		})
	}
}

// §3 rate limits honour Retry-After.
func TestSection3_RateLimitRetryAfter(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("r", `{"turn":1,"failuresBeforeSuccess":1,"failureStatus":"rate_limit","failureRetryAfterMs":400,"response":{"kind":"final-report","reportContent":"x"}}`))
	o := h.run("--models", "test/r", "s", "u").mustExit(t, 0)
	var ts []int64
	for _, e := range o.res.Accounting {
		if e.Type == contract.AccountingLLM {
			ts = append(ts, e.Timestamp)
		}
	}
	if len(ts) != 2 || ts[1]-ts[0] < 400 {
		t.Fatalf("second attempt did not wait for Retry-After: %v", ts)
	}
}

// §3 rate limits over the wire: a 429 with a Retry-After header, then the
// next target; when every target is rate-limited the engine waits.
func TestSection3_RateLimitOverTheWire(t *testing.T) {
	w := newWire(t)
	limited := llmtest.Reply{Status: 429, ErrorType: "rate_limit_exceeded", ErrorMessage: "slow down", Header: map[string]string{"Retry-After": "1"}}
	w.srv.Push(limited, limited, finalReply("ok"))
	start := time.Now()
	o := w.h.run("--models", "wire/m,wire2/m", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	if got := llmSeq(o.res.Accounting); !slices.Equal(got, []string{"wire:failed", "wire2:failed", "wire:ok"}) {
		t.Fatalf("llm entries = %v", got)
	}
	if time.Since(start) < time.Second {
		t.Fatalf("all targets rate-limited but no wait")
	}
}

// §3 network, timeout and model errors move to the next target at once.
func TestSection3_NetworkErrorsCycleImmediately(t *testing.T) {
	w := newWire(t)
	w.srv.Push(llmtest.Reply{Status: 503, ErrorMessage: "overloaded"}, llmtest.Reply{Fault: llmtest.FaultDropConnection}, finalReply("ok"))
	o := w.h.run("--models", "wire/m,wire2/m", "--max-retries", "3", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	acc := o.res.Accounting
	if got := llmSeq(acc); !slices.Equal(got, []string{"wire:failed", "wire2:failed", "wire:ok"}) {
		t.Fatalf("llm entries = %v", got)
	}
	gap := acc[2].Timestamp - (acc[0].Timestamp + acc[0].Latency)
	if gap > 900 {
		t.Fatalf("network/server errors waited %d ms before cycling", gap)
	}
}

// §3 auth over the wire: 401 is fatal with other targets left.
func TestSection3_AuthOverTheWire(t *testing.T) {
	w := newWire(t)
	w.srv.Push(llmtest.Reply{Status: 401, ErrorType: "invalid_api_key", ErrorMessage: "Incorrect API key provided"}, finalReply("never"))
	o := w.h.run("--models", "wire/m,wire2/m", "--tooling-transport", "native", "s", "u").mustExit(t, 1)
	if n := len(w.srv.Requests()); n != 1 {
		t.Fatalf("requests after 401 = %d", n)
	}
	if strings.Contains(string(o.raw)+o.stderr+o.stdout, "sk-conformance-secret") {
		t.Fatalf("api key leaked")
	}
}

// §3 invalid/malformed responses get a synthetic retry.
func TestSection3_InvalidResponseRetried(t *testing.T) {
	w := newWire(t)
	w.srv.Push(llmtest.Reply{Fault: llmtest.FaultMalformedJSON}, finalReply("ok"))
	o := w.h.run("--models", "wire/m", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	if got := llmSeq(o.res.Accounting); !slices.Equal(got, []string{"wire:failed", "wire:ok"}) {
		t.Fatalf("llm entries = %v", got)
	}
}

// §2 context guard, tool_preflight: an overflowing output is replaced by
// the stub, no new tool starts, the next turn is the forced final turn, and
// without a report the synthetic reason is context_window_exceeded.
func TestSection2_ContextGuardToolPreflight(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("g", `{"turn":1,"response":{"kind":"tool-call","toolCalls":[{"toolName":"rest__big","arguments":{"n":50000}},{"toolName":"rest__echo","arguments":{"text":"small"}}]}}`,
		echoTurn(2, "after overflow")))
	o := h.run("--models", "test/g", "--tools", "big,echo", "--tool-response-max-bytes", "0", "--override", "contextWindow=12000",
		"--max-output-tokens", "1000", "--tooling-transport", "native", "s", "u").mustExit(t, 1)
	msgs := toolMessages(o.res.Conversation)
	if msgs["call-1-1"] != "(tool failed: context window budget exceeded)" {
		t.Fatalf("big output not dropped: %.80q", msgs["call-1-1"])
	}
	if msgs["call-2-1"] != "(tool failed: unknown tool 'rest__echo')" || len(toolEntries(o.res.Accounting, "rest__echo")) > 1 {
		t.Fatalf("a new tool ran after the overflow: %q", msgs["call-2-1"])
	}
	if o.res.FinalReport.Metadata["reason"] != contract.ReasonContextWindow {
		t.Fatalf("reason = %v", o.res.FinalReport.Metadata["reason"])
	}
	if !strings.Contains(o.stderr, "projected_tokens") || !strings.Contains(o.stderr, "limit_tokens") {
		t.Fatalf("overflow not logged with the projection:\n%s", o.stderr)
	}
}

// §2 context guard, turn_preflight: a prompt that already overflows forces
// the final turn before the first request.
func TestSection2_ContextGuardTurnPreflight(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("g", `{"turn":1,"expectedTools":["rest__echo"],"response":{"kind":"final-report","reportContent":"x"}}`))
	huge := strings.Repeat("hello world ", 3000)
	o := h.run("--models", "test/g", "--tools", "echo", "--override", "contextWindow=12000", "--max-output-tokens", "1000", "s", huge)
	if o.code == 0 || !strings.Contains(o.res.Error, "rest__echo") {
		t.Fatalf("first request still offered the tools (exit %d): %s", o.code, o.res.Error)
	}
	h.scenario(one("g", report(1, "forced final")))
	o = h.run("--models", "test/g", "--tools", "echo", "--override", "contextWindow=12000", "--max-output-tokens", "1000", "s", huge).mustExit(t, 0)
	if !strings.Contains(o.stderr, "forcedFinalTurnReason=context") {
		t.Fatalf("forced final turn not logged:\n%s", o.stderr)
	}
}
