// Package ollama is the provider for Ollama's native chat API
// (POST {baseUrl}/chat), with NDJSON streaming. Tool calls carry their
// arguments as JSON objects; the provider hands them on as raw text like
// every other provider, and classifies every failure as an [llm.Error].
package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/internal/wire"
)

// DefaultBaseURL is Ollama's local API.
const DefaultBaseURL = "http://localhost:11434/api"

// Options configures a Provider.
type Options struct {
	// BaseURL is the API prefix; "/chat" is appended. A trailing "/v1"
	// (the OpenAI-compatible prefix) becomes "/api". Empty means
	// DefaultBaseURL.
	BaseURL string
	// APIKey, when set, is sent as "Authorization: Bearer KEY" (hosted
	// Ollama). It never appears in error messages.
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

// Provider is an Ollama chat client. It is safe for concurrent use.
type Provider struct {
	url string
	ep  wire.Endpoint
}

var _ llm.Provider = (*Provider)(nil)

// New returns a Provider for o.
func New(o Options) *Provider {
	var auth string
	if o.APIKey != "" {
		auth = "Bearer " + o.APIKey
	}
	return &Provider{
		url: wire.JoinURL(NormalizeBaseURL(o.BaseURL), "chat"),
		ep: wire.Endpoint{
			Provider: "ollama",
			Client:   o.HTTPClient,
			Header:   wire.Header(o.Headers, "Authorization", auth),
			Secrets:  []string{o.APIKey},
			Timeout:  o.Timeout,
			// Ollama streams newline-delimited JSON.
			StreamAccept: "application/x-ndjson",
		},
	}
}

// NormalizeBaseURL applies the default and turns a trailing "/v1" into
// "/api".
func NormalizeBaseURL(base string) string {
	base = strings.TrimRight(base, "/")
	if base == "" {
		return DefaultBaseURL
	}
	if strings.HasSuffix(base, "/v1") {
		return strings.TrimSuffix(base, "/v1") + "/api"
	}
	return base
}

// Complete sends one chat request.
func (p *Provider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	ctx, cancel := p.ep.Bound(ctx)
	defer cancel()
	resp, err := p.ep.Post(ctx, p.url, buildRequest(req), req.Stream)
	if err != nil {
		return llm.Response{}, err
	}
	defer resp.Body.Close()
	if !req.Stream {
		body, err := p.ep.ReadBody(ctx, resp)
		if err != nil {
			return llm.Response{}, err
		}
		return p.decodeWhole(body)
	}
	return p.readStream(ctx, resp, &accumulator{onDelta: req.OnDelta})
}

// decodeWhole decodes a non-streamed answer, which must say done:true.
func (p *Provider) decodeWhole(body []byte) (llm.Response, error) {
	acc := &accumulator{}
	if err := p.addLine(acc, bytes.TrimSpace(body)); err != nil {
		return llm.Response{}, err
	}
	if !acc.done {
		return llm.Response{}, llm.InvalidResponse("ollama: decode response", errors.New("done is not true"))
	}
	return acc.response(), nil
}

type chatRequest struct {
	Model    string              `json:"model"`
	Messages []message           `json:"messages"`
	Tools    []wire.FunctionTool `json:"tools,omitempty"`
	Stream   bool                `json:"stream"`
	Think    any                 `json:"think,omitempty"`
	Options  *options            `json:"options,omitempty"`
}

type options struct {
	Temperature   *float64 `json:"temperature,omitempty"`
	TopP          *float64 `json:"top_p,omitempty"`
	TopK          *int     `json:"top_k,omitempty"`
	RepeatPenalty *float64 `json:"repeat_penalty,omitempty"`
	NumPredict    int      `json:"num_predict,omitempty"`
}

type message struct {
	Role      string     `json:"role"`
	Content   string     `json:"content"`
	Thinking  string     `json:"thinking,omitempty"`
	ToolCalls []toolCall `json:"tool_calls,omitempty"`
	ToolName  string     `json:"tool_name,omitempty"`
}

type toolCall struct {
	ID       string   `json:"id,omitempty"`
	Function function `json:"function"`
}

type function struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func buildRequest(req llm.Request) chatRequest {
	out := chatRequest{Model: req.Model, Messages: messages(req.Messages), Stream: req.Stream, Think: think(req)}
	o := options{Temperature: req.Temperature, TopP: req.TopP, TopK: req.TopK, RepeatPenalty: req.RepeatPenalty, NumPredict: req.MaxOutputTokens}
	if o != (options{}) {
		out.Options = &o
	}
	out.Tools = wire.FunctionTools(req.Tools)
	return out
}

// think is the "think" field: unset when the request says nothing, false
// for "none" or a zero budget, the level for gpt-oss models (the only ones
// that take levels) and true otherwise.
func think(req llm.Request) any {
	switch {
	case req.ReasoningTokens != nil && *req.ReasoningTokens <= 0:
		return false
	case req.Reasoning == "none":
		return false
	case req.Reasoning == "" && req.ReasoningTokens == nil:
		return nil
	}
	switch req.Reasoning {
	case "low", "medium", "high":
		if strings.Contains(strings.ToLower(req.Model), "gpt-oss") {
			return req.Reasoning
		}
	}
	return true
}

func messages(in []llm.Message) []message {
	names := map[string]string{}
	out := make([]message, 0, len(in))
	for _, m := range in {
		om := message{Role: m.Role, Content: m.Content}
		switch m.Role {
		case contract.RoleAssistant:
			for _, r := range m.Reasoning {
				om.Thinking += r.Text
			}
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Name
				om.ToolCalls = append(om.ToolCalls, toolCall{Function: function{Name: c.Name, Arguments: wire.ObjectArgs(c.Arguments)}})
			}
		case contract.RoleTool:
			om.ToolName = names[m.ToolCallID]
		}
		out = append(out, om)
	}
	return out
}

// chatResponse is the whole answer or one NDJSON line of a stream.
type chatResponse struct {
	Model   string `json:"model"`
	Message *struct {
		Content   string     `json:"content"`
		Thinking  string     `json:"thinking"`
		ToolCalls []toolCall `json:"tool_calls"`
	} `json:"message"`
	Done            bool   `json:"done"`
	DoneReason      string `json:"done_reason"`
	PromptEvalCount int    `json:"prompt_eval_count"`
	EvalCount       int    `json:"eval_count"`
	Error           string `json:"error"`
}

type accumulator struct {
	text      strings.Builder
	reasoning strings.Builder
	calls     []llm.ToolCall
	model     string
	stop      string
	usage     contract.TokenUsage
	done      bool
	onDelta   func(llm.Delta)
}

// addLine folds one JSON document (a line of a stream, or the whole
// answer) into the accumulator.
func (p *Provider) addLine(a *accumulator, line []byte) error {
	var r chatResponse
	if err := json.Unmarshal(line, &r); err != nil {
		return llm.InvalidResponse("ollama: decode response", err)
	}
	if r.Error != "" {
		return llm.ClassifyStreamError("ollama", "", r.Error, p.ep.Secrets...)
	}
	if r.Model != "" {
		a.model = r.Model
	}
	if m := r.Message; m != nil {
		if m.Thinking != "" {
			a.reasoning.WriteString(m.Thinking)
			a.emit(llm.Delta{Reasoning: m.Thinking})
		}
		if m.Content != "" {
			a.text.WriteString(m.Content)
			a.emit(llm.Delta{Text: m.Content})
		}
		for _, c := range m.ToolCalls {
			id := c.ID
			if id == "" {
				id = fmt.Sprintf("call_%d", len(a.calls)+1)
			}
			a.calls = append(a.calls, llm.ToolCall{ID: id, Name: c.Function.Name, Arguments: argText(c.Function.Arguments)})
		}
	}
	if r.Done {
		a.done = true
		a.stop = r.DoneReason
		a.usage = contract.TokenUsage{InputTokens: r.PromptEvalCount, OutputTokens: r.EvalCount, TotalTokens: r.PromptEvalCount + r.EvalCount}
	}
	return nil
}

// argText returns the argument text: the object as sent, or the content
// of a string some models send instead.
func argText(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return "{}"
	}
	if t[0] == '"' {
		var s string
		if json.Unmarshal(t, &s) == nil {
			return s
		}
	}
	return string(t)
}

func (a *accumulator) emit(d llm.Delta) {
	if a.onDelta != nil {
		a.onDelta(d)
	}
}

func (a *accumulator) response() llm.Response {
	out := llm.Response{Content: a.text.String(), ToolCalls: a.calls, StopReason: a.stop, Usage: a.usage, ActualModel: a.model}
	if a.reasoning.Len() > 0 {
		out.Reasoning = []contract.ReasoningPart{{Type: "reasoning", Text: a.reasoning.String()}}
	}
	return out
}

// readStream reads NDJSON lines to the one with done:true; a stream that
// ends before it is a truncated, invalid response.
func (p *Provider) readStream(ctx context.Context, resp *http.Response, a *accumulator) (llm.Response, error) {
	r := wire.NewNDJSONReader(resp.Body)
	for !a.done {
		line, err := r.Next()
		if err == io.EOF {
			return llm.Response{}, llm.InvalidResponse("ollama: stream ended early", errors.New("no line with done:true"))
		}
		if err != nil {
			return llm.Response{}, p.ep.ReadError(ctx, err)
		}
		if err := p.addLine(a, line); err != nil {
			return llm.Response{}, err
		}
	}
	return a.response(), nil
}
