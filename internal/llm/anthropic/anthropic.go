// Package anthropic is the provider for the Anthropic Messages API
// (POST {baseUrl}/messages), streaming and not. It maps tool calls to
// tool_use and tool_result blocks, keeps thinking blocks with their
// signatures in [contract.ReasoningPart.ProviderMetadata] so they can be
// replayed, marks prompt-cache breakpoints when caching is "full", and
// classifies every failure as an [llm.Error].
package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/internal/wire"
)

// Defaults of the wire API.
const (
	DefaultBaseURL = "https://api.anthropic.com/v1"
	// DefaultVersion is the anthropic-version header sent.
	DefaultVersion = "2023-06-01"
	// DefaultMaxTokens is sent when the request sets no output limit;
	// the API requires max_tokens.
	DefaultMaxTokens = 4096
	// MinThinkingBudget is the smallest thinking budget the API accepts.
	MinThinkingBudget = 1024
)

// ReasoningBudgets maps a reasoning level to a thinking budget, used when
// the request sets a level but no token count.
var ReasoningBudgets = map[string]int{
	"minimal": 1024,
	"low":     2048,
	"medium":  8192,
	"high":    16384,
}

// Options configures a Provider.
type Options struct {
	// BaseURL is the endpoint prefix; "/messages" is appended. Empty
	// means DefaultBaseURL.
	BaseURL string
	// APIKey is sent as x-api-key. It never appears in error messages.
	APIKey string
	// Version is the anthropic-version header; empty means the
	// anthropic-version of Headers, else DefaultVersion.
	Version string
	// Headers are extra request headers (anthropic-beta…).
	Headers map[string]string
	// HTTPClient sends the requests; nil means a client with no overall
	// timeout.
	HTTPClient *http.Client
	// Timeout bounds one whole call, streaming included; 0 means none
	// beyond the context's.
	Timeout time.Duration
}

// Provider is an Anthropic Messages client. It is safe for concurrent use.
type Provider struct {
	url string
	ep  wire.Endpoint
}

var _ llm.Provider = (*Provider)(nil)

// New returns a Provider for o.
func New(o Options) *Provider {
	base := o.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	version := o.Version
	for k, v := range o.Headers {
		if version == "" && strings.EqualFold(k, "anthropic-version") {
			version = v // a configured header may pin another version
		}
	}
	if version == "" {
		version = DefaultVersion
	}
	return &Provider{
		url: wire.JoinURL(base, "messages"),
		ep: wire.Endpoint{
			Provider: "anthropic",
			Client:   o.HTTPClient,
			Header:   wire.Header(o.Headers, "x-api-key", o.APIKey, "anthropic-version", version),
			Secrets:  []string{o.APIKey},
			Timeout:  o.Timeout,
		},
	}
}

// Complete sends one Messages request.
func (p *Provider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	return p.ep.Call(ctx, p.url, buildRequest(req), req, p.decode, p.readStream)
}

type msgRequest struct {
	Model       string      `json:"model"`
	MaxTokens   int         `json:"max_tokens"`
	System      []block     `json:"system,omitempty"`
	Messages    []message   `json:"messages"`
	Tools       []tool      `json:"tools,omitempty"`
	ToolChoice  *toolChoice `json:"tool_choice,omitempty"`
	Temperature *float64    `json:"temperature,omitempty"`
	TopP        *float64    `json:"top_p,omitempty"`
	TopK        *int        `json:"top_k,omitempty"`
	Thinking    *thinking   `json:"thinking,omitempty"`
	Stream      bool        `json:"stream,omitempty"`
}

type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

// block is every content block kind the provider sends or reads.
type block struct {
	Type         string          `json:"type"`
	Text         *string         `json:"text,omitempty"`
	Thinking     *string         `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
	Data         string          `json:"data,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      *string         `json:"content,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type cacheControl struct {
	Type string `json:"type"`
}

type tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type toolChoice struct {
	Type string `json:"type"`
}

type thinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

// signatureMeta is the ProviderMetadata of a thinking block.
type signatureMeta struct {
	Anthropic struct {
		Signature    string `json:"signature,omitempty"`
		RedactedData string `json:"redactedData,omitempty"`
	} `json:"anthropic"`
}

func buildRequest(req llm.Request) msgRequest {
	out := msgRequest{
		Model:       req.Model,
		MaxTokens:   req.MaxOutputTokens,
		Temperature: req.Temperature,
		TopP:        req.TopP,
		TopK:        req.TopK,
		Stream:      req.Stream,
	}
	if out.MaxTokens <= 0 {
		out.MaxTokens = DefaultMaxTokens
	}
	out.System, out.Messages = convertMessages(req.Messages)
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: wire.Schema(t.InputSchema)})
	}
	if len(out.Tools) > 0 {
		switch req.ToolChoice {
		case "auto":
			out.ToolChoice = &toolChoice{Type: "auto"}
		case "required":
			out.ToolChoice = &toolChoice{Type: "any"}
		}
	}
	if budget := thinkingBudget(req); budget > 0 {
		// As the AI SDK does: the API refuses sampling parameters with
		// thinking, and the budget counts inside max_tokens, so the answer
		// keeps its own room on top of it.
		out.Thinking = &thinking{Type: "enabled", BudgetTokens: budget}
		out.Temperature, out.TopP, out.TopK = nil, nil, nil
		out.MaxTokens += budget
	}
	if req.Caching == "full" {
		markCache(&out)
	}
	return out
}

// thinkingBudget is ReasoningTokens when set, else the budget of the
// reasoning level, raised to the API minimum; 0 means no thinking.
func thinkingBudget(req llm.Request) int {
	var budget int
	switch {
	case req.ReasoningTokens != nil:
		budget = *req.ReasoningTokens
	default:
		budget = ReasoningBudgets[req.Reasoning]
	}
	if budget <= 0 {
		return 0
	}
	return max(budget, MinThinkingBudget)
}

// convertMessages splits off the leading system messages and maps the rest
// to alternating user/assistant messages: tool results become tool_result
// blocks of a user message, later system messages become user text, and
// consecutive messages of one role are merged. Empty text is dropped, as
// the API refuses empty text blocks.
func convertMessages(in []llm.Message) ([]block, []message) {
	var system []block
	i := 0
	for ; i < len(in) && in[i].Role == contract.RoleSystem; i++ {
		if in[i].Content != "" {
			system = append(system, textBlock(in[i].Content))
		}
	}
	var out []message
	add := func(role string, blocks ...block) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			return
		}
		out = append(out, message{Role: role, Content: blocks})
	}
	for _, m := range in[i:] {
		switch m.Role {
		case contract.RoleAssistant:
			add("assistant", assistantBlocks(m)...)
		case contract.RoleTool:
			b := block{Type: "tool_result", ToolUseID: m.ToolCallID}
			if m.Content != "" {
				c := m.Content
				b.Content = &c
			}
			add("user", b)
		default:
			if m.Content != "" {
				add("user", textBlock(m.Content))
			}
		}
	}
	return system, out
}

func textBlock(s string) block { return block{Type: "text", Text: &s} }

func assistantBlocks(m llm.Message) []block {
	var blocks []block
	for _, r := range m.Reasoning {
		var meta signatureMeta
		_ = json.Unmarshal(r.ProviderMetadata, &meta)
		switch {
		case meta.Anthropic.RedactedData != "":
			blocks = append(blocks, block{Type: "redacted_thinking", Data: meta.Anthropic.RedactedData})
		case meta.Anthropic.Signature != "":
			text := r.Text
			blocks = append(blocks, block{Type: "thinking", Thinking: &text, Signature: meta.Anthropic.Signature})
		}
		// Reasoning without a signature cannot be replayed; it is dropped.
	}
	if m.Content != "" {
		blocks = append(blocks, textBlock(m.Content))
	}
	for _, c := range m.ToolCalls {
		blocks = append(blocks, block{Type: "tool_use", ID: c.ID, Name: c.Name, Input: wire.ObjectArgs(c.Arguments)})
	}
	return blocks
}

// markCache sets ephemeral cache breakpoints on the last system block, the
// last tool and the last cacheable block of the last message (three of the
// four the API allows).
func markCache(r *msgRequest) {
	eph := &cacheControl{Type: "ephemeral"}
	if n := len(r.System); n > 0 {
		r.System[n-1].CacheControl = eph
	}
	if n := len(r.Tools); n > 0 {
		r.Tools[n-1].CacheControl = eph
	}
	if n := len(r.Messages); n > 0 {
		blocks := r.Messages[n-1].Content
		for j := len(blocks) - 1; j >= 0; j-- {
			if blocks[j].Type != "thinking" && blocks[j].Type != "redacted_thinking" {
				blocks[j].CacheControl = eph
				break
			}
		}
	}
}
