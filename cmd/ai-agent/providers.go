package main

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/providers"
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

// providerFactories maps every provider type
// (docs/contracts/ai-agent-cli.md §9.4) to a constructor backed by
// internal/llm/providers, the one place that names the llm subpackages. One Factory
// serves the whole process, so test-llm counters last for it
// (docs/contracts/ai-agent-cli.md §13). Its errors are mapped to exit-code
// categories here: a bad scenario file is an initialisation failure (3), the
// rest are configuration errors (4).
func providerFactories() map[string]providerFactory {
	f := &providers.Factory{}
	build := func(s providerSpec) (llm.Provider, error) {
		p, err := f.New(providers.Spec{
			Name: s.Name, Type: s.Config.Type, BaseURL: s.Config.BaseURL, APIKey: s.Config.APIKey,
			Headers: s.Config.Headers, OpenAIMode: s.Config.OpenAIMode, ScenarioFile: s.Config.ScenarioFile,
		})
		switch {
		case err == nil:
			return p, nil
		case errors.Is(err, providers.ErrScenario):
			return nil, fmt.Errorf("%w: %v", errInit, err)
		default:
			return nil, fmt.Errorf("%w: %v", config.ErrConfig, err)
		}
	}
	m := map[string]providerFactory{"google": build}
	for _, t := range providers.Types {
		m[t] = build
	}
	return m
}

// deps are the pluggable parts of the program: provider constructors and
// the MCP client. Tests replace them; run uses defaultDeps.
type deps struct {
	providers map[string]providerFactory
	mcp       mcpStarter
	tel       *telemetryState
	// notes logs each warning of the keys salve reads differently once
	// per process, however many sessions read them.
	notes *notes
	// telemetryHelper is the telemetry helper program; "" looks it up.
	telemetryHelper string
}

func defaultDeps() deps {
	return deps{providers: providerFactories(), mcp: mcpStarters()}
}

// notes remembers the warnings already logged.
type notes struct {
	mu   sync.Mutex
	seen map[string]bool
}

// warn logs msg at warning level unless it was logged before; a nil
// notes logs every time.
func (n *notes) warn(log *slog.Logger, msg string, args ...any) {
	if n != nil {
		n.mu.Lock()
		seen := n.seen[msg]
		if n.seen == nil {
			n.seen = map[string]bool{}
		}
		n.seen[msg] = true
		n.mu.Unlock()
		if seen {
			return
		}
	}
	log.Warn(msg, args...)
}

// newProvider builds the client for a provider entry.
func (d deps) newProvider(s providerSpec) (llm.Provider, error) {
	f, ok := d.providers[s.Config.Type]
	if !ok {
		return nil, fmt.Errorf("%w: provider %q: type %q is not available in this build", config.ErrConfig, s.Name, s.Config.Type)
	}
	return f(s)
}
