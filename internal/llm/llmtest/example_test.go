package llmtest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/llmtest"
	"github.com/salve-dev/salve/internal/llm/openai"
)

// A rate limit with Retry-After, then a streamed tool call whose arguments
// arrive in 4-byte pieces, through the OpenAI provider.
func ExampleServer() {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Push(
		llmtest.RateLimited("2"),
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "fs__read", Arguments: `{"path":"a.txt"}`}},
			Usage: &llmtest.Usage{Input: 10, Output: 5, CacheRead: 90}, ChunkSize: 4},
	)
	p := openai.New(openai.Options{BaseURL: srv.OpenAIBaseURL(), APIKey: "k", Timeout: 5 * time.Second})
	req := llm.Request{Model: "gpt-test", Stream: true, Messages: []llm.Message{{Role: "user", Content: "read a.txt"}}}

	_, err := p.Complete(context.Background(), req)
	e := llm.AsError(err)
	fmt.Println(e.Class, e.Status, e.RetryAfter)

	resp, err := p.Complete(context.Background(), req)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.ToolCalls[0].Name, resp.ToolCalls[0].Arguments, resp.StopReason)
	fmt.Println(resp.Usage.InputTokens, *resp.Usage.CacheReadInputTokens, resp.Usage.TotalTokens)
	fmt.Println(len(srv.Requests()), srv.Requests()[1].Stream)
	// Output:
	// rate_limit 429 2s
	// fs__read {"path":"a.txt"} tool_calls
	// 10 90 105
	// 2 true
}
