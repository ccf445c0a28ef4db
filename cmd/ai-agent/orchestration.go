package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/agent/orchestrate"
	"github.com/salve-dev/salve/internal/agent/tools/subagent"
)

// childOutput is the format an orchestration child answers in when its
// own frontmatter names none (config.Request.ChildFormat).
type childOutput struct {
	format string
	schema json.RawMessage
}

// orchestration loads the agent's advisors, router destinations and
// handoff (docs/ai-agent.md, "Advisors, router and handoff"): the whole
// chain is checked for loops and depth first; a missing file is exit 4.
func (st *startup) orchestration(s *sessionSetup) error {
	o := st.set.Orchestration
	if o.Empty() {
		return nil
	}
	ids := toTraceIDs(s.opts.Trace)
	links := func(path string) ([]string, error) {
		fm, _, err := st.agentFile(path)
		if err != nil {
			return nil, err
		}
		return orchestrationLinks(fm.Orchestration), nil
	}
	if err := orchestrate.Check(st.sys.path, orchestrationLinks(o), links, subagent.DefaultMaxDepth-max(ids.Depth()-1, 0)); err != nil {
		return fmt.Errorf("%w: %w", config.ErrConfig, err)
	}
	// Advisors answer another agent; destinations and the handoff answer
	// the user, in this session's format.
	advise, answer := childOutput{format: agent.FormatMarkdown}, childOutput{format: s.opts.Format, schema: s.opts.Schema}
	load := func(paths []string, out childOutput) ([]orchestrate.Child, error) {
		var cs []orchestrate.Child
		for _, path := range paths {
			a, err := st.loadAgent(path, s.mcp, out)
			if err != nil {
				return nil, err
			}
			cs = append(cs, orchestrate.Child{Ref: path, Name: a.Name, Run: a.Run})
		}
		return cs, nil
	}
	var err error
	p := &s.plan
	if p.Advisors, err = load(o.Advisors, advise); err != nil {
		return err
	}
	if p.Destinations, err = load(o.Destinations, answer); err != nil {
		return err
	}
	if o.Handoff != "" {
		h, err := load([]string{o.Handoff}, answer)
		if err != nil {
			return err
		}
		p.Handoff = &h[0]
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%w: %w", config.ErrConfig, err)
	}
	s.opts.Routes = p.Routes()
	if s.children == nil {
		s.children = &children{}
	}
	return nil
}

// orchestrationLinks lists every file an agent's orchestration names.
func orchestrationLinks(o config.Orchestration) []string {
	out := append(append([]string{}, o.Advisors...), o.Destinations...)
	if o.Handoff != "" {
		out = append(out, o.Handoff)
	}
	return out
}

// run runs the session with its advisors, router and handoff around it;
// the children's conversations are kept for --save-all, their
// accounting is in the result.
func (s *sessionSetup) run(ctx context.Context) contract.AIAgentResult {
	if s.plan.Empty() {
		return s.runSession(ctx)
	}
	// The children spend from this session's caps and serve its headend.
	ctx = s.session.WithLimits(ctx)
	req := orchestrate.Request{Prompt: s.session.UserPrompt(), Name: s.opts.Trace.AgentID, Trace: toTraceIDs(s.opts.Trace), Log: s.log}
	out := orchestrate.Run(ctx, s.plan, req, func(ctx context.Context, prompt string) (contract.AIAgentResult, *agent.Route) {
		s.session.SetUserPrompt(prompt)
		res := s.runSession(ctx)
		if r, ok := s.session.Route(); ok {
			return res, &r
		}
		return res, nil
	})
	for _, c := range out.Children {
		s.children.keep(c.Name, c.Result)
	}
	return out.Result
}
