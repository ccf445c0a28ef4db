package scripted

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
)

// Transports, as in llm.SessionInfo.Transport.
const (
	TransportNative   = "native"
	TransportXML      = "xml"
	TransportXMLFinal = "xml-final"
)

// render turns the scripted response of turn t into the provider response
// the session sees under its transport.
func render(t int, r Response, s llm.SessionInfo) (llm.Response, error) {
	out := llm.Response{
		StopReason: r.FinishReason,
		Usage:      usage(r.TokenUsage),
		Reasoning:  reasoning(r.Reasoning),
	}
	if out.StopReason == "" {
		out.StopReason = "stop"
		if r.Kind == KindToolCall {
			out.StopReason = "tool_calls"
		}
	}
	switch r.Kind {
	case KindText:
		out.Content = strings.ReplaceAll(r.AssistantText, "{{NONCE}}", s.Nonce)
	case KindToolCall:
		calls, err := toolCalls(t, r.ToolCalls)
		if err != nil {
			return llm.Response{}, err
		}
		out.Content = r.AssistantText
		if s.Transport == TransportXML {
			out.Content = joinText(r.AssistantText, slotTags(s, calls))
		} else {
			out.ToolCalls = calls
		}
	case KindFinalReport:
		if err := renderFinal(t, r, s, &out); err != nil {
			return llm.Response{}, err
		}
	}
	return out, nil
}

func usage(u *Usage) contract.TokenUsage {
	if u == nil {
		return contract.TokenUsage{InputTokens: 64, OutputTokens: 32, TotalTokens: 96}
	}
	out := contract.TokenUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
	if u.CachedTokens != nil {
		c := *u.CachedTokens
		out.CachedTokens = &c
		r := c
		out.CacheReadInputTokens = &r
	}
	out.TotalTokens = u.InputTokens + u.OutputTokens
	if u.TotalTokens != nil {
		out.TotalTokens = *u.TotalTokens
	}
	return out
}

func reasoning(r Reasoning) []contract.ReasoningPart {
	if len(r) == 0 {
		return nil
	}
	out := make([]contract.ReasoningPart, 0, len(r))
	for _, p := range r {
		out = append(out, contract.ReasoningPart{Type: "reasoning", Text: p.Text, ProviderMetadata: p.ProviderMetadata})
	}
	return out
}

func toolCalls(t int, calls []ToolCall) ([]llm.ToolCall, error) {
	out := make([]llm.ToolCall, 0, len(calls))
	for i, c := range calls {
		id := c.CallID
		if id == "" {
			id = fmt.Sprintf("call-%d-%d", t, i+1)
		}
		args := "{}"
		switch {
		case c.RawArguments != nil:
			args = *c.RawArguments
		case len(c.Arguments) > 0:
			a, err := compactJSON(c.Arguments)
			if err != nil {
				return nil, fatalf("toolCalls[%d]: arguments: %v", i, err)
			}
			args = a
		}
		out = append(out, llm.ToolCall{ID: id, Name: c.ToolName, Arguments: args})
	}
	return out, nil
}

// slotTags renders calls as numbered XML slot tags, in order, in the slots
// the request advertised. Calls beyond the advertised slots continue the
// numbering after the last one; the engine ignores such tags as invalid.
func slotTags(s llm.SessionInfo, calls []llm.ToolCall) string {
	slots := make([]string, 0, len(calls))
	for _, sl := range s.Slots {
		slots = append(slots, bareSlot(s.Nonce, sl))
	}
	next := 1
	if len(slots) > 0 {
		if n, err := strconv.Atoi(slots[len(slots)-1]); err == nil {
			next = n + 1
		}
	}
	var b strings.Builder
	for i, c := range calls {
		slot := fmt.Sprintf("%04d", next)
		if i < len(slots) {
			slot = slots[i]
		} else {
			next++
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "<ai-agent-%s-%s tool=%q>%s</ai-agent-%s-%s>", s.Nonce, slot, c.Name, c.Arguments, s.Nonce, slot)
	}
	return b.String()
}

// bareSlot accepts a slot id as "0001", "NONCE-0001" or
// "ai-agent-NONCE-0001" and returns "0001".
func bareSlot(nonce, slot string) string {
	slot = strings.TrimPrefix(slot, "ai-agent-")
	if nonce != "" {
		slot = strings.TrimPrefix(slot, nonce+"-")
	}
	return slot
}

// finalArgs is the argument object of a native agent__final_report call.
type finalArgs struct {
	ReportFormat  string          `json:"report_format"`
	ReportContent *string         `json:"report_content,omitempty"`
	ContentJSON   json.RawMessage `json:"content_json,omitempty"`
	Messages      json.RawMessage `json:"messages,omitempty"`
	Metadata      json.RawMessage `json:"metadata,omitempty"`
}

func renderFinal(t int, r Response, s llm.SessionInfo, out *llm.Response) error {
	format := r.ReportFormat
	if format == "" {
		format = s.Format
	}
	if s.Transport == TransportNative || s.Transport == "" {
		args, err := json.Marshal(finalArgs{
			ReportFormat:  format,
			ReportContent: r.ReportContent,
			ContentJSON:   r.ReportContentJSON,
			Messages:      r.ReportMessages,
			Metadata:      r.Metadata,
		})
		if err != nil {
			return fatalf("final-report: %v", err)
		}
		out.Content = r.AssistantText
		out.ToolCalls = []llm.ToolCall{{ID: fmt.Sprintf("call-%d-1", t), Name: FinalReportTool, Arguments: string(args)}}
		return nil
	}
	var payload string
	switch {
	case len(r.ReportContentJSON) > 0:
		p, err := compactJSON(r.ReportContentJSON)
		if err != nil {
			return fatalf("final-report: reportContentJson: %v", err)
		}
		payload = p
	case len(r.ReportMessages) > 0:
		p, err := compactJSON(r.ReportMessages)
		if err != nil {
			return fatalf("final-report: reportMessages: %v", err)
		}
		payload = p
	case r.ReportContent != nil:
		payload = *r.ReportContent
	}
	tag := fmt.Sprintf("<ai-agent-%s-FINAL tool=%q format=%q>%s</ai-agent-%s-FINAL>",
		s.Nonce, FinalReportTool, format, payload, s.Nonce)
	out.Content = joinText(r.AssistantText, tag)
	return nil
}

func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
