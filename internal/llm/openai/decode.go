package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/internal/wire"
)

// chatResponse is a chat.completion object or one chat.completion.chunk.
type chatResponse struct {
	Model    string       `json:"model"`
	Provider string       `json:"provider"`
	Choices  []chatChoice `json:"choices"`
	Usage    *chatUsage   `json:"usage"`
	Error    *apiError    `json:"error"`
}

type chatChoice struct {
	Message      *respMessage `json:"message"`
	Delta        *respMessage `json:"delta"`
	FinishReason *string      `json:"finish_reason"`
}

type respMessage struct {
	Content          *string        `json:"content"`
	ReasoningContent *string        `json:"reasoning_content"`
	Reasoning        *string        `json:"reasoning"`
	ToolCalls        []chatToolCall `json:"tool_calls"`
}

type chatUsage struct {
	PromptTokens        int      `json:"prompt_tokens"`
	CompletionTokens    int      `json:"completion_tokens"`
	TotalTokens         int      `json:"total_tokens"`
	Cost                *float64 `json:"cost"`
	PromptTokensDetails *struct {
		CachedTokens     int `json:"cached_tokens"`
		CacheWriteTokens int `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
}

// apiError is the error object; code is a string (OpenAI) or a number
// (OpenRouter, which may send it inside a 200).
type apiError struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

func (e *apiError) classify(provider string, secrets []string) *llm.Error {
	var status int
	if json.Unmarshal(e.Code, &status) == nil && status >= 400 {
		body, _ := json.Marshal(map[string]any{"error": e})
		return llm.ClassifyHTTP(provider, status, http.Header{}, body, secrets...)
	}
	var code string
	_ = json.Unmarshal(e.Code, &code)
	typ := strings.TrimSpace(e.Type + " " + code)
	return llm.ClassifyStreamError(provider, typ, e.Message, secrets...)
}

// usage converts the wire usage. InputTokens excludes cached prompt
// tokens, so that input + output + cache read is the context size, as for
// every provider (docs/llm.md).
func (u *chatUsage) usage() contract.TokenUsage {
	if u == nil {
		return contract.TokenUsage{}
	}
	out := contract.TokenUsage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if d := u.PromptTokensDetails; d != nil && d.CachedTokens > 0 {
		c := min(d.CachedTokens, u.PromptTokens)
		out.InputTokens -= c
		out.CachedTokens = &c
		r := c
		out.CacheReadInputTokens = &r
	}
	if d := u.PromptTokensDetails; d != nil && d.CacheWriteTokens > 0 {
		w := d.CacheWriteTokens
		out.CacheWriteInputTokens = &w
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	return out
}

// decode reads a non-streamed chat.completion body.
func (p *Provider) decode(body []byte) (llm.Response, error) {
	var r chatResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return llm.Response{}, llm.InvalidResponse(p.ep.Provider+": decode response", err)
	}
	if r.Error != nil && len(r.Choices) == 0 {
		return llm.Response{}, r.Error.classify(p.ep.Provider, p.ep.Secrets)
	}
	if len(r.Choices) == 0 || r.Choices[0].Message == nil {
		return llm.Response{}, llm.InvalidResponse(p.ep.Provider+": decode response", errors.New("no choices in the response"))
	}
	c := r.Choices[0]
	m := c.Message
	out := llm.Response{
		Usage:          r.Usage.usage(),
		ActualModel:    r.Model,
		ActualProvider: r.Provider,
	}
	if r.Usage != nil {
		out.CostUSD = r.Usage.Cost
	}
	if c.FinishReason != nil {
		out.StopReason = *c.FinishReason
	}
	if m.Content != nil {
		out.Content = *m.Content
	}
	if text := reasoningText(m); text != "" {
		out.Reasoning = []contract.ReasoningPart{{Type: "reasoning", Text: text}}
	}
	for i, tc := range m.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i+1)
		}
		out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: id, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return out, nil
}

func reasoningText(m *respMessage) string {
	switch {
	case m.ReasoningContent != nil && *m.ReasoningContent != "":
		return *m.ReasoningContent
	case m.Reasoning != nil:
		return *m.Reasoning
	}
	return ""
}

// assembler accumulates the chunks of a streamed completion.
type assembler struct {
	text      strings.Builder
	reasoning strings.Builder
	calls     map[int]*callAcc
	finish    string
	usage     *chatUsage
	model     string
	provider  string
	onDelta   func(llm.Delta)
}

type callAcc struct {
	id, name string
	args     strings.Builder
}

// add folds one chunk into the response. A chunk carrying an error object
// ends the stream with that error, classified.
func (a *assembler) add(c *chatResponse, p *Provider) error {
	if c.Error != nil {
		return c.Error.classify(p.ep.Provider, p.ep.Secrets)
	}
	if c.Model != "" {
		a.model = c.Model
	}
	if c.Provider != "" {
		a.provider = c.Provider
	}
	if c.Usage != nil {
		a.usage = c.Usage
	}
	if len(c.Choices) == 0 {
		return nil
	}
	ch := c.Choices[0]
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		a.finish = *ch.FinishReason
	}
	d := ch.Delta
	if d == nil {
		d = ch.Message
	}
	if d == nil {
		return nil
	}
	if r := reasoningText(d); r != "" {
		a.reasoning.WriteString(r)
		a.emit(llm.Delta{Reasoning: r})
	}
	if d.Content != nil && *d.Content != "" {
		a.text.WriteString(*d.Content)
		a.emit(llm.Delta{Text: *d.Content})
	}
	for i, tc := range d.ToolCalls {
		a.addCall(i, tc)
	}
	return nil
}

// addCall assembles tool-call deltas by their index. A delta without an
// index takes its position in the chunk; a new id at a used index with
// arguments already gathered starts a new call (servers that send whole
// calls all at index 0).
func (a *assembler) addCall(pos int, tc chatToolCall) {
	if a.calls == nil {
		a.calls = map[int]*callAcc{}
	}
	idx := pos
	if tc.Index != nil {
		idx = *tc.Index
	}
	acc := a.calls[idx]
	if acc != nil && tc.ID != "" && acc.id != "" && tc.ID != acc.id && acc.args.Len() > 0 {
		idx = len(a.calls) + 1000
		acc = nil
	}
	if acc == nil {
		acc = &callAcc{}
		a.calls[idx] = acc
	}
	if tc.ID != "" {
		acc.id = tc.ID
	}
	if tc.Function.Name != "" {
		acc.name = tc.Function.Name
	}
	acc.args.WriteString(tc.Function.Arguments)
}

func (a *assembler) emit(d llm.Delta) {
	if a.onDelta != nil {
		a.onDelta(d)
	}
}

func (a *assembler) response() llm.Response {
	out := llm.Response{
		Content:        a.text.String(),
		StopReason:     a.finish,
		Usage:          a.usage.usage(),
		ActualModel:    a.model,
		ActualProvider: a.provider,
	}
	if a.usage != nil {
		out.CostUSD = a.usage.Cost
	}
	if a.reasoning.Len() > 0 {
		out.Reasoning = []contract.ReasoningPart{{Type: "reasoning", Text: a.reasoning.String()}}
	}
	idx := make([]int, 0, len(a.calls))
	for i := range a.calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for n, i := range idx {
		c := a.calls[i]
		id := c.id
		if id == "" {
			id = fmt.Sprintf("call_%d", n+1)
		}
		out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: id, Name: c.name, Arguments: c.args.String()})
	}
	return out
}

var doneMarker = []byte("[DONE]")

// readStream reads an SSE chat.completion.chunk stream to "data: [DONE]".
// A stream that ends without [DONE] is accepted when a finish_reason came
// (some compatible servers omit the marker) and is otherwise a truncated,
// invalid response.
func (p *Provider) readStream(ctx context.Context, resp *http.Response, onDelta func(llm.Delta)) (llm.Response, error) {
	a := &assembler{onDelta: onDelta}
	r := wire.NewSSEReader(resp.Body)
	for {
		ev, err := r.Next()
		if err == io.EOF {
			if a.finish != "" {
				return a.response(), nil
			}
			return llm.Response{}, llm.InvalidResponse(p.ep.Provider+": stream ended early", errors.New("no [DONE] and no finish_reason"))
		}
		if err != nil {
			return llm.Response{}, p.ep.ReadError(ctx, err)
		}
		data := bytes.TrimSpace(ev.Data)
		if bytes.Equal(data, doneMarker) {
			return a.response(), nil
		}
		if len(data) == 0 {
			continue
		}
		var chunk chatResponse
		if err := json.Unmarshal(data, &chunk); err != nil {
			return llm.Response{}, llm.InvalidResponse(p.ep.Provider+": decode stream chunk", err)
		}
		if err := a.add(&chunk, p); err != nil {
			return llm.Response{}, err
		}
	}
}
