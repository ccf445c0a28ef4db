package providers

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/anthropic"
	"github.com/salve-dev/salve/internal/llm/google"
	"github.com/salve-dev/salve/internal/llm/llmtest"
	"github.com/salve-dev/salve/internal/llm/ollama"
	"github.com/salve-dev/salve/internal/llm/openai"
	"github.com/salve-dev/salve/internal/llm/scripted"
)

func TestNewByType(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.json")
	if err := os.WriteFile(scen, []byte(`{"id":"a","turns":[{"turn":1,"failuresBeforeSuccess":1,"response":{"kind":"text","assistantText":"hi"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"id":"a","turns":[{"turn":0}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec    Spec
		want    any
		wantErr error
	}{
		{Spec{Type: "openai"}, &openai.Provider{}, nil},
		{Spec{Type: "openai", OpenAIMode: "chat"}, &openai.Provider{}, nil},
		{Spec{Type: "openai", OpenAIMode: "responses"}, &openai.Provider{}, nil},
		{Spec{Type: "openai", OpenAIMode: "assistants"}, nil, ErrUnsupported},
		{Spec{Type: "openai-compatible", BaseURL: "http://127.0.0.1:1/v1"}, &openai.Provider{}, nil},
		{Spec{Type: "openai-compatible"}, nil, ErrBaseURLRequired},
		{Spec{Type: "openrouter"}, &openai.Provider{}, nil},
		{Spec{Type: "anthropic"}, &anthropic.Provider{}, nil},
		{Spec{Type: "ollama"}, &ollama.Provider{}, nil},
		{Spec{Type: "test-llm", ScenarioFile: scen}, &scripted.Provider{}, nil},
		{Spec{Type: "test-llm"}, nil, ErrScenario},
		{Spec{Type: "test-llm", ScenarioFile: bad}, nil, ErrScenario},
		{Spec{Type: "test-llm", ScenarioFile: filepath.Join(dir, "missing.json")}, nil, ErrScenario},
		{Spec{Type: "google"}, &google.Provider{}, nil},
		{Spec{Type: "bedrock"}, nil, ErrUnknownType},
	}
	var f Factory
	for _, tt := range tests {
		p, err := f.New(tt.spec)
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("%+v: err = %v, want %v", tt.spec, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", tt.spec, err)
			continue
		}
		if got, want := typeName(p), typeName(tt.want); got != want {
			t.Errorf("%+v: got %s, want %s", tt.spec, got, want)
		}
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *openai.Provider:
		return "openai"
	case *anthropic.Provider:
		return "anthropic"
	case *ollama.Provider:
		return "ollama"
	case *scripted.Provider:
		return "scripted"
	case *google.Provider:
		return "google"
	}
	return "?"
}

// TestScriptedSharedPerFile checks that two entries naming one scenario
// file share failure counters, as the process-lifetime rule requires.
func TestScriptedSharedPerFile(t *testing.T) {
	scen := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(scen, []byte(`{"id":"a","turns":[{"turn":1,"failuresBeforeSuccess":1,"response":{"kind":"text","assistantText":"hi"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var f Factory
	p1, err := f.New(Spec{Name: "one", Type: "test-llm", ScenarioFile: scen})
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := f.New(Spec{Name: "two", Type: "test-llm", ScenarioFile: scen})
	if p1 != p2 {
		t.Fatal("two providers for one scenario file")
	}
	req := llm.Request{Model: "a", Session: llm.SessionInfo{ProviderName: "one"}}
	if _, err := p1.Complete(context.Background(), req); err == nil {
		t.Fatal("first attempt should fail")
	}
	if _, err := p2.Complete(context.Background(), req); err != nil {
		t.Fatalf("second attempt through the other entry: %v", err)
	}
}

// TestEndToEnd sends one request through each HTTP type to llmtest.
func TestEndToEnd(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	specs := []Spec{
		{Type: "openai", BaseURL: srv.OpenAIBaseURL()},
		{Type: "openai", OpenAIMode: "responses", BaseURL: srv.OpenAIBaseURL()},
		{Type: "openai-compatible", BaseURL: srv.OpenAIBaseURL()},
		{Type: "openrouter", BaseURL: srv.OpenAIBaseURL()},
		{Type: "anthropic", BaseURL: srv.AnthropicBaseURL()},
		{Type: "ollama", BaseURL: srv.URL + "/v1"},
		{Type: "google", BaseURL: srv.GeminiBaseURL()},
	}
	var f Factory
	for _, s := range specs {
		srv.Push(llmtest.Reply{Text: "hello from " + s.Type})
		p, err := f.New(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, stream := range []bool{false, true} {
			if stream {
				srv.Push(llmtest.Reply{Text: "hello from " + s.Type})
			}
			resp, err := p.Complete(context.Background(), llm.Request{Model: "m", Stream: stream,
				Messages: []llm.Message{{Role: "user", Content: "hi"}}})
			if err != nil || resp.Content != "hello from "+s.Type {
				t.Errorf("%s stream=%v: %q %v", s.Type, stream, resp.Content, err)
			}
		}
	}
}

// TestParametersReachTheWire is docs/contracts/ai-agent.md §9's
// "configuration ignored" violation, for every HTTP type: each parameter set
// on the request arrives in the body under the wire's own name, with the
// same value.
func TestParametersReachTheWire(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	type want map[string]any // dotted path → value
	tests := []struct {
		typ, base string
		reasoning string
		want      want
	}{
		{"openai", srv.OpenAIBaseURL(), "low", want{"temperature": 0.5, "top_p": 0.7, "max_completion_tokens": 321.0, "reasoning_effort": "low"}},
		{"openai-compatible", srv.OpenAIBaseURL(), "low", want{"temperature": 0.5, "top_p": 0.7, "top_k": 7.0, "repetition_penalty": 1.2, "max_tokens": 321.0, "reasoning_effort": "low"}},
		{"openrouter", srv.OpenAIBaseURL(), "low", want{"temperature": 0.5, "top_p": 0.7, "top_k": 7.0, "repetition_penalty": 1.2, "max_tokens": 321.0, "reasoning.effort": "low"}},
		{"anthropic", srv.AnthropicBaseURL(), "", want{"temperature": 0.5, "top_p": 0.7, "top_k": 7.0, "max_tokens": 321.0, "thinking": nil}},
		// With thinking the API refuses sampling parameters, and the budget
		// is added to max_tokens (docs/llm.md).
		{"anthropic", srv.AnthropicBaseURL(), "low", want{"temperature": nil, "top_k": nil, "max_tokens": 2369.0, "thinking.budget_tokens": 2048.0}},
		{"ollama", srv.OllamaBaseURL(), "low", want{"options.temperature": 0.5, "options.top_p": 0.7, "options.top_k": 7.0, "options.repeat_penalty": 1.2, "options.num_predict": 321.0, "think": true}},
		// The Gemini API has no repeat penalty.
		{"google", srv.GeminiBaseURL(), "low", want{"generationConfig.temperature": 0.5, "generationConfig.topP": 0.7, "generationConfig.topK": 7.0,
			"generationConfig.maxOutputTokens": 321.0, "generationConfig.thinkingConfig.thinkingBudget": 2048.0}},
	}
	var f Factory
	for _, tt := range tests {
		p, err := f.New(Spec{Type: tt.typ, BaseURL: tt.base})
		if err != nil {
			t.Fatal(err)
		}
		req := llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: "hi"}},
			Temperature: new(0.5), TopP: new(0.7), TopK: new(7), RepeatPenalty: new(1.2), MaxOutputTokens: 321, Reasoning: tt.reasoning}
		if _, err := p.Complete(context.Background(), req); err != nil {
			t.Fatalf("%s: %v", tt.typ, err)
		}
		reqs := srv.Requests()
		body := reqs[len(reqs)-1].JSON()
		for path, v := range tt.want {
			if got := lookup(body, path); got != v {
				t.Errorf("%s: %s = %#v, want %#v", tt.typ, path, got, v)
			}
		}
	}
}

func lookup(m map[string]any, path string) any {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = obj[k]
	}
	return cur
}
