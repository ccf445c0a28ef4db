package agent

import (
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/llm"
)

// fakeGuard drops tool outputs longer than limit and forces the final turn
// after a drop, recording the calls it got.
type fakeGuard struct {
	limit    int
	dropped  bool
	turns    int
	finals   int
	commits  int
	finalReq GuardTurn
}

func (g *fakeGuard) TurnPreflight(t GuardTurn) bool {
	g.turns++
	if t.Final {
		g.finals++
		g.finalReq = t
	}
	return g.dropped
}
func (g *fakeGuard) Committed(Target, llm.Response) {
	g.commits++
}
func (g *fakeGuard) ToolPreflight(_, out string) bool {
	if len(out) > g.limit {
		g.dropped = true
		return false
	}
	return true
}

func TestGuardDropsToolAndForcesFinal(t *testing.T) {
	big := `{"text":"` + string(make([]byte, 0)) + `xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`
	f := script(llm.Response{ToolCalls: []llm.ToolCall{{ID: "a", Name: "t__echo", Arguments: big}, {ID: "b", Name: "t__echo", Arguments: `{"text":"ok"}`}}},
		toolCall("c", "t__echo", `{"text":"again"}`))
	o := opts(t, f)
	o.MaxTurns = 5
	o.Tools = []tools.Provider{echoTools()}
	g := &fakeGuard{limit: 10}
	o.Guard = g
	res := run(t, o)
	msgs := map[string]string{}
	for _, m := range res.Conversation {
		if m.Role == contract.RoleTool {
			msgs[m.ToolCallID] = m.Content
		}
	}
	if msgs["a"] != "(tool failed: context window budget exceeded)" || msgs["b"] != "ok" {
		t.Fatalf("tool messages = %v", msgs)
	}
	if g.finals != 1 || len(g.finalReq.Tools) != 1 || g.finalReq.Tools[0].Name != ToolFinalReport {
		t.Fatalf("final preflight = %d, tools %v", g.finals, g.finalReq.Tools)
	}
	if res.Success || res.FinalReport.Metadata["reason"] != contract.ReasonContextWindow {
		t.Fatalf("want context_window_exceeded, got %+v", res.FinalReport)
	}
	if len(f.reqs) != 2 || len(f.reqs[1].Tools) != 1 {
		t.Fatalf("forced turn offered %d tools over %d requests", len(f.reqs[1].Tools), len(f.reqs))
	}
	if msgs["c"] != "(tool failed: unknown tool 't__echo')" {
		t.Fatalf("a tool ran after the overflow: %q", msgs["c"])
	}
}
