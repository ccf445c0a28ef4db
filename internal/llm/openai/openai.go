// Package openai is the provider for the OpenAI chat completions wire API
// (POST {baseUrl}/chat/completions), used by the provider types openai,
// openai-compatible and openrouter. It sends requests with net/http,
// streams Server-Sent Events when asked, and classifies every failure as an
// [llm.Error].
//
// With Options.Mode set to ModeResponses (openaiMode: responses) it speaks
// the Responses API (POST {baseUrl}/responses) instead.
package openai

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/internal/wire"
)

// Flavor is the provider type, which decides a few request fields.
type Flavor string

// The flavors.
const (
	// FlavorOpenAI is api.openai.com: max_completion_tokens, no top_k or
	// repetition penalty, reasoning_effort.
	FlavorOpenAI Flavor = "openai"
	// FlavorCompatible is any server speaking the same API (vLLM,
	// llama.cpp, LM Studio, Ollama's /v1…): max_tokens, top_k and
	// repetition_penalty, reasoning_effort.
	FlavorCompatible Flavor = "openai-compatible"
	// FlavorOpenRouter is openrouter.ai: as compatible, with reasoning as
	// {"reasoning": {"effort", "max_tokens"}}.
	FlavorOpenRouter Flavor = "openrouter"
)

// Default base URLs.
const (
	DefaultOpenAIURL     = "https://api.openai.com/v1"
	DefaultOpenRouterURL = "https://openrouter.ai/api/v1"
)

// Options configures a Provider.
type Options struct {
	// Flavor defaults to FlavorCompatible.
	Flavor Flavor
	// BaseURL is the endpoint prefix; "/chat/completions" is appended. It
	// defaults to the flavor's public endpoint (none for compatible).
	BaseURL string
	// APIKey, when set, is sent as "Authorization: Bearer KEY". It never
	// appears in error messages.
	APIKey string
	// Headers are extra request headers.
	Headers map[string]string
	// HTTPClient sends the requests; nil means a client with no overall
	// timeout (the request context and Timeout bound each call).
	HTTPClient *http.Client
	// Timeout bounds one whole call, streaming included; 0 means none
	// beyond the context's.
	Timeout time.Duration
	// Mode is ModeChat (the default, also when empty) or ModeResponses.
	Mode string
}

// Provider is an OpenAI chat completions client. It is safe for concurrent
// use.
type Provider struct {
	flavor    Flavor
	responses bool
	url       string
	ep        wire.Endpoint
}

var _ llm.Provider = (*Provider)(nil)

// New returns a Provider for o.
func New(o Options) *Provider {
	if o.Flavor == "" {
		o.Flavor = FlavorCompatible
	}
	base := o.BaseURL
	if base == "" {
		switch o.Flavor {
		case FlavorOpenAI:
			base = DefaultOpenAIURL
		case FlavorOpenRouter:
			base = DefaultOpenRouterURL
		}
	}
	var auth string
	if o.APIKey != "" {
		auth = "Bearer " + o.APIKey
	}
	path := "chat/completions"
	if o.Mode == ModeResponses {
		path = "responses"
	}
	return &Provider{
		flavor:    o.Flavor,
		responses: o.Mode == ModeResponses,
		url:       wire.JoinURL(base, path),
		ep: wire.Endpoint{
			Provider: string(o.Flavor),
			Client:   o.HTTPClient,
			Header:   wire.Header(o.Headers, "Authorization", auth),
			Secrets:  []string{o.APIKey},
			Timeout:  o.Timeout,
		},
	}
}

// Complete sends one chat completion request, or in ModeResponses one
// Responses request.
func (p *Provider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if p.responses {
		return p.ep.Call(ctx, p.url, p.buildResponsesRequest(req), req, p.decodeResponses, p.readResponsesStream)
	}
	return p.ep.Call(ctx, p.url, p.buildRequest(req), req, p.decode, p.readStream)
}

// chatRequest is the request body. Pointer and omitempty fields are left
// out when unset.
type chatRequest struct {
	Model               string              `json:"model"`
	Messages            []chatMessage       `json:"messages"`
	Tools               []wire.FunctionTool `json:"tools,omitempty"`
	ToolChoice          string              `json:"tool_choice,omitempty"`
	Temperature         *float64            `json:"temperature,omitempty"`
	TopP                *float64            `json:"top_p,omitempty"`
	TopK                *int                `json:"top_k,omitempty"`
	RepetitionPenalty   *float64            `json:"repetition_penalty,omitempty"`
	MaxTokens           int                 `json:"max_tokens,omitempty"`
	MaxCompletionTokens int                 `json:"max_completion_tokens,omitempty"`
	ReasoningEffort     string              `json:"reasoning_effort,omitempty"`
	Reasoning           *routerThinking     `json:"reasoning,omitempty"`
	Stream              bool                `json:"stream,omitempty"`
	StreamOptions       *streamOptions      `json:"stream_options,omitempty"`
}

type routerThinking struct {
	Effort    string `json:"effort,omitempty"`
	MaxTokens *int   `json:"max_tokens,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatMessage struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type chatToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// buildRequest maps an llm.Request to the wire body (see docs/llm.md for
// the per-flavor parameter table).
func (p *Provider) buildRequest(req llm.Request) chatRequest {
	out := chatRequest{
		Model:       req.Model,
		Messages:    messages(req.Messages),
		Temperature: req.Temperature,
		TopP:        req.TopP,
		Stream:      req.Stream,
	}
	out.Tools = wire.FunctionTools(req.Tools)
	if len(out.Tools) > 0 {
		out.ToolChoice = req.ToolChoice
	}
	if req.Stream {
		out.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	effort := req.Reasoning
	if effort == "none" {
		effort = ""
	}
	switch p.flavor {
	case FlavorOpenAI:
		out.MaxCompletionTokens = req.MaxOutputTokens
		out.ReasoningEffort = effort
		if IsReasoningModel(req.Model) {
			// These models refuse sampling parameters with a 400.
			out.Temperature, out.TopP = nil, nil
		}
	case FlavorOpenRouter:
		out.MaxTokens = req.MaxOutputTokens
		out.TopK = req.TopK
		out.RepetitionPenalty = req.RepeatPenalty
		if effort != "" || (req.ReasoningTokens != nil && *req.ReasoningTokens > 0) {
			out.Reasoning = &routerThinking{Effort: effort}
			if req.ReasoningTokens != nil && *req.ReasoningTokens > 0 {
				out.Reasoning = &routerThinking{MaxTokens: req.ReasoningTokens}
			}
		}
	default:
		out.MaxTokens = req.MaxOutputTokens
		out.TopK = req.TopK
		out.RepetitionPenalty = req.RepeatPenalty
		out.ReasoningEffort = effort
	}
	return out
}

// IsReasoningModel reports whether an api.openai.com model is a reasoning
// model (o1, o3, o4…, gpt-5 except gpt-5-chat), which refuses temperature
// and top_p. The openai flavor leaves both out for them, as the AI SDK's
// OpenAI provider does.
func IsReasoningModel(model string) bool {
	m := strings.ToLower(model)
	m = strings.TrimPrefix(m, "openai/")
	switch {
	case strings.HasPrefix(m, "gpt-5-chat"):
		return false
	case strings.HasPrefix(m, "gpt-5"):
		return true
	case len(m) >= 2 && m[0] == 'o' && m[1] >= '1' && m[1] <= '9':
		return true
	}
	return false
}

func messages(in []llm.Message) []chatMessage {
	out := make([]chatMessage, 0, len(in))
	for _, m := range in {
		content := m.Content
		cm := chatMessage{Role: m.Role, Content: &content, ToolCallID: m.ToolCallID}
		if m.Role == contract.RoleAssistant && len(m.ToolCalls) > 0 {
			if content == "" {
				cm.Content = nil
			}
			cm.ToolCalls = chatToolCalls(m.ToolCalls)
		}
		out = append(out, cm)
	}
	return out
}

func chatToolCalls(calls []llm.ToolCall) []chatToolCall {
	out := make([]chatToolCall, 0, len(calls))
	for _, c := range calls {
		out = append(out, chatToolCall{ID: c.ID, Type: "function", Function: chatFunction{Name: c.Name, Arguments: c.Arguments}})
	}
	return out
}
