package agentguard

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/llm"
)

func TestConvert(t *testing.T) {
	tests := []struct {
		in   agent.Target
		want int
	}{
		{agent.Target{Provider: "p", Model: "m", ContextWindow: 10000, ContextWindowBufferTokens: 1000, Params: agent.Params{MaxOutputTokens: 2000}}, 7000},
		{agent.Target{Provider: "p", Model: "m", Params: agent.Params{MaxOutputTokens: 16384}}, DefaultContextWindow - 16384},
	}
	for _, tt := range tests {
		if got := Convert(tt.in).Limit(); got != tt.want {
			t.Errorf("Convert(%+v).Limit() = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestGuardThroughTheEngineInterface drives the guard only through
// agent.ContextGuard, the way the engine calls it.
func TestGuardThroughTheEngineInterface(t *testing.T) {
	target := agent.Target{Provider: "p", Model: "m", ContextWindow: 1500, ContextWindowBufferTokens: 100, Params: agent.Params{MaxOutputTokens: 400}}
	g, err := New([]agent.Target{target}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var cg agent.ContextGuard = g
	defs := []llm.ToolDef{{Name: "t__echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, {Name: "agent__final_report", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	msgs := []llm.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "task"}}
	if cg.TurnPreflight(agent.GuardTurn{Target: target, Messages: msgs, Tools: defs}) {
		t.Fatal("turn 1 forced")
	}
	cg.Committed(target, llm.Response{Content: "", ToolCalls: []llm.ToolCall{{ID: "1", Name: "t__echo", Arguments: "{}"}}, Usage: contract.TokenUsage{InputTokens: 50, OutputTokens: 10}})
	if !cg.ToolPreflight("t__echo", "ok") {
		t.Fatal("small output dropped")
	}
	if cg.ToolPreflight("t__echo", strings.Repeat("lorem ipsum ", 500)) {
		t.Fatal("an output far over the limit was kept")
	}
	msgs = append(msgs, llm.Message{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "1", Name: "t__echo", Arguments: "{}"}}},
		llm.Message{Role: "tool", Content: "(tool failed: context window budget exceeded)", ToolCallID: "1"})
	if !cg.TurnPreflight(agent.GuardTurn{Target: target, Messages: msgs, Tools: defs}) {
		t.Fatal("turn 2 not forced after the drop")
	}
	cg.TurnPreflight(agent.GuardTurn{Target: target, Messages: msgs, Tools: defs[1:], Final: true})
	if c := g.Session().Guard().Counters(); c.Schema == 0 || c.Schema >= g.Session().SchemaTokens(defs) {
		t.Fatalf("final schema tokens %d not recomputed for the reduced tool set (both: %d)", c.Schema, g.Session().SchemaTokens(defs))
	}
	if b := g.Session().Guard().Blocked(); len(b) != 1 || b[0].Model != "m" {
		t.Fatalf("blocked %v", b)
	}
}

// TestLastActivationThroughTheEngineInterface: the engine reads the
// numbers of a drop through agent.GuardMeasurer.
func TestLastActivationThroughTheEngineInterface(t *testing.T) {
	target := agent.Target{Provider: "p", Model: "m", ContextWindow: 1500, ContextWindowBufferTokens: 100, Params: agent.Params{MaxOutputTokens: 400}}
	g, err := New([]agent.Target{target}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var m agent.GuardMeasurer = g
	if _, ok := m.LastActivation(); ok {
		t.Fatal("activation before any")
	}
	g.TurnPreflight(agent.GuardTurn{Target: target, Messages: []llm.Message{{Role: "user", Content: "task"}}})
	if g.ToolPreflight("t__echo", strings.Repeat("lorem ipsum ", 500)) {
		t.Fatal("an output far over the limit was kept")
	}
	a, ok := m.LastActivation()
	if !ok || a.Limit != 1000 || a.Projected <= a.Limit || a.Remaining <= 0 || a.Remaining >= a.Limit {
		t.Fatalf("activation %+v %v", a, ok)
	}
}
