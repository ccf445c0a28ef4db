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

// The Responses API (POST {baseUrl}/responses), used when Options.Mode is
// ModeResponses. Requests are stateless (store: false): the whole
// conversation is sent as input items every time. Function tools are sent
// with strict: false, because the API's strict default needs schemas that
// MCP servers rarely provide.

// Modes of the openai type (docs/contracts/ai-agent-cli.md §9.4 openaiMode).
const (
	ModeChat      = "chat"
	ModeResponses = "responses"
)

type respRequest struct {
	Model           string      `json:"model"`
	Input           []respItem  `json:"input"`
	Tools           []respTool  `json:"tools,omitempty"`
	ToolChoice      string      `json:"tool_choice,omitempty"`
	Temperature     *float64    `json:"temperature,omitempty"`
	TopP            *float64    `json:"top_p,omitempty"`
	MaxOutputTokens int         `json:"max_output_tokens,omitempty"`
	Reasoning       *respEffort `json:"reasoning,omitempty"`
	Store           bool        `json:"store"`
	Stream          bool        `json:"stream,omitempty"`
}

type respEffort struct {
	Effort string `json:"effort"`
}

// respItem is an input item: a message ({role, content}), a
// function_call or a function_call_output.
type respItem struct {
	Type      string  `json:"type,omitempty"`
	Role      string  `json:"role,omitempty"`
	Content   *string `json:"content,omitempty"`
	CallID    string  `json:"call_id,omitempty"`
	Name      string  `json:"name,omitempty"`
	Arguments *string `json:"arguments,omitempty"`
	Output    *string `json:"output,omitempty"`
}

type respTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

func (p *Provider) buildResponsesRequest(req llm.Request) respRequest {
	out := respRequest{
		Model:           req.Model,
		Input:           inputItems(req.Messages),
		Temperature:     req.Temperature,
		TopP:            req.TopP,
		MaxOutputTokens: req.MaxOutputTokens,
		Stream:          req.Stream,
	}
	if req.Reasoning != "" && req.Reasoning != "none" {
		out.Reasoning = &respEffort{Effort: req.Reasoning}
	}
	if p.flavor == FlavorOpenAI && IsReasoningModel(req.Model) {
		out.Temperature, out.TopP = nil, nil
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, respTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: wire.Schema(t.InputSchema)})
	}
	if len(out.Tools) > 0 {
		out.ToolChoice = req.ToolChoice
	}
	return out
}

func inputItems(in []llm.Message) []respItem {
	out := make([]respItem, 0, len(in))
	for _, m := range in {
		switch m.Role {
		case contract.RoleTool:
			o := m.Content
			out = append(out, respItem{Type: "function_call_output", CallID: m.ToolCallID, Output: &o})
			continue
		case contract.RoleAssistant:
			if m.Content != "" {
				c := m.Content
				out = append(out, respItem{Role: m.Role, Content: &c})
			}
			for _, c := range m.ToolCalls {
				args := c.Arguments
				out = append(out, respItem{Type: "function_call", CallID: c.ID, Name: c.Name, Arguments: &args})
			}
			continue
		}
		c := m.Content
		out = append(out, respItem{Role: m.Role, Content: &c})
	}
	return out
}

// respObject is a "response" object.
type respObject struct {
	Status            string       `json:"status"`
	Model             string       `json:"model"`
	Output            []respOutput `json:"output"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *apiError  `json:"error"`
	Usage *respUsage `json:"usage"`
}

type respOutput struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Content   []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

type respUsage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	TotalTokens        int `json:"total_tokens"`
	InputTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
}

func (u *respUsage) chat() *chatUsage {
	if u == nil {
		return nil
	}
	c := &chatUsage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
	if u.InputTokensDetails != nil {
		c.PromptTokensDetails = &struct {
			CachedTokens     int `json:"cached_tokens"`
			CacheWriteTokens int `json:"cache_write_tokens"`
		}{CachedTokens: u.InputTokensDetails.CachedTokens}
	}
	return c
}

// result turns a finished response object into an llm.Response. A failed
// response is its error, classified.
func (r *respObject) result(p *Provider) (llm.Response, error) {
	if r.Status == "failed" || (r.Error != nil && len(r.Output) == 0) {
		e := r.Error
		if e == nil {
			e = &apiError{Message: "response failed"}
		}
		return llm.Response{}, e.classify(p.ep.Provider, p.ep.Secrets)
	}
	out := llm.Response{ActualModel: r.Model, Usage: r.Usage.chat().usage()}
	var text, reasoning strings.Builder
	for i, o := range r.Output {
		switch o.Type {
		case "message":
			text.WriteString(o.outputText())
		case "reasoning":
			for _, s := range o.Summary {
				reasoning.WriteString(s.Text)
			}
		case "function_call":
			id := o.CallID
			if id == "" {
				id = fmt.Sprintf("call_%d", i+1)
			}
			out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: id, Name: o.Name, Arguments: o.Arguments})
		}
	}
	out.Content = text.String()
	if reasoning.Len() > 0 {
		out.Reasoning = []contract.ReasoningPart{{Type: "reasoning", Text: reasoning.String()}}
	}
	out.StopReason = r.stopReason(len(out.ToolCalls) > 0)
	return out, nil
}

// outputText joins the output_text parts of a message item.
func (o *respOutput) outputText() string {
	var b strings.Builder
	for _, c := range o.Content {
		if c.Type == "output_text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// stopReason maps the status to chat-style stop reasons: "stop",
// "tool_calls", or for an incomplete response "length" (max_output_tokens)
// or the reason given.
func (r *respObject) stopReason(calls bool) string {
	switch {
	case r.Status == "incomplete" && r.IncompleteDetails != nil && r.IncompleteDetails.Reason == "max_output_tokens":
		return "length"
	case r.Status == "incomplete" && r.IncompleteDetails != nil:
		return r.IncompleteDetails.Reason
	case r.Status == "incomplete":
		return "length"
	case calls:
		return "tool_calls"
	}
	return "stop"
}

func (p *Provider) decodeResponses(body []byte) (llm.Response, error) {
	var r respObject
	if err := json.Unmarshal(body, &r); err != nil {
		return llm.Response{}, llm.InvalidResponse(p.ep.Provider+": decode response", err)
	}
	if r.Status == "" && r.Error != nil {
		return llm.Response{}, r.Error.classify(p.ep.Provider, p.ep.Secrets)
	}
	if r.Status == "" {
		return llm.Response{}, llm.InvalidResponse(p.ep.Provider+": decode response", errors.New("not a response object"))
	}
	return r.result(p)
}

// respEvent is any Responses streaming event.
type respEvent struct {
	Type        string          `json:"type"`
	OutputIndex int             `json:"output_index"`
	Delta       string          `json:"delta"`
	Arguments   *string         `json:"arguments"`
	Item        *respOutput     `json:"item"`
	Response    json.RawMessage `json:"response"`
	Code        json.RawMessage `json:"code"`
	Message     string          `json:"message"`
}

// readResponsesStream reads the semantic events to response.completed,
// response.incomplete or response.failed (the API sends no [DONE]). The
// terminal event's response object is authoritative when it lists the
// output; otherwise the gathered deltas are used.
func (p *Provider) readResponsesStream(ctx context.Context, resp *http.Response, onDelta func(llm.Delta)) (llm.Response, error) {
	st := &respStream{calls: map[int]*respOutput{}, onDelta: onDelta}
	r := wire.NewSSEReader(resp.Body)
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return llm.Response{}, llm.InvalidResponse(p.ep.Provider+": stream ended early", errors.New("no response.completed"))
		}
		if err != nil {
			return llm.Response{}, p.ep.ReadError(ctx, err)
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 || bytes.Equal(data, doneMarker) {
			continue
		}
		var e respEvent
		if err := json.Unmarshal(data, &e); err != nil {
			return llm.Response{}, llm.InvalidResponse(p.ep.Provider+": decode event "+ev.Name, err)
		}
		final, err := st.apply(p, &e)
		if err != nil {
			return llm.Response{}, err
		}
		if final != nil {
			return final.result(p)
		}
	}
}

// respStream gathers the deltas of a Responses stream.
type respStream struct {
	text, reasoning strings.Builder
	calls           map[int]*respOutput
	onDelta         func(llm.Delta)
}

func (st *respStream) emit(d llm.Delta) {
	if st.onDelta != nil {
		st.onDelta(d)
	}
}

// apply folds one event in. It returns the finished response object at a
// terminal event, or the classified error of an error event.
func (st *respStream) apply(p *Provider, e *respEvent) (*respObject, error) {
	switch e.Type {
	case "response.output_text.delta":
		st.text.WriteString(e.Delta)
		st.emit(llm.Delta{Text: e.Delta})
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		st.reasoning.WriteString(e.Delta)
		st.emit(llm.Delta{Reasoning: e.Delta})
	case "response.output_item.added", "response.output_item.done":
		st.item(e)
	case "response.function_call_arguments.delta":
		if st.calls[e.OutputIndex] == nil {
			st.calls[e.OutputIndex] = &respOutput{Type: "function_call"}
		}
		st.calls[e.OutputIndex].Arguments += e.Delta
	case "response.function_call_arguments.done":
		if c := st.calls[e.OutputIndex]; c != nil && e.Arguments != nil {
			c.Arguments = *e.Arguments
		}
	case "response.completed", "response.incomplete", "response.failed":
		var final respObject
		if err := json.Unmarshal(e.Response, &final); err != nil {
			return nil, llm.InvalidResponse(p.ep.Provider+": decode "+e.Type, err)
		}
		if len(final.Output) == 0 && final.Status != "failed" {
			final.Output = gathered(st.text.String(), st.reasoning.String(), st.calls)
		}
		if final.Status == "" {
			final.Status = strings.TrimPrefix(e.Type, "response.")
		}
		return &final, nil
	case "error":
		ae := &apiError{Message: e.Message, Code: e.Code}
		return nil, ae.classify(p.ep.Provider, p.ep.Secrets)
	}
	return nil, nil
}

// item records a function_call output item; an "added" event keeps the
// arguments already gathered for its index.
func (st *respStream) item(e *respEvent) {
	if e.Item == nil || e.Item.Type != "function_call" {
		return
	}
	c := *e.Item
	if old := st.calls[e.OutputIndex]; old != nil && e.Type == "response.output_item.added" {
		c.Arguments = old.Arguments + c.Arguments
	}
	st.calls[e.OutputIndex] = &c
}

// gathered rebuilds output items from streamed deltas.
func gathered(text, reasoning string, calls map[int]*respOutput) []respOutput {
	var out []respOutput
	if reasoning != "" {
		out = append(out, respOutput{Type: "reasoning", Summary: []struct {
			Text string `json:"text"`
		}{{Text: reasoning}}})
	}
	if text != "" {
		msg := respOutput{Type: "message"}
		msg.Content = append(msg.Content, struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{"output_text", text})
		out = append(out, msg)
	}
	idx := make([]int, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		out = append(out, *calls[i])
	}
	return out
}
