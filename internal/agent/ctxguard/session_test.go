package ctxguard

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/tokens"
)

// TestSessionTurns drives the Session adapter through the request shapes an
// engine builds: turn 1, tool outputs, turn 2 with an ephemeral notice, an
// overflowing tool output, the forced final turn and its re-evaluation.
func TestSessionTurns(t *testing.T) {
	sink := &logSink{}
	target := Target{Provider: "p", Model: "m", ContextWindow: 2000, BufferTokens: 100, MaxOutputTokens: 400} // limit 1500
	s, err := NewSession([]Target{target}, tokens.Approx{}, slog.New(slog.NewJSONHandler(sink, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := tokens.Approx{}
	tool := llm.ToolDef{Name: "t__echo", Description: "Echo.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	final := llm.ToolDef{Name: FinalReportTool, Description: "Final.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	sys := llm.Message{Role: "system", Content: "You are terse."}
	user := llm.Message{Role: "user", Content: "Do the task."}
	next := llm.Message{Role: "user", Content: "XML-NEXT turn 1", Ephemeral: true}
	msgTokens := func(ms ...llm.Message) int {
		n := 0
		for _, m := range ms {
			n += MessageOverhead + c.Count(m.Content)
			for _, tc := range m.ToolCalls {
				n += c.Count(tc.Name) + c.Count(tc.Arguments) + MessageOverhead
			}
		}
		return n
	}
	schemaOne := ToolOverhead + c.Count(tool.Name) + c.Count(tool.Description) + c.Count(string(tool.InputSchema))
	schemaBoth := schemaOne + ToolOverhead + c.Count(final.Name) + c.Count(final.Description) + c.Count(string(final.InputSchema))
	schemaFinal := schemaBoth - schemaOne

	// Turn 1: ctx 0, everything pending.
	req1 := []llm.Message{sys, user, next}
	if s.Preflight(ctx, target, req1, []llm.ToolDef{tool, final}, false) {
		t.Fatal("turn 1 forced")
	}
	call := llm.ToolCall{ID: "1", Name: "t__echo", Arguments: `{"text":"x"}`}
	s.Committed(llm.Response{ToolCalls: []llm.ToolCall{call}, Usage: contract.TokenUsage{InputTokens: 60, OutputTokens: 20}})
	out := "small output"
	if !s.ToolPreflight("t__echo", out) {
		t.Fatal("small output dropped")
	}

	// Turn 2: the assistant reply is already in ctx; the tool message and
	// the new ephemeral notice are pending.
	asst := llm.Message{Role: "assistant", ToolCalls: []llm.ToolCall{call}}
	toolMsg := llm.Message{Role: "tool", Content: out, ToolCallID: "1"}
	next2 := llm.Message{Role: "user", Content: "XML-NEXT turn 2", Ephemeral: true}
	req2 := []llm.Message{sys, user, asst, toolMsg, next2}
	if s.Preflight(ctx, target, req2, []llm.ToolDef{tool, final}, false) {
		t.Fatal("turn 2 forced")
	}
	s.Committed(llm.Response{ToolCalls: []llm.ToolCall{call}, Usage: contract.TokenUsage{InputTokens: 100, OutputTokens: 20}})

	// A huge output is dropped; no new tools after it.
	if s.ToolPreflight("t__echo", strings.Repeat("word ", 2000)) {
		t.Fatal("huge output committed")
	}
	if s.Guard().AllowTool("t__echo") || !s.Guard().ToolBudgetExceeded() {
		t.Fatal("tools still allowed after the drop")
	}
	stub := llm.Message{Role: "tool", Content: StubText, ToolCallID: "2"}
	asst2 := llm.Message{Role: "assistant", ToolCalls: []llm.ToolCall{call}}
	req3 := []llm.Message{sys, user, asst, toolMsg, asst2, stub}
	if !s.Preflight(ctx, target, req3, []llm.ToolDef{tool, final}, false) {
		t.Fatal("turn 3 was not forced after the drop")
	}
	finalInstr := llm.Message{Role: "user", Content: "Context window exhausted: write your final report now."}
	req3f := append(append([]llm.Message(nil), req3...), finalInstr)
	if s.Preflight(ctx, target, req3f, []llm.ToolDef{final}, true) {
		t.Fatal("final preflight asked to force again")
	}

	logs := sink.records(t, "LLM request prepared")
	want := []struct{ ctx, pending, schema int }{
		{0, msgTokens(sys, user, next), schemaBoth},
		{80, msgTokens(toolMsg, next2), schemaBoth},
		{120, msgTokens(stub, finalInstr), schemaFinal},
	}
	if len(logs) != len(want) {
		t.Fatalf("%d LLM request prepared lines, want %d: %v", len(logs), len(want), logs)
	}
	for i, w := range want {
		l := logs[i]
		if num(l, "ctxTokens") != w.ctx || num(l, "pendingCtxTokens") != w.pending || num(l, "schemaCtxTokens") != w.schema ||
			num(l, "expectedTokens") != w.ctx+w.pending+w.schema {
			t.Errorf("request %d: %v, want ctx %d pending %d schema %d", i+1, l, w.ctx, w.pending, w.schema)
		}
	}
	if f := sink.records(t, "forced final turn"); len(f) != 1 || f[0]["forcedFinalTurnReason"] != "context" || num(f[0], "schemaCtxTokens") != schemaFinal {
		t.Fatalf("forced final log %v", f)
	}
	if b := s.Guard().Blocked(); len(b) != 1 || b[0] != target {
		t.Fatalf("blocked %v", b)
	}
}

func TestCommonPrefix(t *testing.T) {
	a := llm.Message{Role: "user", Content: "a"}
	b := llm.Message{Role: "assistant", Content: "b"}
	e := llm.Message{Role: "user", Content: "e", Ephemeral: true}
	tests := []struct {
		prev, next []llm.Message
		want       int
	}{
		{nil, []llm.Message{a}, 0},
		{[]llm.Message{a, e}, []llm.Message{a, b, e}, 1},
		{[]llm.Message{a, e}, []llm.Message{a, e}, 1},
		{[]llm.Message{a, b}, []llm.Message{a, b, e}, 2},
		{[]llm.Message{b}, []llm.Message{a}, 0},
	}
	for i, tt := range tests {
		if got := commonPrefix(tt.prev, tt.next); got != tt.want {
			t.Errorf("case %d: commonPrefix = %d, want %d", i, got, tt.want)
		}
	}
}
