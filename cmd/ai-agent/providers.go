package main

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/salve-dev/salve/config"
	"github.com/salve-dev/salve/llm"
	"github.com/salve-dev/salve/llm/anthropic"
	"github.com/salve-dev/salve/llm/ollama"
	"github.com/salve-dev/salve/llm/openai"
	"github.com/salve-dev/salve/llm/scripted"
)

// errInit marks an initialisation failure (exit 3): an unknown tool name, an
// MCP server that fails to start, a bad test-llm scenario file.
var errInit = errors.New("initialisation failed")

// providerSpec is what a provider constructor gets.
type providerSpec struct {
	// Name is the configured provider name.
	Name   string
	Config config.Provider
	Logger *slog.Logger
}

// providerFactory builds the client of one provider type.
type providerFactory func(providerSpec) (llm.Provider, error)

// providerFactories maps a provider type (spec §9.4) to its constructor.
// The engine never sees provider specifics; this table is the only place
// that names the llm subpackages.
func providerFactories() map[string]providerFactory {
	chat := func(flavor openai.Flavor) providerFactory {
		return func(s providerSpec) (llm.Provider, error) {
			if flavor == openai.FlavorCompatible && s.Config.BaseURL == "" {
				return nil, fmt.Errorf("%w: provider %q: baseUrl is required for openai-compatible", config.ErrConfig, s.Name)
			}
			if s.Config.OpenAIMode == "responses" {
				return nil, fmt.Errorf("%w: provider %q: openaiMode responses is not supported", config.ErrConfig, s.Name)
			}
			return openai.New(openai.Options{Flavor: flavor, BaseURL: s.Config.BaseURL, APIKey: s.Config.APIKey, Headers: s.Config.Headers}), nil
		}
	}
	return map[string]providerFactory{
		"openai":            chat(openai.FlavorOpenAI),
		"openai-compatible": chat(openai.FlavorCompatible),
		"openrouter":        chat(openai.FlavorOpenRouter),
		"anthropic": func(s providerSpec) (llm.Provider, error) {
			return anthropic.New(anthropic.Options{BaseURL: s.Config.BaseURL, APIKey: s.Config.APIKey, Headers: s.Config.Headers}), nil
		},
		"ollama": func(s providerSpec) (llm.Provider, error) {
			return ollama.New(ollama.Options{BaseURL: s.Config.BaseURL, APIKey: s.Config.APIKey, Headers: s.Config.Headers}), nil
		},
		"test-llm": func(s providerSpec) (llm.Provider, error) {
			if s.Config.ScenarioFile == "" {
				return nil, fmt.Errorf("%w: provider %q: test-llm needs scenarioFile", errInit, s.Name)
			}
			p, err := scripted.Open(s.Config.ScenarioFile)
			if err != nil {
				return nil, fmt.Errorf("%w: provider %q: %v", errInit, s.Name, err)
			}
			return p, nil
		},
		"google": func(s providerSpec) (llm.Provider, error) {
			return nil, fmt.Errorf("%w: provider %q: type google is not supported", config.ErrConfig, s.Name)
		},
	}
}

// deps are the pluggable parts of the program: provider constructors and
// the MCP client. Tests replace them; run uses defaultDeps.
type deps struct {
	providers map[string]providerFactory
	mcp       mcpStarter
}

func defaultDeps() deps {
	return deps{providers: providerFactories(), mcp: mcpStarters()}
}

// newProvider builds the client for a provider entry.
func (d deps) newProvider(s providerSpec) (llm.Provider, error) {
	f, ok := d.providers[s.Config.Type]
	if !ok {
		return nil, fmt.Errorf("%w: provider %q: type %q is not available in this build", config.ErrConfig, s.Name, s.Config.Type)
	}
	return f(s)
}
