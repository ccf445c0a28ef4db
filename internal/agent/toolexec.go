package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/salve-dev/salve/internal/agent/tools"
)

// pendingCall is one tool call of a response, from parsing to its tool
// message.
type pendingCall struct {
	id     string
	name   string
	raw    string
	source string
	args   json.RawMessage
	spec   *toolSpec
	// finalReport marks a native agent__final_report call.
	finalReport bool
	// run is true when the call passed every check and will execute.
	run bool
	// msg is the tool message: the output, or "(tool failed: …)".
	msg     string
	failed  bool
	seconds float64
}

// params is the object stored in the conversation's toolCalls.
func (c *pendingCall) params() json.RawMessage {
	if len(c.args) > 0 {
		return c.args
	}
	if obj, _, err := parseArgs(c.raw); err == nil {
		return obj
	}
	return json.RawMessage("{}")
}

func parseArgs(raw string) (json.RawMessage, tools.Repair, error) {
	return tools.ParseArguments(raw)
}

func offeredSet(p turnPlan) map[string]*toolSpec {
	m := make(map[string]*toolSpec, len(p.tools))
	for _, spec := range p.tools {
		m[spec.Name] = spec
	}
	return m
}

// prepare checks the calls of a response in order
// (docs/contracts/ai-agent-cli.md §11): the name is offered, the arguments
// parse (with repair) and match the input schema, the maxToolCallsPerTurn
// budget (each call inside a batch counting) is not exceeded, and no context
// overflow has happened. Calls that fail a check get their failure message
// and do not run.
func (s *session) prepare(p turnPlan, calls []*pendingCall) {
	offered := offeredSet(p)
	count := 0
	limit := s.opts.MaxToolCallsPerTurn
	for _, c := range calls {
		spec := offered[c.name]
		if spec == nil {
			c.fail(fmt.Sprintf("unknown tool '%s'", c.name))
			continue
		}
		c.spec = spec
		if !s.checkArgs(c) {
			continue
		}
		n := 1
		if c.name == ToolBatch {
			n = max(1, batchSize(c.args))
		}
		if count+n > limit {
			c.fail(fmt.Sprintf("tool call limit exceeded (maxToolCallsPerTurn=%d)", limit))
			s.log.Warn("tool call dropped: limit exceeded", "tool", c.name, "limit", limit)
			continue
		}
		count += n
		if s.budgetExceeded.Load() {
			c.fail("context window budget exceeded")
			continue
		}
		c.run = true
	}
}

// checkArgs parses and validates a call's arguments.
func (s *session) checkArgs(c *pendingCall) bool {
	args, rep, err := parseArgs(c.raw)
	if err != nil {
		s.log.Error("tool call dropped: unparseable arguments", "tool", c.name, "raw", c.raw, "error", err)
		c.fail("invalid arguments: " + err.Error())
		return false
	}
	if rep.Repaired {
		s.log.Warn("tool arguments repaired", "tool", c.name, "steps", strings.Join(rep.Steps, ","), "original", rep.Original, "repaired", rep.Result)
	}
	c.args = args
	if c.spec.schema != nil {
		if err := c.spec.schema.Validate(args); err != nil {
			c.fail("invalid arguments: " + oneLine(err.Error()))
			return false
		}
	}
	return true
}

func (c *pendingCall) fail(reason string) {
	c.msg = toolFailed(reason)
	c.failed = true
}

// execute runs the calls that passed prepare, concurrently, and fills
// their messages.
func (s *session) execute(ctx context.Context, calls []*pendingCall) {
	var wg sync.WaitGroup
	for _, c := range calls {
		if !c.run {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := s.runTool(ctx, c.spec, c.args, c.source, false)
			c.msg, c.failed, c.seconds = r.text, r.failed, r.seconds
		}()
	}
	wg.Wait()
}

// toolRun is the outcome of one execution.
type toolRun struct {
	text    string
	failed  bool
	reason  string
	code    string
	seconds float64
	raw     string
}

// errToolTimeout is the engine's toolTimeout; a provider's own time limit
// wraps the same error.
var errToolTimeout = tools.ErrTimeout

// execTool executes one call with the queue, toolTimeout, accounting,
// truncation and the guard's tool_preflight (docs/contracts/ai-agent.md §1,
// §2, §4).
func (s *session) execTool(ctx context.Context, spec *toolSpec, args json.RawMessage, source string, inBatch bool) toolRun {
	te := toolEntry{server: spec.Server, command: spec.Name, source: source, args: string(args)}
	if spec.internal {
		te.server = "agent"
	}
	if spec.Queue != "" && s.opts.Queuer != nil && !spec.internal && !inBatch {
		te.queue = spec.Queue
		release, waited, depth, err := s.opts.Queuer.Acquire(ctx, spec.Queue)
		if err != nil {
			return toolRun{text: toolFailed(err.Error()), failed: true, reason: err.Error(), code: "EXECUTION_ERROR"}
		}
		defer func() {
			release()
			s.queueEvent(ctx, QueueEvent{Queue: spec.Queue, Released: true})
		}()
		te.queueWait, te.queueDepth = &waited, &depth
		s.queueEvent(ctx, QueueEvent{Queue: spec.Queue, Wait: waited, Depth: depth})
	}
	te.start = s.opts.Now()
	out, err := s.callCached(ctx, spec, args, source)
	te.latency = s.since(te.start)
	run := toolRun{seconds: te.latency.Seconds()}
	if err != nil {
		reason := err.Error()
		if errors.Is(err, errToolTimeout) {
			reason = "timeout"
		}
		te.err = reason
		s.ledger.add(te.entry())
		s.log.Warn("tool failed", "tool", spec.Name, "error", reason)
		return toolRun{text: toolFailed(reason), failed: true, reason: reason, code: "EXECUTION_ERROR", seconds: run.seconds}
	}
	te.output = out
	s.ledger.add(te.entry())
	run.raw = out
	run.text = out
	if spec.Name != ToolBatch {
		run.text = s.shrink(spec, args, out)
	}
	if s.opts.Guard != nil && !spec.internal && !s.opts.Guard.ToolPreflight(spec.Name, run.text) {
		s.budgetExceeded.Store(true)
		s.log.Warn("tool output dropped: context window budget exceeded", "tool", spec.Name)
		return toolRun{text: toolFailed("context window budget exceeded"), failed: true, reason: "context window budget exceeded",
			code: "context_window_budget_exceeded", seconds: run.seconds}
	}
	return run
}

// callWithTimeout runs the tool under toolTimeout; a tool that ignores its
// context is abandoned when the timeout fires.
func (s *session) callWithTimeout(ctx context.Context, spec *toolSpec, args json.RawMessage, source string) (string, error) {
	tctx, cancel := context.WithTimeout(ctx, s.opts.ToolTimeout)
	defer cancel()
	type result struct {
		out string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- result{err: fmt.Errorf("tool panicked: %v", r)}
			}
		}()
		out, err := s.invoke(tctx, spec, args, source)
		ch <- result{out, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil && errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return "", errToolTimeout
		}
		return r.out, r.err
	case <-tctx.Done():
		if ctx.Err() != nil {
			return "", fmt.Errorf("cancelled: %w", ctx.Err())
		}
		return "", errToolTimeout
	}
}

// invoke dispatches to an internal tool or to the tool's provider.
func (s *session) invoke(ctx context.Context, spec *toolSpec, args json.RawMessage, source string) (string, error) {
	if spec.internal {
		return s.callInternal(ctx, spec.Name, args, source)
	}
	res, err := spec.prov.Call(s.withLimits(ctx), spec.Name, args)
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", errors.New(strings.TrimSpace(res.Text))
	}
	return res.Text, nil
}

// pastBlocks renders executed xml calls for the XML-PAST message.
func pastBlocks(calls []*pendingCall) []xmlPastBlock {
	out := make([]xmlPastBlock, 0, len(calls))
	for _, c := range calls {
		status := "ok"
		if c.failed {
			status = "failed"
		}
		out = append(out, xmlPastBlock{SlotID: c.id, Tool: c.name, Status: status, Seconds: c.seconds, Request: c.raw, Response: c.msg})
	}
	return out
}
