// Package google is the provider for the Gemini API (type google):
// POST {baseUrl}/models/{model}:generateContent, or
// :streamGenerateContent?alt=sse for a stream, with the key in
// x-goog-api-key. It maps the conversation to contents and parts
// (functionCall and functionResponse parts for tool calls and results,
// systemInstruction for the leading system messages), offers the tools as
// functionDeclarations with their JSON Schema as parametersJsonSchema,
// keeps thought signatures in [contract.ReasoningPart.ProviderMetadata] so
// they are replayed, reads usageMetadata (cached tokens included), and
// classifies every failure as an [llm.Error] from the HTTP status and the
// google.rpc status of the error body. Blocked prompts and answers (safety
// and the other block reasons) are errors that name the reason.
package google

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/internal/wire"
)

// DefaultBaseURL is the Gemini API's endpoint prefix.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/v1beta"

// ThinkingBudgets maps a reasoning level to thinkingConfig.thinkingBudget,
// used when the request sets a level but no token count.
var ThinkingBudgets = map[string]int{
	"minimal": 1024,
	"low":     2048,
	"medium":  8192,
	"high":    16384,
}

// Options configures a Provider.
type Options struct {
	// BaseURL is the endpoint prefix, with its API version; empty means
	// DefaultBaseURL.
	BaseURL string
	// APIKey is sent as x-goog-api-key. It never appears in error
	// messages.
	APIKey string
	// Headers are extra request headers.
	Headers map[string]string
	// HTTPClient sends the requests; nil means a client with no overall
	// timeout.
	HTTPClient *http.Client
	// Timeout bounds one whole call, streaming included; 0 means none
	// beyond the context's.
	Timeout time.Duration
}

// Provider is a Gemini API client. It is safe for concurrent use.
type Provider struct {
	base string
	ep   wire.Endpoint
}

var _ llm.Provider = (*Provider)(nil)

// New returns a Provider for o.
func New(o Options) *Provider {
	base := o.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	p := &Provider{
		base: base,
		ep: wire.Endpoint{
			Provider: "google",
			Client:   o.HTTPClient,
			Header:   wire.Header(o.Headers, "x-goog-api-key", o.APIKey),
			Secrets:  []string{o.APIKey},
			Timeout:  o.Timeout,
		},
	}
	p.ep.Classify = func(status int, header http.Header, body []byte) *llm.Error {
		return classifyHTTP(status, header, body, p.ep.Secrets)
	}
	return p
}

// Complete sends one generateContent (or streamGenerateContent) request.
func (p *Provider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	return p.ep.Call(ctx, p.url(req.Model, req.Stream), buildRequest(req), req, p.decode, p.readStream)
}

// url is the method's URL for model: the collection "models/" is added
// unless the name has one ("models/…", "tunedModels/…"); the rest is one
// escaped path segment, so a name cannot add segments, climb with "..",
// or start a query.
func (p *Provider) url(model string, stream bool) string {
	coll, name := "models", model
	for _, c := range []string{"models", "tunedModels"} {
		if rest, ok := strings.CutPrefix(model, c+"/"); ok {
			coll, name = c, rest
		}
	}
	seg := url.PathEscape(name)
	if seg == "." || seg == ".." {
		seg = strings.ReplaceAll(seg, ".", "%2E")
	}
	method := ":generateContent"
	if stream {
		method = ":streamGenerateContent?alt=sse"
	}
	return wire.JoinURL(p.base, coll+"/"+seg) + method
}

type genRequest struct {
	Contents          []content         `json:"contents"`
	SystemInstruction *content          `json:"systemInstruction,omitempty"`
	Tools             []toolSet         `json:"tools,omitempty"`
	ToolConfig        *toolConfig       `json:"toolConfig,omitempty"`
	GenerationConfig  *generationConfig `json:"generationConfig,omitempty"`
}

type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

// part is every part kind the provider sends or reads.
type part struct {
	Text             *string           `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
}

type functionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type functionResponse struct {
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

type toolSet struct {
	FunctionDeclarations []functionDeclaration `json:"functionDeclarations"`
}

type functionDeclaration struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description,omitempty"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
}

type toolConfig struct {
	FunctionCallingConfig struct {
		Mode string `json:"mode"`
	} `json:"functionCallingConfig"`
}

type generationConfig struct {
	Temperature     *float64        `json:"temperature,omitempty"`
	TopP            *float64        `json:"topP,omitempty"`
	TopK            *int            `json:"topK,omitempty"`
	MaxOutputTokens int             `json:"maxOutputTokens,omitempty"`
	ThinkingConfig  *thinkingConfig `json:"thinkingConfig,omitempty"`
}

type thinkingConfig struct {
	ThinkingBudget  *int `json:"thinkingBudget,omitempty"`
	IncludeThoughts bool `json:"includeThoughts,omitempty"`
}

// signatureMeta is the ProviderMetadata of a reasoning part that carries a
// thought signature: on the thought text itself, on the answer's text
// (Text), or on the function call with the engine's id ToolCallID.
type signatureMeta struct {
	Google struct {
		ThoughtSignature string `json:"thoughtSignature,omitempty"`
		ToolCallID       string `json:"toolCallId,omitempty"`
		Text             bool   `json:"text,omitempty"`
	} `json:"google"`
}

func buildRequest(req llm.Request) genRequest {
	out := genRequest{}
	out.SystemInstruction, out.Contents = convertMessages(req.Messages)
	if len(req.Tools) > 0 {
		decls := make([]functionDeclaration, 0, len(req.Tools))
		for _, t := range req.Tools {
			decls = append(decls, functionDeclaration{Name: t.Name, Description: t.Description, ParametersJSONSchema: wire.Schema(t.InputSchema)})
		}
		out.Tools = []toolSet{{FunctionDeclarations: decls}}
		switch req.ToolChoice {
		case "auto":
			out.ToolConfig = &toolConfig{}
			out.ToolConfig.FunctionCallingConfig.Mode = "AUTO"
		case "required":
			out.ToolConfig = &toolConfig{}
			out.ToolConfig.FunctionCallingConfig.Mode = "ANY"
		}
	}
	g := generationConfig{Temperature: req.Temperature, TopP: req.TopP, TopK: req.TopK, MaxOutputTokens: req.MaxOutputTokens,
		ThinkingConfig: thinking(req)}
	if g != (generationConfig{}) {
		out.GenerationConfig = &g
	}
	return out
}

// thinking is thinkingConfig: unset when the request says nothing; a
// budget of 0 for "none" or a zero token count (thinking off, where the
// model allows it); else ReasoningTokens or the level's budget, with the
// thought summaries asked for.
func thinking(req llm.Request) *thinkingConfig {
	var budget int
	switch {
	case req.ReasoningTokens != nil:
		budget = max(0, *req.ReasoningTokens)
	case req.Reasoning == "none":
		budget = 0
	case req.Reasoning == "":
		return nil
	default:
		b, ok := ThinkingBudgets[req.Reasoning]
		if !ok {
			return nil
		}
		budget = b
	}
	return &thinkingConfig{ThinkingBudget: &budget, IncludeThoughts: budget > 0}
}

// convertMessages splits off the leading system messages into the system
// instruction and maps the rest to alternating user and model contents:
// tool results become functionResponse parts of a user content (named
// after their call), later system messages become user text, and
// consecutive contents of one role are merged. Empty text is dropped, as
// the API refuses empty parts.
func convertMessages(in []llm.Message) (*content, []content) {
	var system *content
	i := 0
	for ; i < len(in) && in[i].Role == contract.RoleSystem; i++ {
		if in[i].Content == "" {
			continue
		}
		if system == nil {
			system = &content{}
		}
		system.Parts = append(system.Parts, textPart(in[i].Content))
	}
	names := map[string]string{}
	out := []content{}
	add := func(role string, parts ...part) {
		if len(parts) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Parts = append(out[n-1].Parts, parts...)
			return
		}
		out = append(out, content{Role: role, Parts: parts})
	}
	for _, m := range in[i:] {
		switch m.Role {
		case contract.RoleAssistant:
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Name
			}
			add("model", modelParts(m)...)
		case contract.RoleTool:
			add("user", part{FunctionResponse: &functionResponse{Name: names[m.ToolCallID],
				Response: map[string]any{"name": names[m.ToolCallID], "content": m.Content}}})
		default:
			if m.Content != "" {
				add("user", textPart(m.Content))
			}
		}
	}
	return system, out
}

func textPart(s string) part { return part{Text: &s} }

// modelParts replays an assistant message: its thoughts with their
// signatures, its text and its function calls, each signature back on the
// part it came with. Reasoning that did not come from this API (no google
// metadata) is not replayed: the API needs only its own signatures.
func modelParts(m llm.Message) []part {
	var parts []part
	var textSig string
	callSig := map[string]string{}
	for _, r := range m.Reasoning {
		var meta struct {
			Google *struct {
				ThoughtSignature string `json:"thoughtSignature"`
				ToolCallID       string `json:"toolCallId"`
				Text             bool   `json:"text"`
			} `json:"google"`
		}
		if json.Unmarshal(r.ProviderMetadata, &meta) != nil || meta.Google == nil {
			continue
		}
		g := meta.Google
		switch {
		case g.ToolCallID != "":
			callSig[g.ToolCallID] = g.ThoughtSignature
		case g.Text:
			textSig = g.ThoughtSignature
		case r.Text != "":
			t := r.Text
			parts = append(parts, part{Text: &t, Thought: true, ThoughtSignature: g.ThoughtSignature})
		}
	}
	if m.Content != "" {
		p := textPart(m.Content)
		p.ThoughtSignature = textSig
		parts = append(parts, p)
	}
	for _, c := range m.ToolCalls {
		parts = append(parts, part{FunctionCall: &functionCall{Name: c.Name, Args: wire.ObjectArgs(c.Arguments)}, ThoughtSignature: callSig[c.ID]})
	}
	return parts
}
