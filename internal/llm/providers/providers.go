// Package providers builds an [llm.Provider] from a configured provider
// entry (docs/contracts/ai-agent-cli.md §9.4): the one place that maps a
// provider type to the llm subpackage that speaks its wire API.
package providers

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/anthropic"
	"github.com/salve-dev/salve/internal/llm/google"
	"github.com/salve-dev/salve/internal/llm/ollama"
	"github.com/salve-dev/salve/internal/llm/openai"
	"github.com/salve-dev/salve/internal/llm/scripted"
)

// Errors returned by [Factory.New]; test with errors.Is.
var (
	// ErrUnknownType is a type that is not one of
	// docs/contracts/ai-agent-cli.md §9.4.
	ErrUnknownType = errors.New("unknown provider type")
	// ErrUnsupported is an unknown openaiMode.
	ErrUnsupported = errors.New("provider type not supported")
	// ErrBaseURLRequired is an openai-compatible entry without baseUrl.
	ErrBaseURLRequired = errors.New("baseUrl is required")
	// ErrScenario is a test-llm entry whose scenario file cannot be read
	// or is invalid.
	ErrScenario = errors.New("test-llm scenario file")
)

// Types lists the provider types of docs/contracts/ai-agent-cli.md §9.4 that
// New accepts.
var Types = []string{"openai", "openai-compatible", "openrouter", "anthropic", "google", "ollama", "test-llm"}

// Spec is one configured provider entry, with its variables expanded.
type Spec struct {
	// Name is the configured provider name, used in error messages.
	Name string
	// Type is the provider type (docs/contracts/ai-agent-cli.md §9.4).
	Type    string
	BaseURL string
	APIKey  string
	Headers map[string]string
	// OpenAIMode is "", "chat" or "responses" (type openai only; other
	// types ignore it, as the spec says).
	OpenAIMode string
	// ScenarioFile is the test-llm scenario file, already resolved
	// against the directory of the layer that set it.
	ScenarioFile string
	// HTTPClient sends the requests; nil means a fresh client.
	HTTPClient *http.Client
	// Timeout bounds one request (llmTimeout); 0 means none beyond the
	// context's.
	Timeout time.Duration
}

// Factory builds providers. It keeps one test-llm provider per scenario
// file, so that failuresBeforeSuccess counters last for the process as
// docs/contracts/ai-agent-cli.md §13 says. The zero Factory is ready to use;
// it is safe for concurrent use.
type Factory struct {
	mu       sync.Mutex
	scripted map[string]*scripted.Provider
}

// New returns the provider for s.
func (f *Factory) New(s Spec) (llm.Provider, error) {
	switch s.Type {
	case "openai", "openai-compatible", "openrouter":
		return newOpenAI(s)
	case "anthropic":
		return anthropic.New(anthropic.Options{BaseURL: s.BaseURL, APIKey: s.APIKey, Headers: s.Headers,
			HTTPClient: s.HTTPClient, Timeout: s.Timeout}), nil
	case "ollama":
		return ollama.New(ollama.Options{BaseURL: s.BaseURL, APIKey: s.APIKey, Headers: s.Headers,
			HTTPClient: s.HTTPClient, Timeout: s.Timeout}), nil
	case "google":
		return google.New(google.Options{BaseURL: s.BaseURL, APIKey: s.APIKey, Headers: s.Headers,
			HTTPClient: s.HTTPClient, Timeout: s.Timeout}), nil
	case "test-llm":
		return f.scriptedFor(s)
	}
	return nil, fmt.Errorf("provider %q: %w %q", s.Name, ErrUnknownType, s.Type)
}

func newOpenAI(s Spec) (llm.Provider, error) {
	mode := ""
	if s.Type == "openai" {
		switch s.OpenAIMode {
		case "", openai.ModeChat, openai.ModeResponses:
			mode = s.OpenAIMode
		default:
			return nil, fmt.Errorf("provider %q: openaiMode %q: %w", s.Name, s.OpenAIMode, ErrUnsupported)
		}
	}
	if s.Type == "openai-compatible" && s.BaseURL == "" {
		return nil, fmt.Errorf("provider %q: type openai-compatible: %w", s.Name, ErrBaseURLRequired)
	}
	return openai.New(openai.Options{Flavor: openai.Flavor(s.Type), BaseURL: s.BaseURL, APIKey: s.APIKey,
		Headers: s.Headers, HTTPClient: s.HTTPClient, Timeout: s.Timeout, Mode: mode}), nil
}

func (f *Factory) scriptedFor(s Spec) (llm.Provider, error) {
	if s.ScenarioFile == "" {
		return nil, fmt.Errorf("provider %q: %w: scenarioFile is required", s.Name, ErrScenario)
	}
	key, err := filepath.Abs(s.ScenarioFile)
	if err != nil {
		key = s.ScenarioFile
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if p, ok := f.scripted[key]; ok {
		return p, nil
	}
	p, err := scripted.Open(s.ScenarioFile)
	if err != nil {
		return nil, fmt.Errorf("provider %q: %w: %w", s.Name, ErrScenario, err)
	}
	if f.scripted == nil {
		f.scripted = map[string]*scripted.Provider{}
	}
	f.scripted[key] = p
	return p, nil
}
