package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/cache"
)

// responseCache is the agent response cache of one session.
type responseCache struct {
	db         *cache.Cache
	ttl        time.Duration
	agentName  string
	agentHash  string
	userPrompt string
}

// cache resolves the response cache TTL (--cache, else the frontmatter's
// cache:) and the tool TTLs of mcpServers and restTools, and opens the
// cache section's SQLite file when one of them is positive
// (docs/ai-agent.md, "Caching"). A cache that cannot be opened is a
// warning, and the session runs uncached.
func (st *startup) cache(ctx context.Context, s *sessionSetup) error {
	ttl := st.set.CacheTTL
	toolTTL, anyTool, err := st.cfg.ToolCacheTTLs()
	if err != nil {
		return err
	}
	if ttl <= 0 && !anyTool {
		return nil
	}
	section, err := st.cfg.Cache()
	if err != nil {
		return err
	}
	if section.Backend != "" && section.Backend != "sqlite" {
		st.log.Warn(fmt.Sprintf("cache disabled: %s backend is not supported (salve caches on sqlite)", section.Backend))
		return nil
	}
	path := section.SQLite.Path
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			home = st.cwd
		}
		path = filepath.Join(home, ".ai-agent", "cache.db")
	}
	if st.dryRun {
		return nil
	}
	db, err := cache.Open(ctx, path, section.MaxEntries)
	if err != nil {
		st.log.Warn(fmt.Sprintf("cache disabled: sqlite backend unavailable (%v)", err))
		return nil
	}
	s.cacheDB = db
	hash, err := cache.Key(st.agentIdentity(s))
	if err != nil {
		return err
	}
	name := s.opts.Trace.AgentID
	if anyTool {
		s.opts.ToolCache = &cache.Tools{Cache: db, TTL: toolTTL, AgentName: name, AgentHash: hash, Log: st.log}
	}
	if ttl > 0 {
		s.response = &responseCache{db: db, ttl: ttl, agentName: name, agentHash: hash, userPrompt: st.usr.text}
	}
	return nil
}

// agentIdentity is what the agent hash covers: the prompt with its
// includes, the frontmatter, the merged configuration, the targets, tools
// and agents, and the effective options. Changing any of them changes
// every key of the agent.
func (st *startup) agentIdentity(s *sessionSetup) any {
	type target struct {
		Provider, Model string
		Params          any
	}
	o := s.opts
	targets := make([]target, 0, len(o.Targets))
	for _, t := range o.Targets {
		targets = append(targets, target{t.Provider, t.Model, t.Params})
	}
	var names []string
	for _, p := range o.Tools {
		for _, t := range p.Tools() {
			names = append(names, t.Name)
		}
	}
	return map[string]any{
		"prompt": st.sys.text, "frontmatter": st.fm, "config": st.cfg.Raw(), "targets": targets, "tools": names,
		"agents": st.set.Agents, "format": o.Format, "schema": o.Schema,
		"effective": map[string]any{"maxTurns": o.MaxTurns, "maxRetries": o.MaxRetries, "maxToolCallsPerTurn": o.MaxToolCallsPerTurn,
			"llmTimeout": o.LLMTimeout, "toolTimeout": o.ToolTimeout, "toolResponseMaxBytes": o.ToolResponseMaxBytes,
			"stream": o.Stream, "transport": o.Transport, "batch": o.Batch, "progress": o.Progress, "toolOutput": o.ToolOutput},
	}
}

// runSession runs the session behind the response cache: a hit returns the
// stored report and conversation without starting a turn; a successful
// run is stored. Resumed sessions and requests with a chat history bypass
// it: the key does not cover the history.
func (s *sessionSetup) runSession(ctx context.Context) contract.AIAgentResult {
	rc := s.response
	if rc == nil || s.opts.Resume != nil || len(s.opts.History) > 0 {
		return s.session.Run(ctx)
	}
	key, err := cache.AgentKey(rc.agentHash, rc.userPrompt, s.opts.Format, s.opts.Schema)
	if err != nil {
		return s.session.Run(ctx)
	}
	var hit cache.Response
	age, ok, err := rc.db.Get(ctx, key, rc.ttl, &hit)
	if err != nil {
		s.log.Warn("cache read failed", "error", err)
	}
	if ok && hit.Valid() {
		s.log.Debug("cache hit: "+rc.agentName, "cache_kind", "agent", "cache_key", key, "cache_age_ms", age.Milliseconds(),
			"cache_current_agent", rc.agentName, "cache_current_format", s.opts.Format, "cache_stored_format", hit.FinalReport.Format)
		return contract.AIAgentResult{Success: true, FinalReport: hit.FinalReport, Conversation: hit.Conversation, Accounting: []contract.AccountingEntry{}}
	}
	res := s.session.Run(ctx)
	if res.Success && res.FinalReport != nil {
		val := cache.Response{FinalReport: res.FinalReport, Conversation: res.Conversation}
		for _, c := range s.children.results() {
			val.ChildConversations = append(val.ChildConversations, c.res.Conversation)
		}
		meta := cache.Meta{Kind: "agent", AgentName: rc.agentName, AgentHash: rc.agentHash, Format: s.opts.Format}
		if err := rc.db.Set(ctx, key, meta, val, rc.ttl); err != nil {
			s.log.Warn("cache write failed: " + err.Error())
		}
	}
	return res
}
