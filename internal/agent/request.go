package agent

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
)

// RetryNotice is the ephemeral message of docs/contracts/ai-agent.md §2 for
// a response with no content, no tool calls and no reasoning.
const RetryNotice = "System notice: plain text responses without tool calls are ignored. Use final_report to provide your answer."

// turnPlan is what one turn offers, fixed for all its attempts (unless the
// guard forces the final turn).
type turnPlan struct {
	turn  int
	final bool
	tools []*toolSpec
	slots []string
}

func (s *session) plan(turn int, final bool) turnPlan {
	p := turnPlan{turn: turn, final: final, tools: s.offered(final)}
	if s.opts.Transport == TransportXML && !final {
		p.slots = slotsForTurn(turn, s.opts.MaxToolCallsPerTurn)
	}
	return p
}

// toLLM converts the permanent conversation for a provider.
func toLLM(conv []contract.Message) []llm.Message {
	out := make([]llm.Message, 0, len(conv)+2)
	for _, m := range conv {
		lm := llm.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Reasoning: m.Reasoning}
		for _, c := range m.ToolCalls {
			lm.ToolCalls = append(lm.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: string(c.Parameters)})
		}
		out = append(out, lm)
	}
	return out
}

// buildRequest prepares one attempt: the permanent conversation, the
// ephemeral notices, XML-NEXT in the XML transports, the tools offered
// natively and the target's parameters.
func (s *session) buildRequest(p turnPlan, t Target, notices []string) llm.Request {
	msgs := toLLM(s.conv)
	for _, n := range notices {
		msgs = append(msgs, llm.Message{Role: contract.RoleUser, Content: n, Ephemeral: true})
	}
	req := llm.Request{
		Model:           t.Model,
		Temperature:     t.Params.Temperature,
		TopP:            t.Params.TopP,
		TopK:            t.Params.TopK,
		RepeatPenalty:   t.Params.RepeatPenalty,
		MaxOutputTokens: t.Params.MaxOutputTokens,
		Reasoning:       t.Params.Reasoning,
		ReasoningTokens: t.Params.ReasoningTokens,
		Caching:         t.Params.Caching,
		Stream:          s.opts.Stream,
		Session: llm.SessionInfo{
			ProviderName: t.Provider,
			Transport:    s.opts.Transport,
			Format:       s.opts.Format,
		},
	}
	if req.MaxOutputTokens == 0 {
		req.MaxOutputTokens = DefaultMaxOutputTokens
	}
	var offered []string
	for _, spec := range p.tools {
		offered = append(offered, spec.Name)
	}
	switch s.opts.Transport {
	case TransportNative:
		for _, spec := range p.tools {
			req.Tools = append(req.Tools, toolDef(spec))
		}
		req.Tools = append(req.Tools, toolDef(s.registry[ToolFinalReport]))
		offered = append(offered, ToolFinalReport)
		req.ToolChoice = t.ToolChoice
		if req.ToolChoice == "" {
			req.ToolChoice = "auto"
		}
		if p.final {
			msgs = append(msgs, llm.Message{Role: contract.RoleUser, Ephemeral: true, Content: fmt.Sprintf(
				"System notice: this is the final turn (%d of %d). No more tools can run; call %s now with the information you already have.",
				p.turn, s.opts.MaxTurns, ToolFinalReport)})
		}
	case TransportXMLFinal:
		for _, spec := range p.tools {
			req.Tools = append(req.Tools, toolDef(spec))
		}
		if len(req.Tools) > 0 {
			req.ToolChoice = "auto"
		}
		offered = append(offered, ToolFinalReport)
		msgs = append(msgs, s.xmlNext(p))
	case TransportXML:
		req.ToolChoice = "auto"
		offered = append(offered, ToolFinalReport)
		msgs = append(msgs, s.xmlNext(p))
		for _, sl := range p.slots {
			req.Session.Slots = append(req.Session.Slots, s.nonce+"-"+sl)
		}
	}
	if s.opts.Transport != TransportNative {
		req.Session.Nonce = s.nonce
	}
	req.Session.OfferedTools = offered
	req.Messages = msgs
	return req
}

func (s *session) xmlNext(p turnPlan) llm.Message {
	in := xmlNextInput{
		Nonce: s.nonce, Turn: p.turn, MaxTurns: s.opts.MaxTurns, Format: s.opts.Format,
		Final: p.final, Slots: p.slots, Route: s.opts.Transport == TransportXMLFinal && s.registry[ToolRouterHandoff] != nil,
	}
	if s.opts.Format == FormatJSON {
		in.Schema = compactJSON(s.opts.Schema)
	}
	if s.opts.Transport == TransportXML {
		for _, spec := range p.tools {
			if spec.Name == ToolProgress {
				in.Progress = true
				continue
			}
			in.Tools = append(in.Tools, spec)
		}
	}
	return llm.Message{Role: contract.RoleUser, Content: renderXMLNext(in), Ephemeral: true}
}

func toolDef(spec *toolSpec) llm.ToolDef {
	return llm.ToolDef{Name: spec.Name, Description: spec.Description, InputSchema: spec.InputSchema}
}

func compactJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if len(raw) == 0 || json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}
