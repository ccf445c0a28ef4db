package conformance

import (
	"encoding/json"
	"testing"

	"github.com/salve-dev/salve/llm/llmtest"
)

// wire is a harness whose provider "wire" is openai-compatible against a
// local llmtest server speaking the chat completions wire format.
type wire struct {
	h   *harness
	srv *llmtest.Server
}

func newWire(t *testing.T) *wire {
	t.Helper()
	h := newHarness(t)
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	h.config(map[string]any{"providers": map[string]any{
		"wire":  map[string]any{"type": "openai-compatible", "baseUrl": srv.OpenAIBaseURL(), "apiKey": "sk-conformance-secret"},
		"wire2": map[string]any{"type": "openai-compatible", "baseUrl": srv.OpenAIBaseURL(), "apiKey": "sk-conformance-secret"},
	}})
	return &wire{h: h, srv: srv}
}

func echoReply(text string) llmtest.Reply {
	args, _ := json.Marshal(map[string]string{"text": text})
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "rest__echo", Arguments: string(args)}}}
}

func finalReply(content string) llmtest.Reply {
	args, _ := json.Marshal(map[string]string{"report_format": "pipe", "report_content": content})
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "agent__final_report", Arguments: string(args)}}}
}

// offeredTools lists the native tool names of a chat completions request.
func offeredTools(r llmtest.Request) []string {
	var body struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	_ = r.Decode(&body)
	var out []string
	for _, t := range body.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// requestMessages returns the messages of a chat completions request.
func requestMessages(r llmtest.Request) []map[string]any {
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	_ = r.Decode(&body)
	return body.Messages
}
