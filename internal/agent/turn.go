package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
)

// outcome is what handling one response decided.
type outcome int

const (
	// outcomeDone: the turn is over (tools ran, or a report was accepted,
	// or reasoning-only content was kept).
	outcomeDone outcome = iota
	// outcomeRetry: the response was ignored; retry with a notice.
	outcomeRetry
)

// runTurn runs the attempts of one turn (docs/contracts/ai-agent.md §3): at
// most MaxRetries attempts, attempt n on targets[(n-1) % k]; fatal errors
// end the session; rate limits wait; other errors cycle at once.
func (s *session) runTurn(ctx context.Context, turn int, final bool) {
	p := s.plan(turn, final)
	k := len(s.opts.Targets)
	cycle := newRateCycle(k)
	var notices []string
	if s.carryNotice != "" {
		notices = append(notices, s.carryNotice)
		s.carryNotice = ""
	}
	for attempt := 1; attempt <= s.opts.MaxRetries; attempt++ {
		idx := targetIndex(attempt, k)
		t := s.opts.Targets[idx]
		req := s.buildRequest(p, t, notices)
		if s.opts.Guard != nil {
			forced := s.forced
			p, req = s.turnPreflight(p, t, req, notices)
			if s.forced && !forced {
				s.guardEvent(ctx, GuardEvent{Provider: t.Provider, Model: t.Model, Trigger: "turn_preflight", Outcome: "forced_final"})
			}
		}
		resp, err := s.call(ctx, t, req, attempt)
		if err != nil {
			if !s.handleError(ctx, err, cycle, idx, &notices) {
				return
			}
			continue
		}
		cycle.other()
		if s.opts.Guard != nil {
			s.opts.Guard.Committed(t, resp)
		}
		out, notice := s.handleResponse(ctx, p, t, resp)
		if out == outcomeDone {
			return
		}
		notices = []string{notice}
	}
	s.log.Warn("turn failed: attempts exhausted", "turn", turn, "attempts", s.opts.MaxRetries, "last_error", s.lastErr)
}

// turnPreflight runs the guard's turn_preflight; when it fires on a turn
// that is not final, the turn becomes the forced final turn and the guard
// re-evaluates the reduced request.
func (s *session) turnPreflight(p turnPlan, t Target, req llm.Request, notices []string) (turnPlan, llm.Request) {
	g := s.opts.Guard
	if !g.TurnPreflight(GuardTurn{Target: t, Messages: req.Messages, Tools: req.Tools, Final: p.final}) || p.final {
		return p, req
	}
	s.log.Warn("context guard forced the final turn", "forcedFinalTurnReason", "context", "turn", p.turn)
	s.forced = true
	s.finalAt = p.turn
	p = s.plan(p.turn, true)
	req = s.buildRequest(p, t, notices)
	g.TurnPreflight(GuardTurn{Target: t, Messages: req.Messages, Tools: req.Tools, Final: true})
	return p, req
}

// handleError classifies a failed attempt. It returns false when the
// session must end (fatal error or cancellation).
func (s *session) handleError(ctx context.Context, err error, cycle *rateCycle, idx int, notices *[]string) bool {
	e := llm.AsError(err)
	s.setLastErr(e.Message)
	if s.lastErr == "" {
		s.setLastErr(err.Error())
	}
	if e.Fatal() {
		s.fatal = e
		return false
	}
	if ctx.Err() != nil {
		s.fatal = &llm.Error{Class: llm.ClassFatal, Message: "session cancelled: " + ctx.Err().Error(), Err: ctx.Err()}
		return false
	}
	switch e.Class {
	case llm.ClassRateLimit:
		wait := cycle.record(idx, e)
		s.log.Warn("rate limited", "target", idx, "retry_after", e.RetryAfter, "wait", wait)
		if err := s.opts.Sleep(ctx, wait); err != nil {
			s.fatal = &llm.Error{Class: llm.ClassFatal, Message: "session cancelled: " + err.Error(), Err: err}
			return false
		}
	case llm.ClassInvalidResponse:
		cycle.other()
		*notices = []string{"System notice: your previous response was invalid (" + e.Message + "). Reply again, using the tools or the final report."}
	default:
		cycle.other()
		s.log.Warn("llm attempt failed", "class", e.Class, "error", e.Message)
	}
	return true
}

// call performs one attempt with llmTimeout and records its accounting.
// attempt counts the attempts of the turn from 1; a later one is a retry.
func (s *session) call(ctx context.Context, t Target, req llm.Request, attempt int) (llm.Response, error) {
	cctx, cancel := context.WithTimeout(ctx, s.opts.LLMTimeout)
	defer cancel()
	if req.Stream {
		req.OnDelta = s.deltaSink()
	}
	cctx, end := s.opts.Observer.StartLLM(cctx, LLMTarget{Provider: t.Provider, Model: t.Model, Reasoning: t.Params.Reasoning})
	meter := &llm.Meter{}
	cctx = llm.WithMeter(cctx, meter)
	start := s.opts.Now()
	s.log.Debug("llm request", "provider", t.Provider, "model", t.Model, "messages", len(req.Messages), "tools", len(req.Tools),
		"stream", req.Stream, "tool_choice", req.ToolChoice)
	resp, err := t.Client.Complete(cctx, req)
	if err == nil {
		s.log.Debug("llm response", "provider", t.Provider, "model", t.Model, "stop_reason", resp.StopReason,
			"content_chars", len(resp.Content), "tool_calls", len(resp.ToolCalls), "input_tokens", resp.Usage.InputTokens,
			"output_tokens", resp.Usage.OutputTokens)
	}
	if err != nil && errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		if e := llm.AsError(err); e.Class != llm.ClassTimeout {
			err = &llm.Error{Class: llm.ClassTimeout, Message: fmt.Sprintf("llm timeout after %s", s.opts.LLMTimeout), Err: err}
		}
	}
	latency := s.opts.Now().Sub(start)
	e := llmEntry(t, start, latency, resp, err)
	s.price(&e)
	s.spend(e)
	s.ledger.add(e)
	ev := LLMEvent{Entry: e, Latency: latency, Attempt: attempt}
	ev.RequestBytes, ev.ResponseBytes = meter.Bytes()
	if err != nil {
		ev.ErrorClass = string(llm.AsError(err).Class)
	}
	end(ev)
	return resp, err
}

// deltaSink shows streamed text on the progress stream: in the XML
// transports only tag payloads, once their closing tag arrives.
func (s *session) deltaSink() func(llm.Delta) {
	out := s.opts.ProgressOut
	if s.opts.Transport == TransportNative {
		return func(d llm.Delta) { _, _ = io.WriteString(out, d.Text) }
	}
	f := &streamFilter{nonce: s.nonce, emit: func(slot, payload string) {
		_, _ = fmt.Fprintf(out, "[%s] %s\n", slot, payload)
	}}
	return func(d llm.Delta) { f.write(d.Text) }
}

// assistantMessage is the permanent record of a response.
func (s *session) assistantMessage(t Target, resp llm.Response, calls []contract.ToolCall) contract.Message {
	usage := resp.Usage
	if usage.TotalTokens == 0 {
		usage.TotalTokens = usage.InputTokens + usage.OutputTokens
	}
	return contract.Message{
		Role:      contract.RoleAssistant,
		Content:   resp.Content,
		ToolCalls: calls,
		Reasoning: resp.Reasoning,
		Metadata: &contract.MessageMetadata{
			Provider: t.Provider, Model: t.Model, Tokens: usage, Timestamp: s.opts.Now().UnixMilli(),
		},
	}
}

func hasReasoning(parts []contract.ReasoningPart) bool {
	for _, p := range parts {
		if p.Text != "" || len(p.ProviderMetadata) > 0 {
			return true
		}
	}
	return false
}

// toolFailed is the tool message of a call that failed or was not run.
func toolFailed(reason string) string {
	return "(tool failed: " + reason + ")"
}

// since is a small helper for latencies.
func (s *session) since(t time.Time) time.Duration { return s.opts.Now().Sub(t) }
