package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/cache"
	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/agent/tools"
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
	var ttl time.Duration
	if st.fm.CacheSet {
		ttl = st.fm.Cache
	}
	if v, ok := st.a.values["cache"]; ok {
		var err error
		if ttl, _, err = config.ParseCacheTTL("--cache", v); err != nil {
			return err
		}
	}
	toolTTL, anyTool, err := st.toolTTLs()
	if err != nil {
		return err
	}
	if ttl <= 0 && !anyTool {
		return nil
	}
	var section struct {
		Backend    string `json:"backend"`
		MaxEntries int    `json:"maxEntries"`
		SQLite     struct {
			Path string `json:"path"`
		} `json:"sqlite"`
	}
	if err := st.cfg.Decode(&section, "cache"); err != nil {
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

// toolTTLs reads the cache and toolsCache members of every MCP server and
// the cache member of every REST tool.
func (st *startup) toolTTLs() (func(tools.Tool) time.Duration, bool, error) {
	type serverTTL struct {
		all   time.Duration
		tools map[string]time.Duration
	}
	mcpTTL := map[string]serverTTL{}
	restTTL := map[string]time.Duration{}
	positive := false
	for _, srv := range st.cfg.Keys("mcpServers") {
		what := "mcpServers." + srv
		all, _, err := config.ParseCacheTTL(what, st.cfg.Raw("mcpServers", srv, "cache"))
		if err != nil {
			return nil, false, err
		}
		e := serverTTL{all: all, tools: map[string]time.Duration{}}
		positive = positive || all > 0
		for _, tool := range st.cfg.Keys("mcpServers", srv, "toolsCache") {
			ttl, set, err := config.ParseCacheTTL(what+".toolsCache."+tool, st.cfg.Raw("mcpServers", srv, "toolsCache", tool))
			if err != nil {
				return nil, false, err
			}
			if set {
				e.tools[tool] = ttl
				positive = positive || ttl > 0
			}
		}
		mcpTTL[srv] = e
	}
	for _, name := range st.cfg.Keys("restTools") {
		ttl, _, err := config.ParseCacheTTL("restTools."+name, st.cfg.Raw("restTools", name, "cache"))
		if err != nil {
			return nil, false, err
		}
		restTTL["rest__"+tools.SanitizeName(name)] = ttl
		positive = positive || ttl > 0
	}
	return func(t tools.Tool) time.Duration {
		switch t.Kind {
		case tools.KindMCP:
			e := mcpTTL[t.Server]
			for _, n := range []string{t.LocalName, tools.SanitizeName(t.LocalName)} {
				if ttl, ok := e.tools[n]; ok {
					return ttl
				}
			}
			return e.all
		case tools.KindREST:
			return restTTL[t.Name]
		}
		return 0
	}, positive, nil
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
		"agents": st.list("agents", st.fm.Agents), "format": o.Format, "schema": o.Schema,
		"effective": map[string]any{"maxTurns": o.MaxTurns, "maxRetries": o.MaxRetries, "maxToolCallsPerTurn": o.MaxToolCallsPerTurn,
			"llmTimeout": o.LLMTimeout, "toolTimeout": o.ToolTimeout, "toolResponseMaxBytes": o.ToolResponseMaxBytes,
			"stream": o.Stream, "transport": o.Transport, "batch": o.Batch, "progress": o.Progress, "toolOutput": o.ToolOutput},
	}
}

// run runs the session behind the response cache: a hit returns the
// stored report and conversation without starting a turn; a successful
// run is stored. Resumed sessions and requests with a chat history bypass
// it: the key does not cover the history.
func (s *sessionSetup) run(ctx context.Context) contract.AIAgentResult {
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
