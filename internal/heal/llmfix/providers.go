package llmfix

import (
	"errors"
	"fmt"

	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/providers"
)

// ErrConfig is wrapped when the models or providers cannot be set up.
var ErrConfig = errors.New("llm configuration")

// Setup says where the llm tier's configuration comes from.
type Setup struct {
	// Models lists "provider/model" targets in fallback order; empty means
	// the default target of each well-known provider the environment
	// configures (config.Config.DefaultModels: OPENAI_API_KEY,
	// ANTHROPIC_API_KEY, OLLAMA_HOST).
	Models []string
	// ConfigFile is an .ai-agent.json (optional); Cwd and Home add the
	// ai-agent's other config layers.
	ConfigFile, Cwd, Home string
	// Getenv reads the environment.
	Getenv func(string) string
	// Params are the tier's own request parameters for every target; the
	// configuration's defaults beat them (temperature, topP, topK,
	// repeatPenalty, maxOutputTokens, reasoning, caching, contextWindow),
	// as they do ai-agent's built-in values, and a model's own overrides
	// beat both. Zero sends the engine's defaults.
	Params agent.Params
}

// Targets builds the targets of s through config.Sources.TargetSettings
// and config.Config.Targets, as ai-agent does, so each carries the
// configuration's defaults, its model's overrides, toolChoice, context
// window and buffer. It returns no target and no
// error when nothing is configured, so the caller can leave the tier out.
func Targets(s Setup) ([]Target, error) {
	cfg, err := Load(s)
	if err != nil {
		return nil, err
	}
	return TargetsFrom(cfg, s)
}

// Load reads the ai-agent configuration layers s names, as ai-agent does.
// Errors wrap ErrConfig.
func Load(s Setup) (*config.Config, error) {
	getenv := s.Getenv
	lookup := func(k string) (string, bool) { v := getenv(k); return v, v != "" }
	cfg, err := config.Load(config.Locations{ConfigFile: s.ConfigFile, Cwd: s.Cwd, Home: s.Home, Getenv: lookup})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return cfg, nil
}

// TargetsFrom is [Targets] over a configuration already loaded: the tiers
// that call a model (llm, agent) share this one builder.
func TargetsFrom(cfg *config.Config, s Setup) ([]Target, error) {
	models := s.Models
	if len(models) == 0 {
		models = cfg.DefaultModels()
	}
	if len(models) == 0 {
		return nil, nil
	}
	defaults, err := cfg.Defaults()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	setup, err := config.Sources{Defaults: defaults}.TargetSettings(s.Params)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	f := &providers.Factory{}
	setup.Models = models
	setup.NewClient = func(name string, p config.Provider) (llm.Provider, error) { return newClient(f, name, p) }
	ts, err := cfg.Targets(setup)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return ts, nil
}

// newClient builds the client of one provider entry through
// internal/llm/providers, the one table that names the llm subpackages.
func newClient(f *providers.Factory, name string, p config.Provider) (llm.Provider, error) {
	return f.New(providers.Spec{Name: name, Type: p.Type, BaseURL: p.BaseURL, APIKey: p.APIKey,
		Headers: p.Headers, OpenAIMode: p.OpenAIMode, ScenarioFile: p.ScenarioFile})
}
