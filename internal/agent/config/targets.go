package config

import (
	"fmt"

	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/llm"
)

// TargetSetup is what a caller of [Config.Targets] settles itself: the
// models, its own request parameters and how a provider's client is made.
type TargetSetup struct {
	// Models are "provider/model" targets in fallback order.
	Models []string
	// Params are the caller's request parameters for every target; a
	// model's own overrides beat them.
	Params agent.Params
	// ContextWindow, when set, is every target's context window (the
	// contextWindow option), beating the provider and model entries.
	ContextWindow *int
	// BufferTokens, when set, is every target's context window buffer
	// (the contextWindowBufferTokens option of the frontmatter or
	// --override), beating the provider and model entries.
	BufferTokens *int
	// NewClient builds the client of one provider entry. It is called once
	// per provider name; its errors are returned as they are.
	NewClient func(name string, entry Provider) (llm.Provider, error)
	// Warn receives the entries' non-fatal remarks; nil drops them.
	Warn func(string)
}

// Targets resolves the engine targets of s.Models, the one place that
// does (docs/contracts/ai-agent-cli.md §4, §9.4): each target has its
// provider's client, s.Params with the model's overrides applied, the
// model's or else the provider's toolChoice, and its context window,
// buffer and tokenizer (s.ContextWindow, else the model's, else the
// provider's, else DefaultContextWindow; the buffer from the entries,
// else defaults.contextWindowBufferTokens, else DefaultBufferTokens).
// ai-agent and the heal's llm tier both build their targets here.
func (c *Config) Targets(s TargetSetup) ([]agent.Target, error) {
	if len(s.Models) == 0 {
		return nil, nil
	}
	buffer, err := c.BufferTokens()
	if err != nil {
		return nil, err
	}
	clients := map[string]llm.Provider{}
	out := make([]agent.Target, 0, len(s.Models))
	for _, m := range s.Models {
		pname, model, err := SplitModel(m)
		if err != nil {
			return nil, err
		}
		entry, err := c.ProviderEntry(pname)
		if err != nil {
			return nil, err
		}
		if s.Warn != nil {
			for _, w := range entry.Warnings {
				s.Warn(w)
			}
		}
		client, ok := clients[pname]
		if !ok {
			if client, err = s.NewClient(pname, entry); err != nil {
				return nil, err
			}
			clients[pname] = client
		}
		t, err := target(pname, model, entry, client, s.Params, buffer)
		if err != nil {
			return nil, err
		}
		if s.ContextWindow != nil {
			t.ContextWindow = *s.ContextWindow
		}
		if s.BufferTokens != nil {
			t.ContextWindowBufferTokens = *s.BufferTokens
		}
		out = append(out, t)
	}
	return out, nil
}

// BufferTokens is defaults.contextWindowBufferTokens (0 is a value), else
// DefaultBufferTokens; an invalid value is a configuration error.
func (c *Config) BufferTokens() (int, error) {
	if !c.Has("defaults", "contextWindowBufferTokens") {
		return DefaultBufferTokens, nil
	}
	n, err := Int(c.Raw("defaults", "contextWindowBufferTokens"), 0)
	if err != nil {
		return 0, fmt.Errorf("defaults.contextWindowBufferTokens: %w", err)
	}
	return n, nil
}

// target builds one fallback target. The model's settings beat the
// provider's, which beat the defaults; a setting is taken when present,
// whatever its value (0 included).
func target(pname, model string, entry Provider, client llm.Provider, base agent.Params, buffer int) (agent.Target, error) {
	t := agent.Target{Provider: pname, Model: model, Client: client, Params: base, ToolChoice: entry.ToolChoice}
	if entry.CacheStrategy == "none" {
		t.Params.Caching = "none"
	}
	t.ContextWindow, t.ContextWindowBufferTokens, t.Tokenizer = entry.Window(model, buffer)
	mc, ok := entry.Models[model]
	if !ok {
		return t, nil
	}
	if mc.ToolChoice != "" {
		t.ToolChoice = mc.ToolChoice
	}
	ov, err := mc.ParsedOverrides()
	if err != nil {
		return t, fmt.Errorf("providers.%s.models.%s: %w", pname, model, err)
	}
	floats := map[string]**float64{"temperature": &t.Params.Temperature, "topP": &t.Params.TopP, "repeatPenalty": &t.Params.RepeatPenalty}
	for key, dst := range floats {
		if o, has := ov[key]; has {
			if o.Unset {
				*dst = nil
			} else {
				x := o.Value
				*dst = &x
			}
		}
	}
	if o, has := ov["topK"]; has {
		if o.Unset {
			t.Params.TopK = nil
		} else {
			k := int(o.Value)
			t.Params.TopK = &k
		}
	}
	return t, nil
}

// TargetSettings resolves, from s, what every target of a session shares
// (docs/contracts/ai-agent-cli.md §4): the request parameters temperature,
// topP, repeatPenalty, topK, maxOutputTokens, reasoningTokens, caching and
// reasoning, over the caller's built-in values in builtin, and the
// contextWindow and contextWindowBufferTokens options (the latter from
// --override, the CLI or the frontmatter only: defaults' value is the
// entries' fallback). The caller adds the models and its client maker.
func (s Sources) TargetSettings(builtin agent.Params) (TargetSetup, error) {
	p := builtin
	for _, f := range []struct {
		key string
		dst **float64
	}{{"temperature", &p.Temperature}, {"topP", &p.TopP}, {"repeatPenalty", &p.RepeatPenalty}} {
		v, ok, err := s.Resolve(f.key)
		if err != nil {
			return TargetSetup{}, err
		}
		switch {
		case ok && v.Unset:
			*f.dst = nil
		case ok:
			x := v.Float
			*f.dst = &x
		}
	}
	if v, ok, err := s.Resolve("topK"); err != nil {
		return TargetSetup{}, err
	} else if ok && v.Unset {
		p.TopK = nil
	} else if ok {
		k := v.Int
		p.TopK = &k
	}
	if v, ok, err := s.Resolve("maxOutputTokens"); err != nil {
		return TargetSetup{}, err
	} else if ok {
		p.MaxOutputTokens = v.Int
	}
	if v, ok, err := s.Resolve("reasoningTokens"); err != nil {
		return TargetSetup{}, err
	} else if ok {
		n := v.Int
		p.ReasoningTokens = &n
	}
	for _, e := range []struct {
		key string
		dst *string
	}{{"caching", &p.Caching}, {"reasoning", &p.Reasoning}} {
		if v, ok, err := s.Resolve(e.key); err != nil {
			return TargetSetup{}, err
		} else if ok {
			*e.dst = v.Str
		}
	}
	ts := TargetSetup{Params: p}
	if v, ok, err := s.Resolve("contextWindow"); err != nil {
		return TargetSetup{}, err
	} else if ok {
		n := v.Int
		ts.ContextWindow = &n
	}
	agentLevel := s
	agentLevel.Defaults = nil
	if v, ok, err := agentLevel.Resolve("contextWindowBufferTokens"); err != nil {
		return TargetSetup{}, err
	} else if ok {
		n := v.Int
		ts.BufferTokens = &n
	}
	return ts, nil
}
