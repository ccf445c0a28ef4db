package enginetest

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/agent/tools/subagent"
	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// TestSubAgentThroughTheEngine runs a parent session whose model calls the
// sub-agent tool agent__worker; the runner runs the child as its own engine
// session with its own ids, and the child's report comes back as the tool
// result. The child's accounting carries the tracing chain.
func TestSubAgentThroughTheEngine(t *testing.T) {
	srv := newLLM(t, func(r chatRequest) llmtest.Reply {
		switch {
		case r.userPrompt() == "child task":
			args, _ := json.Marshal(map[string]string{"report_format": "sub-agent", "report_content": "child report"})
			return callTool("fr", agent.ToolFinalReport, string(args))
		case len(r.toolResults()) == 0:
			return callTool("c1", "agent__worker", `{"prompt":"child task","reason":"delegate","format":"sub-agent"}`)
		default:
			return finalReport("got: " + r.toolResults()[0])
		}
	})
	parentIDs := subagent.Root("main")
	var mu sync.Mutex
	var children []contract.AIAgentResult
	run := func(ctx context.Context, prompt string, parent subagent.TraceIDs) (contract.AIAgentResult, error) {
		ids := parent.Child("worker")
		o := sessionOpts(t, srv.OpenAIBaseURL(), 131072, prompt, nil, nil, nil)
		o.Format = agent.FormatSubAgent
		o.Trace = agent.Trace(ids)
		return agent.Run(ctx, o), nil
	}
	sub, err := subagent.New(parentIDs, []subagent.Agent{{Name: "worker", Run: run}}, subagent.Options{
		OnResult: func(_ string, res contract.AIAgentResult) {
			mu.Lock()
			children = append(children, res)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	o := sessionOpts(t, srv.OpenAIBaseURL(), 131072, "parent task", []tools.Provider{sub}, nil, nil)
	o.Trace = agent.Trace(parentIDs)
	res := agent.Run(context.Background(), o)
	if !res.Success || *res.FinalReport.Content != "got: child report" {
		t.Fatalf("parent result %+v", res)
	}
	if e := toolEntries(res, "agent__worker"); len(e) != 1 || e[0].MCPServer != "agent" || e[0].Status != contract.AccountingOK || e[0].TxnID != parentIDs.TxnID {
		t.Fatalf("parent's sub-agent accounting %+v", e)
	}
	if len(children) != 1 || !children[0].Success || len(children[0].Accounting) == 0 {
		t.Fatalf("child results %+v", children)
	}
	for _, e := range children[0].Accounting {
		if e.ParentTxnID != parentIDs.TxnID || e.OriginTxnID != parentIDs.OriginTxnID || e.CallPath != "main:worker" ||
			e.AgentID != "worker" || e.TxnID == parentIDs.TxnID || !strings.Contains(e.TxnID, "-") {
			t.Fatalf("child accounting ids %+v, parent %+v", e, parentIDs)
		}
	}
}
