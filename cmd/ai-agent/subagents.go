package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/agent/tools/subagent"
)

// children collects the results of finished child sessions so that their
// accounting reaches the billing file with the parent's.
type children struct {
	mu      sync.Mutex
	entries []contract.AccountingEntry
	done    []childResult
}

// childResult is one finished child session, for --save-all.
type childResult struct {
	name string
	res  contract.AIAgentResult
}

func (c *children) add(name string, res contract.AIAgentResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = append(c.entries, res.Accounting...)
	c.done = append(c.done, childResult{name: name, res: res})
}

// keep records a finished child whose accounting is already in its
// parent's result (an orchestration child), for --save-all.
func (c *children) keep(name string, res contract.AIAgentResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done = append(c.done, childResult{name: name, res: res})
}

func (c *children) results() []childResult {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]childResult(nil), c.done...)
}

func (c *children) accounting() []contract.AccountingEntry {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]contract.AccountingEntry(nil), c.entries...)
}

// subAgents turns the agents list (docs/contracts/ai-agent-cli.md §10) into
// the agent__NAME tools of the session: each call runs an isolated child
// session. A missing or invalid file is exit 4.
func (st *startup) subAgents(s *sessionSetup) error {
	paths := st.set.Agents
	if len(paths) == 0 {
		return nil
	}
	var agents []subagent.Agent
	for _, path := range paths {
		a, err := st.loadAgent(path, s.mcp, childOutput{})
		if err != nil {
			return err
		}
		agents = append(agents, a)
	}
	if s.children == nil {
		s.children = &children{}
	}
	p, err := subagent.New(toTraceIDs(s.opts.Trace), agents, subagent.Options{OnResult: s.children.add})
	if err != nil {
		return fmt.Errorf("%w: %w", config.ErrConfig, err)
	}
	s.opts.Tools = append(s.opts.Tools, p)
	s.closers = append(s.closers, p)
	return nil
}

// loadAgent reads one .ai file and prepares its runner; shared are the
// parent's running MCP servers, out the format of an orchestration child.
func (st *startup) loadAgent(path string, shared map[string]tools.Provider, out childOutput) (subagent.Agent, error) {
	fm, body, err := st.agentFile(path)
	if err != nil {
		return subagent.Agent{}, err
	}
	name := agentName(path, fm)
	a := subagent.Agent{Name: name, Description: fm.Description}
	if fm.Input != nil {
		a.InputFormat, a.InputSchema = fm.Input.Format, fm.Input.Schema
	}
	a.Run = st.childRunner(name, path, fm, body, shared, out)
	return a, nil
}

// agentFile reads an .ai file's frontmatter and body, logging its
// warnings once.
func (st *startup) agentFile(path string) (*config.Frontmatter, string, error) {
	b, err := readNamedFile("sub-agent", path, maxPromptBytes)
	if err != nil {
		return nil, "", err
	}
	text, err := config.ResolveIncludes(string(b), path)
	if err != nil {
		return nil, "", fmt.Errorf("sub-agent %s: %w", path, err)
	}
	header, body, ok := config.SplitFrontmatter(text)
	fm := &config.Frontmatter{Settings: map[string]any{}}
	if ok {
		if fm, err = config.ParseFrontmatter(header, filepath.Dir(path)); err != nil {
			return nil, "", fmt.Errorf("sub-agent %s: %w", path, err)
		}
		for _, w := range fm.Warnings {
			st.deps.notes.warn(st.log, w, "agent", path)
		}
	}
	return fm, body, nil
}

// agentName is an agent's name: its toolName, else its file name
// without .ai.
func agentName(path string, fm *config.Frontmatter) string {
	if fm.ToolName != "" {
		return fm.ToolName
	}
	return strings.TrimSuffix(filepath.Base(path), ".ai")
}

// childRunner runs one isolated child session: its own frontmatter, limits,
// tools and tracing ids; the parent's config, --override values and, when
// the child names none, the parent's models.
func (st *startup) childRunner(name, path string, fm *config.Frontmatter, body string, shared map[string]tools.Provider, out childOutput) subagent.RunFunc {
	cli := config.CLI{Overrides: st.a.overrides, Flags: map[string]string{}}
	if v, ok := st.a.values["cache"]; ok && !fm.CacheSet {
		cli.Flags["cache"] = v
	}
	return func(ctx context.Context, task string, parent subagent.TraceIDs) (contract.AIAgentResult, error) {
		child := &startup{
			deps: st.deps, log: st.log.With("agent", name), stderr: st.stderr, cwd: st.cwd, cfg: st.cfg,
			a:   &cliArgs{values: map[string]string{}, lists: map[string][]string{}, bools: map[string]bool{}, overrides: st.a.overrides},
			sys: prompt{text: body, path: path}, usr: prompt{text: task}, fm: fm,
			subAgent: true, inheritModels: st.set.Targets.Models, sharedMCP: merged(st.sharedMCP, shared), out: out,
		}
		if v, ok := cli.Flags["cache"]; ok {
			child.a.values["cache"] = v
		}
		if err := child.resolve(cli, false); err != nil {
			return contract.AIAgentResult{}, err
		}
		opts, err := child.options()
		if err != nil {
			return contract.AIAgentResult{}, err
		}
		ids := parent.Child(name)
		opts.Trace = agent.Trace{AgentID: ids.AgentID, CallPath: ids.CallPath, TxnID: ids.TxnID, ParentTxnID: ids.ParentTxnID, OriginTxnID: ids.OriginTxnID}
		// The child serves its parent's headend and spends from its
		// parent's caps (the session's own and the headend's).
		if l, ok := agent.LimitsFrom(ctx); ok {
			opts.Headend = l.Headend
			opts.Budgets = append(opts.Budgets, l.Budgets...)
		}
		setup := &sessionSetup{opts: opts, log: child.log}
		defer setup.close()
		if err := child.tools(ctx, setup); err != nil {
			return contract.AIAgentResult{}, err
		}
		if err := child.cache(ctx, setup); err != nil {
			return contract.AIAgentResult{}, err
		}
		if setup.session, err = agent.New(setup.opts); err != nil {
			return contract.AIAgentResult{}, err
		}
		res := setup.run(ctx)
		if setup.children != nil {
			res.Accounting = append(res.Accounting, setup.children.accounting()...)
		}
		return res, nil
	}
}

// merged is a new map with the entries of a, then b.
func merged(a, b map[string]tools.Provider) map[string]tools.Provider {
	out := make(map[string]tools.Provider, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func toTraceIDs(t agent.Trace) subagent.TraceIDs {
	return subagent.TraceIDs{AgentID: t.AgentID, CallPath: t.CallPath, TxnID: t.TxnID, ParentTxnID: t.ParentTxnID, OriginTxnID: t.OriginTxnID}
}
