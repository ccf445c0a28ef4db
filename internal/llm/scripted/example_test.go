package scripted_test

import (
	"context"
	"fmt"

	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/scripted"
)

// One scenario, played in the xml-final transport: turn 1 fails once with
// a rate limit, then calls a tool natively; turn 2 answers with the FINAL
// tag.
func Example() {
	sc, err := scripted.Parse([]byte(`{"id":"demo","turns":[
	  {"turn":1,"failuresBeforeSuccess":1,"failureStatus":"rate_limit","failureRetryAfterMs":100,
	   "response":{"kind":"tool-call","toolCalls":[{"toolName":"t__echo","arguments":{"text":"ping"}}]}},
	  {"turn":2,"response":{"kind":"final-report","reportContent":"# Done"}}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	p := scripted.New(sc)
	session := llm.SessionInfo{ProviderName: "test", Transport: "xml-final", Nonce: "3f9a0c1e", Format: "markdown"}
	req := llm.Request{Model: "demo", Session: session, Messages: []llm.Message{{Role: "user", Content: "go"}}}

	_, err = p.Complete(context.Background(), req)
	fmt.Println(err)
	resp, _ := p.Complete(context.Background(), req)
	fmt.Println(resp.ToolCalls[0].ID, resp.ToolCalls[0].Name, resp.ToolCalls[0].Arguments)

	req.Messages = append(req.Messages, llm.Message{Role: "assistant", ToolCalls: resp.ToolCalls},
		llm.Message{Role: "tool", ToolCallID: "call-1-1", Content: "ping"})
	resp, _ = p.Complete(context.Background(), req)
	fmt.Println(resp.Content)
	// Output:
	// rate_limit (HTTP 429): Simulated failure
	// call-1-1 t__echo {"text":"ping"}
	// <ai-agent-3f9a0c1e-FINAL tool="agent__final_report" format="markdown"># Done</ai-agent-3f9a0c1e-FINAL>
}
