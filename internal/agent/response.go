package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
)

// handleResponse applies a successful response to the session
// (docs/contracts/ai-agent.md §2, §5, §6, §11). It returns outcomeRetry with
// an ephemeral notice when the response is ignored: nothing is then added to
// the conversation.
func (s *session) handleResponse(ctx context.Context, p turnPlan, t Target, resp llm.Response) (outcome, string) {
	var native []llm.ToolCall
	if s.opts.Transport != TransportXML {
		native = resp.ToolCalls
	}
	var tags []xmlTag
	if s.opts.Transport != TransportNative {
		tags = findTags(resp.Content, s.nonce)
	}
	final, truncated := s.pickFinal(tags, resp.StopReason)
	xmlCalls := s.pickSlotCalls(tags, p)

	if len(native) == 0 && final == nil && len(xmlCalls) == 0 {
		return s.handleText(p, t, resp, truncated)
	}
	calls := s.nativeCalls(p, native)
	if final != nil {
		if s.acceptXMLFinal(t, resp, final, calls) {
			return outcomeDone, ""
		}
	}
	if s.opts.Transport == TransportNative {
		if s.acceptNativeFinal(t, resp, calls) {
			return outcomeDone, ""
		}
	}
	msgCalls := make([]contract.ToolCall, 0, len(calls))
	for _, c := range calls {
		msgCalls = append(msgCalls, contract.ToolCall{ID: c.id, Name: c.name, Parameters: c.params()})
	}
	if len(msgCalls) == 0 {
		msgCalls = nil
	}
	s.conv = append(s.conv, s.assistantMessage(t, resp, msgCalls))
	s.execute(ctx, append(calls, xmlCalls...))
	for _, c := range calls {
		s.conv = append(s.conv, contract.Message{Role: contract.RoleTool, Content: c.msg, ToolCallID: c.id})
	}
	if len(xmlCalls) > 0 {
		s.conv = append(s.conv, contract.Message{Role: contract.RoleUser, Content: renderXMLPast(pastBlocks(xmlCalls)), NoticeType: contract.NoticeXMLPast})
	}
	return outcomeDone, ""
}

// handleText decides a response without tool calls or valid tags: keep
// reasoning-only content, accept the text fallback on a final turn, or
// ignore it with a retry notice.
func (s *session) handleText(p turnPlan, t Target, resp llm.Response, truncated bool) (outcome, string) {
	text := strings.TrimSpace(resp.Content)
	switch {
	case truncated:
		s.setLastErr("final report truncated (stop reason " + resp.StopReason + ")")
		now := s.opts.Now()
		s.ledger.add(toolEntry{server: "agent", command: ToolFinalReportXML, source: "xml", start: now, err: s.lastErr}.entry())
		return outcomeRetry, "System notice: your final report was cut off before its closing tag. Send the complete final report again."
	case text == "" && hasReasoning(resp.Reasoning):
		s.conv = append(s.conv, s.assistantMessage(t, resp, nil))
		return outcomeDone, ""
	case text == "":
		s.setLastErr("empty response from the model")
		return outcomeRetry, RetryNotice
	case p.final && !strings.Contains(resp.Content, tagPrefix):
		rep, err := s.buildReport(reportInput{Content: &text})
		if err != nil {
			s.setLastErr(err.Error())
			return outcomeRetry, "System notice: your answer was rejected: " + err.Error() + ". Provide the final report again."
		}
		s.conv = append(s.conv, s.assistantMessage(t, resp, nil))
		s.report = rep
		return outcomeDone, ""
	default:
		s.setLastErr("text response without tool calls")
		return outcomeRetry, RetryNotice
	}
}

// pickFinal returns the last valid FINAL tag. An unclosed tag is decided
// by the stop reason; truncated reports whether the only candidate was cut
// off by the output limit.
func (s *session) pickFinal(tags []xmlTag, stopReason string) (*xmlTag, bool) {
	var found *xmlTag
	truncated := false
	for i := range tags {
		tag := &tags[i]
		if tag.Slot != SlotFinal || tag.Attrs["tool"] != ToolFinalReport || tag.Payload == "" {
			continue
		}
		if !tag.Closed {
			accept, warn := finalComplete(stopReason)
			if !accept {
				truncated = true
				continue
			}
			if warn {
				s.log.Warn("unclosed final report tag accepted with unknown stop reason", "stop_reason", stopReason)
			}
		}
		found = tag
	}
	if found != nil {
		truncated = false
	}
	return found, truncated
}

// pickSlotCalls returns the calls of the valid numbered and PROGRESS tags
// (xml mode only); invalid tags are ignored and do not count as attempts.
func (s *session) pickSlotCalls(tags []xmlTag, p turnPlan) []*pendingCall {
	if s.opts.Transport != TransportXML || p.final {
		return nil
	}
	advertised := map[string]bool{}
	for _, sl := range p.slots {
		advertised[sl] = true
	}
	offered := offeredSet(p)
	used := map[string]bool{}
	var calls []*pendingCall
	for _, tag := range tags {
		tool := tag.Attrs["tool"]
		if tag.Slot == SlotFinal || !tag.Closed || tag.Payload == "" || used[tag.Slot] {
			continue
		}
		switch {
		case tag.Slot == SlotProgress && tool == ToolProgress && offered[ToolProgress] != nil:
			args, _ := json.Marshal(map[string]string{"progress": tag.Payload})
			calls = append(calls, &pendingCall{id: s.nonce + "-" + tag.Slot, name: tool, raw: string(args), source: "xml"})
		case advertised[tag.Slot] && offered[tool] != nil && tool != ToolProgress:
			calls = append(calls, &pendingCall{id: s.nonce + "-" + tag.Slot, name: tool, raw: tag.Payload, source: "xml"})
		default:
			s.log.Warn("xml tag ignored", "slot", tag.Slot, "tool", tool)
			continue
		}
		used[tag.Slot] = true
	}
	s.prepare(p, calls)
	return calls
}

// nativeCalls prepares the native tool calls of a response.
func (s *session) nativeCalls(p turnPlan, native []llm.ToolCall) []*pendingCall {
	calls := make([]*pendingCall, 0, len(native))
	for i, c := range native {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call-%d-%d", p.turn, i+1)
		}
		calls = append(calls, &pendingCall{id: id, name: c.Name, raw: c.Arguments, source: "native"})
	}
	var regular []*pendingCall
	for _, c := range calls {
		if s.opts.Transport == TransportNative && c.name == ToolFinalReport {
			c.finalReport = true
			continue
		}
		regular = append(regular, c)
	}
	s.prepare(p, regular)
	return calls
}

// acceptXMLFinal processes the FINAL tag. On success the assistant message
// ends the conversation and no other call runs.
func (s *session) acceptXMLFinal(t Target, resp llm.Response, tag *xmlTag, calls []*pendingCall) bool {
	s.finalAttempts++
	start := s.opts.Now()
	rep, err := s.buildReport(reportFromXML(s.opts.Format, *tag))
	te := toolEntry{server: "agent", command: ToolFinalReportXML, source: "xml", start: start, args: tag.Payload, output: tag.Payload}
	if err != nil {
		te.err = err.Error()
		te.latency = s.since(start)
		s.ledger.add(te.entry())
		s.finalFailed = true
		s.setLastErr(err.Error())
		s.log.Error("final report rejected", "error", err, "payload", tag.Payload)
		s.carryNotice = "System notice: your final report was rejected: " + err.Error() + ". Send a corrected final report."
		return false
	}
	te.latency = s.since(start)
	s.ledger.add(te.entry())
	msgCalls := make([]contract.ToolCall, 0, len(calls))
	for _, c := range calls {
		msgCalls = append(msgCalls, contract.ToolCall{ID: c.id, Name: c.name, Parameters: c.params()})
	}
	if len(msgCalls) == 0 {
		msgCalls = nil
	}
	s.conv = append(s.conv, s.assistantMessage(t, resp, msgCalls))
	s.report = rep
	s.finalFailed = false
	return true
}

// acceptNativeFinal processes agent__final_report calls (native transport).
// Only the last one counts; a failure fails that tool call and collapses
// the remaining turns.
func (s *session) acceptNativeFinal(t Target, resp llm.Response, calls []*pendingCall) bool {
	var last *pendingCall
	for _, c := range calls {
		if c.finalReport {
			if last != nil {
				last.msg = toolFailed("only the last " + ToolFinalReport + " call is used")
			}
			last = c
		}
	}
	if last == nil {
		return false
	}
	s.finalAttempts++
	start := s.opts.Now()
	te := toolEntry{server: "agent", command: ToolFinalReport, source: "native", start: start, args: last.raw}
	rep, err := s.finalFromCall(last)
	te.latency = s.since(start)
	if err != nil {
		te.err = err.Error()
		s.ledger.add(te.entry())
		s.finalFailed = true
		s.setLastErr(err.Error())
		s.log.Error("final report tool failed", "error", err, "payload", last.raw)
		last.msg = toolFailed(err.Error())
		return false
	}
	te.output = last.raw
	s.ledger.add(te.entry())
	msgCalls := make([]contract.ToolCall, 0, len(calls))
	for _, c := range calls {
		msgCalls = append(msgCalls, contract.ToolCall{ID: c.id, Name: c.name, Parameters: c.params()})
	}
	s.conv = append(s.conv, s.assistantMessage(t, resp, msgCalls))
	s.report = rep
	s.finalFailed = false
	return true
}

func (s *session) finalFromCall(c *pendingCall) (*contract.FinalReport, error) {
	args, rep, err := parseArgs(c.raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errReport, err)
	}
	if rep.Repaired {
		s.log.Warn("final report arguments repaired", "steps", rep.Steps, "original", rep.Original, "repaired", rep.Result)
	}
	c.args = args
	in, err := reportFromArgs(args)
	if err != nil {
		return nil, err
	}
	return s.buildReport(in)
}
