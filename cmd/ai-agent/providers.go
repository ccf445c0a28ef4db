package main

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/salve-dev/salve/config"
	"github.com/salve-dev/salve/llm"
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
	return map[string]providerFactory{
		"google": func(s providerSpec) (llm.Provider, error) {
			return nil, fmt.Errorf("%w: provider %q: type google is not supported", config.ErrConfig, s.Name)
		},
	}
}

// newProvider builds the client for a provider entry.
func newProvider(s providerSpec) (llm.Provider, error) {
	f, ok := providerFactories()[s.Config.Type]
	if !ok {
		return nil, fmt.Errorf("%w: provider %q: type %q is not available in this build", config.ErrConfig, s.Name, s.Config.Type)
	}
	return f(s)
}
