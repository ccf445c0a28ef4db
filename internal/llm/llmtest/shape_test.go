package llmtest

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckShape(t *testing.T) {
	const (
		oaCall   = `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"g","arguments":"{}"}}]}`
		oaTool1  = `{"role":"tool","tool_call_id":"c1","content":"r1"}`
		oaTool2  = `{"role":"tool","tool_call_id":"c2","content":"r2"}`
		oaUser   = `{"role":"user","content":"u"}`
		anUse    = `{"role":"assistant","content":[{"type":"text","text":"t"},{"type":"tool_use","id":"u1","name":"f","input":{}},{"type":"tool_use","id":"u2","name":"g","input":{}}]}`
		anResult = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"u1","content":"r"},{"type":"tool_result","tool_use_id":"u2"},{"type":"text","text":"next"}]}`
	)
	cases := []struct {
		name string
		wire Wire
		body string
		want string // "" for an accepted shape, else part of the refusal
	}{
		{"openai answered", OpenAI, `{"messages":[` + oaUser + `,` + oaCall + `,` + oaTool2 + `,` + oaTool1 + `,` + oaUser + `]}`, ""},
		{"openai no tools", OpenAI, `{"messages":[{"role":"system","content":"s"},` + oaUser + `,{"role":"assistant","content":"a"},` + oaUser + `]}`, ""},
		{"openai call unanswered at the end", OpenAI, `{"messages":[` + oaUser + `,` + oaCall + `,` + oaTool1 + `]}`, "did not have response messages: c2"},
		{"openai call unanswered before user", OpenAI, `{"messages":[` + oaUser + `,` + oaCall + `,` + oaUser + `]}`, "did not have response messages: c1, c2"},
		{"openai result after a user message", OpenAI, `{"messages":[` + oaCall + `,` + oaTool1 + `,` + oaUser + `,` + oaTool2 + `]}`, "did not have response messages: c2"},
		{"openai orphan result", OpenAI, `{"messages":[` + oaUser + `,` + oaTool1 + `]}`, "must be a response to a preceeding message with 'tool_calls'"},
		{"openai result answered twice", OpenAI, `{"messages":[` + oaCall + `,` + oaTool1 + `,` + oaTool1 + `,` + oaTool2 + `]}`, "must be a response"},
		{"responses answered", OpenAIResponses, `{"input":[{"role":"user","content":"u"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"r"},{"role":"assistant","content":"a"},{"role":"user","content":"u"}]}`, ""},
		{"responses string input", OpenAIResponses, `{"input":"hello"}`, ""},
		{"responses call unanswered at the end", OpenAIResponses, `{"input":[{"role":"user","content":"u"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"role":"user","content":"u"}]}`, "No tool output found for function call c1."},
		{"responses call unanswered before assistant", OpenAIResponses, `{"input":[{"type":"function_call","call_id":"c1"},{"type":"message","role":"assistant","content":"a"},{"type":"function_call_output","call_id":"c1"}]}`, "No tool output found for function call c1."},
		{"responses orphan output", OpenAIResponses, `{"input":[{"type":"function_call_output","call_id":"zz","output":"r"}]}`, "No tool call found for function call output with call_id zz."},
		{"anthropic answered", Anthropic, `{"messages":[{"role":"user","content":"u"},` + anUse + `,` + anResult + `,{"role":"assistant","content":"done"}]}`, ""},
		{"anthropic unanswered at the end", Anthropic, `{"messages":[{"role":"user","content":"u"},` + anUse + `]}`, "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: u1, u2"},
		{"anthropic partly answered", Anthropic, `{"messages":[` + anUse + `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"u2"}]}]}`, "immediately after: u1"},
		{"anthropic answer a message late", Anthropic, `{"messages":[` + anUse + `,{"role":"user","content":"u"},{"role":"assistant","content":"a"},` + anResult + `]}`, "immediately after: u1, u2"},
		{"anthropic unknown result", Anthropic, `{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x9"}]}]}`, "unexpected `tool_use_id` found in `tool_result` blocks: x9"},
		{"anthropic text before results", Anthropic, `{"messages":[` + anUse + `,{"role":"user","content":[{"type":"text","text":"t"},{"type":"tool_result","tool_use_id":"u1"},{"type":"tool_result","tool_use_id":"u2"}]}]}`, "must come first"},
		{"ollama not checked", Ollama, `{"messages":[{"role":"tool","content":"x"}]}`, ""},
		{"not json", OpenAI, `{`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckShape(tc.wire, []byte(tc.body))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want a refusal saying %q", err, tc.want)
			}
		})
	}
}

// TestServerRefusesBadShape: the server answers a request that breaks the
// rule with HTTP 400 in the provider's error shape, records why, and keeps
// its scripted reply for the next request.
func TestServerRefusesBadShape(t *testing.T) {
	s := NewServer()
	defer s.Close()
	s.Push(Reply{Text: "ok"})
	for _, tc := range []struct {
		path, body, errType string
	}{
		{"/v1/chat/completions", `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"c1"}]}]}`, `"type":"invalid_request_error"`},
		{"/v1/messages", `{"model":"m","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"u1"}]}]}`, `"type":"error"`},
		{"/v1/responses", `{"model":"m","input":[{"type":"function_call","call_id":"c1"}]}`, `"type":"invalid_request_error"`},
	} {
		resp, body := post(t, s.URL+tc.path, tc.body)
		if resp.StatusCode != 400 || !strings.Contains(string(body), tc.errType) || !json.Valid(body) {
			t.Fatalf("%s: %d %s", tc.path, resp.StatusCode, body)
		}
	}
	if got := s.Rejected(); len(got) != 3 || !strings.Contains(got[2], "c1") {
		t.Fatalf("Rejected() = %q", got)
	}
	if resp, body := post(t, s.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"u"}]}`); resp.StatusCode != 200 || !strings.Contains(string(body), `"ok"`) {
		t.Fatalf("a good request after the refusals: %d %s", resp.StatusCode, body)
	}
}
