// Package orchestrate runs an agent's advisors, router and handoff around
// its session (docs/ai-agent.md, "Advisors, router and handoff"), as the
// original ai-agent does:
//
//   - advisors run at once before the session, each with the user's
//     request; their answers, or a note that one failed, go before the
//     request in the session's user prompt as <advisory__NONCE> blocks;
//   - a router session that calls router__handoff-to ends there, and the
//     chosen destination runs with the request (and the router's note as
//     an advisory block); its answer is the answer;
//   - a handoff runs after a successful session (or destination) with its
//     answer in a <response__NONCE> block and the request, and its answer
//     is the answer.
//
// Each child is a session of its own, run through the caller's
// [subagent.RunFunc] with the serving session's tracing ids as parent;
// its accounting joins the result's. The package owns the order, the
// prompts and the merging; the caller owns loading and running agents.
package orchestrate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/tools/subagent"
)

// Kind is the step a child runs in.
type Kind string

// The steps, in the order they run.
const (
	KindAdvisor Kind = "advisor"
	KindRouter  Kind = "router"
	KindHandoff Kind = "handoff"
)

// Child is one agent a step runs.
type Child struct {
	// Ref is the agent as configured (the path in the frontmatter or the
	// flag), for messages.
	Ref string
	// Name is the agent's name (its toolName, else its file name without
	// .ai): the router's destination name and the label of its blocks.
	Name string
	// Run runs the agent's session with a prompt.
	Run subagent.RunFunc
}

// Plan is an agent's advisors, router destinations and handoff.
type Plan struct {
	Advisors     []Child
	Destinations []Child
	Handoff      *Child
}

// Empty reports whether the plan runs nothing around the session.
func (p Plan) Empty() bool {
	return len(p.Advisors) == 0 && len(p.Destinations) == 0 && p.Handoff == nil
}

// Validate refuses two router destinations of one name: the router
// could not tell them apart.
func (p Plan) Validate() error {
	seen := map[string]string{}
	for _, d := range p.Destinations {
		if other, dup := seen[d.Name]; dup {
			return fmt.Errorf("router destinations %s and %s have the same name %q: give one a toolName", other, d.Ref, d.Name)
		}
		seen[d.Name] = d.Ref
	}
	return nil
}

// Routes are the destination names, for agent.Options.Routes.
func (p Plan) Routes() []string {
	out := make([]string, 0, len(p.Destinations))
	for _, d := range p.Destinations {
		out = append(out, d.Name)
	}
	return out
}

// Main runs the session the plan serves with prompt as its user prompt;
// route is the destination its router__handoff-to chose, nil when it
// chose none.
type Main func(ctx context.Context, prompt string) (res contract.AIAgentResult, route *agent.Route)

// Request is what [Run] serves.
type Request struct {
	// Prompt is the user's request.
	Prompt string
	// Name labels the session's answer in a handoff's response block.
	Name string
	// Trace are the session's tracing ids: the children's parent.
	Trace subagent.TraceIDs
	// MaxDepth refuses children when Trace is already this deep; zero
	// is subagent.DefaultMaxDepth.
	MaxDepth int
	// Log receives the orchestration's steps; nil discards them.
	Log *slog.Logger
}

// Finished is a child that ran, for the caller's records (its
// conversation for --save-all).
type Finished struct {
	Kind   Kind
	Name   string
	Result contract.AIAgentResult
}

// Outcome is the result of the whole orchestration: the last answer
// with every session's accounting, and the children that ran.
type Outcome struct {
	Result   contract.AIAgentResult
	Children []Finished
}

// Run runs the plan around main. It never fails on its own: a child that
// cannot run is a failed advisory block (advisors) or a failed result
// (destination, handoff).
func Run(ctx context.Context, p Plan, req Request, main Main) Outcome {
	if req.Log == nil {
		req.Log = slog.New(slog.DiscardHandler)
	}
	if req.MaxDepth <= 0 {
		req.MaxDepth = subagent.DefaultMaxDepth
	}
	o := &Outcome{}
	prompt := req.Prompt
	advice := runAdvisors(ctx, p.Advisors, req)
	if len(advice) > 0 {
		blocks := make([]string, 0, len(advice)+1)
		for _, a := range advice {
			blocks = append(blocks, a.block)
		}
		prompt = JoinBlocks(append(blocks, OriginalRequestBlock(req.Prompt))...)
		req.Log.Debug("orchestrator enriched the prompt with advisory blocks", "advisors", len(advice))
	}
	res, route := main(ctx, prompt)
	for _, a := range advice {
		if a.ran {
			res.Accounting = append(res.Accounting, a.res.Accounting...)
			o.Children = append(o.Children, Finished{Kind: KindAdvisor, Name: a.child.Name, Result: a.res})
		}
	}
	label := req.Name
	if route != nil && len(p.Destinations) > 0 {
		res, label = o.routeTo(ctx, p, req, res, *route)
	}
	if p.Handoff != nil && res.Success {
		prompt := JoinBlocks(ResponseBlock(label, answer(res)), OriginalRequestBlock(req.Prompt))
		req.Log.Debug("orchestrator starting the handoff", "agent", p.Handoff.Ref)
		res = o.runFinal(ctx, KindHandoff, *p.Handoff, prompt, req, res)
	}
	o.Result = res
	return *o
}

// routeTo runs the destination the router chose.
func (o *Outcome) routeTo(ctx context.Context, p Plan, req Request, res contract.AIAgentResult, route agent.Route) (contract.AIAgentResult, string) {
	var dest *Child
	for i := range p.Destinations {
		if p.Destinations[i].Name == route.Agent {
			dest = &p.Destinations[i]
		}
	}
	if dest == nil {
		req.Log.Error("router destination missing", "agent", route.Agent)
		res.Success, res.Error = false, "router_destination_missing: "+route.Agent
		return res, req.Name
	}
	var blocks []string
	if route.Message != "" {
		blocks = append(blocks, AdvisoryBlock(req.Name, route.Message))
	}
	prompt := JoinBlocks(append(blocks, OriginalRequestBlock(req.Prompt))...)
	req.Log.Debug("orchestrator routing the request", "agent", dest.Ref)
	return o.runFinal(ctx, KindRouter, *dest, prompt, req, res), dest.Name
}

// runFinal runs a child whose answer replaces the current one, and merges
// its result into cur: its report (cur's when it has none), success,
// error and accounting.
func (o *Outcome) runFinal(ctx context.Context, kind Kind, c Child, prompt string, req Request, cur contract.AIAgentResult) contract.AIAgentResult {
	res, err := runChild(ctx, c, prompt, req)
	if err != nil {
		req.Log.Error("orchestration step failed", "step", kind, "agent", c.Ref, "error", err)
		cur.Success, cur.Error = false, fmt.Sprintf("%s %s: %v", kind, c.Ref, err)
		return cur
	}
	o.Children = append(o.Children, Finished{Kind: kind, Name: c.Name, Result: res})
	cur.Accounting = append(cur.Accounting, res.Accounting...)
	if res.FinalReport != nil {
		cur.FinalReport = res.FinalReport
	}
	cur.Success, cur.Error = res.Success, res.Error
	return cur
}

// advice is one advisor's outcome.
type advice struct {
	child Child
	block string
	res   contract.AIAgentResult
	ran   bool
}

// runAdvisors runs the advisors at once, each with the user's request,
// and returns their blocks in the advisors' order.
func runAdvisors(ctx context.Context, advisors []Child, req Request) []advice {
	out := make([]advice, len(advisors))
	var wg sync.WaitGroup
	for i, c := range advisors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = consult(ctx, c, req)
		}()
	}
	wg.Wait()
	return out
}

// consult runs one advisor: its answer, or the failure, as a block.
func consult(ctx context.Context, c Child, req Request) advice {
	a := advice{child: c}
	res, err := runChild(ctx, c, req.Prompt, req)
	switch {
	case err != nil:
		a.block = AdvisoryBlock(c.Name, failure(c.Ref, err.Error()))
	case !res.Success:
		a.res, a.ran = res, true
		msg := res.Error
		if msg == "" {
			msg = "unknown error"
		}
		a.block = AdvisoryBlock(c.Name, failure(c.Ref, msg))
	default:
		a.res, a.ran = res, true
		a.block = AdvisoryBlock(c.Name, answer(res))
	}
	if err != nil || !res.Success {
		req.Log.Warn("advisor failed; the session goes on without it", "agent", c.Ref, "error", a.block)
	}
	return a
}

func failure(ref, msg string) string {
	return "Advisor consultation failed for " + ref + ": " + msg
}

// runChild runs a child below the session, within the depth limit.
func runChild(ctx context.Context, c Child, prompt string, req Request) (contract.AIAgentResult, error) {
	if req.Trace.Depth() >= req.MaxDepth {
		return contract.AIAgentResult{}, fmt.Errorf("call depth %d reached (%s)", req.MaxDepth, req.Trace.CallPath)
	}
	if err := ctx.Err(); err != nil {
		return contract.AIAgentResult{}, err
	}
	return c.Run(ctx, prompt, req.Trace)
}

// answer is a result's answer as the next agent gets it: the final
// report, else the last assistant message.
func answer(res contract.AIAgentResult) string {
	if s := subagent.ReportText(res); s != "" {
		return s
	}
	for i := len(res.Conversation) - 1; i >= 0; i-- {
		if m := res.Conversation[i]; m.Role == contract.RoleAssistant {
			return m.Content
		}
	}
	return ""
}

// AdvisoryBlock is an advisor's answer (or a router's note) for the next
// agent: <advisory__NONCE agent="NAME">…</advisory__NONCE>.
func AdvisoryBlock(agentName, content string) string {
	return taggedBlock("advisory", content, agentName)
}

// ResponseBlock is an agent's answer for a handoff:
// <response__NONCE agent="NAME">…</response__NONCE>.
func ResponseBlock(agentName, content string) string {
	return taggedBlock("response", content, agentName)
}

// OriginalRequestBlock is the user's request:
// <original_user_request__NONCE>…</original_user_request__NONCE>.
func OriginalRequestBlock(content string) string {
	return taggedBlock("original_user_request", content, "")
}

// JoinBlocks joins blocks with a newline, as the original does.
func JoinBlocks(blocks ...string) string {
	out := make([]string, 0, len(blocks))
	for _, b := range blocks {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	return strings.Join(out, "\n")
}

// taggedBlock wraps content in a tag with a fresh 12-hex-digit nonce, so
// that text inside cannot close it.
func taggedBlock(prefix, content, agentName string) string {
	var n [6]byte
	_, _ = rand.Read(n[:])
	tag := prefix + "__" + hex.EncodeToString(n[:])
	attr := ""
	if agentName != "" {
		attr = ` agent="` + attrEscaper.Replace(agentName) + `"`
	}
	return "<" + tag + attr + ">\n" + content + "\n</" + tag + ">"
}

var attrEscaper = strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;")
