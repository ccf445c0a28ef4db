package conformance

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/llm/llmtest"
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

// §1 provider configuration: every wire type runs a tool turn and a report
// turn against a local server speaking its format, with the configured
// parameters on every request.
func TestSection1_ProviderTypes(t *testing.T) {
	cases := []struct {
		typ  string
		base func(*llmtest.Server) string
		wire llmtest.Wire
	}{
		{"openai-compatible", (*llmtest.Server).OpenAIBaseURL, llmtest.OpenAI},
		{"anthropic", (*llmtest.Server).AnthropicBaseURL, llmtest.Anthropic},
		{"ollama", (*llmtest.Server).OllamaBaseURL, llmtest.Ollama},
		{"google", (*llmtest.Server).GeminiBaseURL, llmtest.Gemini},
	}
	for _, tc := range cases {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", tc.typ, stream), func(t *testing.T) {
				h := newHarness(t)
				srv := llmtest.NewServer()
				t.Cleanup(srv.Close)
				h.config(map[string]any{"providers": map[string]any{
					"p": map[string]any{"type": tc.typ, "baseUrl": tc.base(srv), "apiKey": "sk-wire-secret"},
				}})
				srv.Push(echoReply("over the wire"), finalReply("wire report"))
				args := []string{"--models", "p/some-model", "--tools", "echo", "--temperature", "0.3", "--tooling-transport", "native"}
				if stream {
					args = append(args, "--stream")
				}
				o := h.run(append(args, "s", "u")...).mustExit(t, 0)
				if o.stdout != "wire report\n" || toolMessages(o.res.Conversation)[o.res.Conversation[2].ToolCalls[0].ID] != "over the wire" {
					t.Fatalf("stdout %q conversation %+v", o.stdout, o.res.Conversation)
				}
				for i, r := range srv.Requests() {
					if r.Wire != tc.wire || r.Stream != stream || r.Model != "some-model" {
						t.Fatalf("request %d: wire %s stream %v model %s", i, r.Wire, r.Stream, r.Model)
					}
					if !strings.Contains(string(r.Body), `"temperature":0.3`) {
						t.Fatalf("request %d lacks the temperature: %s", i, r.Body)
					}
				}
				if strings.Contains(string(o.raw)+o.stderr, "sk-wire-secret") {
					t.Fatalf("api key leaked")
				}
			})
		}
	}
}
