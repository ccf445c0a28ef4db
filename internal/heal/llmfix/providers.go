package llmfix

import (
	"errors"
	"fmt"

	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/providers"
)

// ErrConfig is wrapped when the models or providers cannot be set up.
var ErrConfig = errors.New("llm configuration")

// envProviders are the providers configured by the environment alone, with
// the model used when --models names none (spec: OPENAI_API_KEY,
// ANTHROPIC_API_KEY, OLLAMA_HOST).
var envProviders = []struct {
	name, env, model string
}{
	{"openai", "OPENAI_API_KEY", "gpt-4o-mini"},
	{"anthropic", "ANTHROPIC_API_KEY", "claude-3-5-haiku-latest"},
	{"ollama", "OLLAMA_HOST", "qwen2.5-coder"},
}

// Setup says where the llm tier's configuration comes from.
type Setup struct {
	// Models lists "provider/model" targets in fallback order; empty means
	// one default target per provider configured by the environment.
	Models []string
	// ConfigFile is an .ai-agent.json (optional); Cwd and Home add the
	// ai-agent's other config layers.
	ConfigFile, Cwd, Home string
	// Getenv reads the environment.
	Getenv func(string) string
}

// Targets builds the targets of s. It returns no target and no error when
// nothing is configured, so the caller can leave the tier out.
func Targets(s Setup) ([]Target, error) {
	getenv := s.Getenv
	lookup := func(k string) (string, bool) { v := getenv(k); return v, v != "" }
	cfg, err := config.Load(config.Locations{ConfigFile: s.ConfigFile, Cwd: s.Cwd, Home: s.Home, Getenv: lookup})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	models := s.Models
	if len(models) == 0 {
		for _, p := range envProviders {
			if getenv(p.env) != "" {
				models = append(models, p.name+"/"+p.model)
			}
		}
	}
	var out []Target
	for _, m := range models {
		name, model, err := config.SplitModel(m)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		p, err := providerEntry(cfg, name)
		if err != nil {
			return nil, err
		}
		client, err := NewProvider(name, p)
		if err != nil {
			return nil, err
		}
		t := Target{Provider: name, Model: model, Client: client}
		t.ContextWindow, t.BufferTokens, t.Tokenizer = p.Window(model, config.DefaultBufferTokens)
		out = append(out, t)
	}
	return out, nil
}

// providerEntry reads providers.NAME from the config layers, or builds the
// entry of a well-known provider from the environment (its key and base
// URL variables: OPENAI_API_KEY and OPENAI_BASE_URL, …), the same way
// ai-agent does; a provider whose key is missing is an error naming it.
func providerEntry(cfg *config.Config, name string) (config.Provider, error) {
	p, err := cfg.ProviderEntry(name)
	if err != nil {
		return p, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return p, nil
}

// NewProvider builds the client of one provider entry through
// internal/llm/providers, the one table that names the llm subpackages.
func NewProvider(name string, p config.Provider) (llm.Provider, error) {
	f := &providers.Factory{}
	c, err := f.New(providers.Spec{Name: name, Type: p.Type, BaseURL: p.BaseURL, APIKey: p.APIKey,
		Headers: p.Headers, OpenAIMode: p.OpenAIMode, ScenarioFile: p.ScenarioFile})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return c, nil
}
