package config

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

// Provider types (docs/contracts/ai-agent-cli.md §9.4).
var providerTypes = map[string]bool{
	"openai": true, "openai-compatible": true, "anthropic": true, "google": true,
	"ollama": true, "openrouter": true, "test-llm": true,
}

// Provider is one providers.NAME entry (docs/contracts/ai-agent-cli.md §9.4).
type Provider struct {
	Type       string            `json:"type"`
	BaseURL    string            `json:"baseUrl"`
	APIKey     string            `json:"apiKey"`
	Headers    map[string]string `json:"headers"`
	OpenAIMode string            `json:"openaiMode"`
	// ContextWindow and ContextWindowBufferTokens are nil when unset; a
	// set 0 is a value (a buffer of 0 tokens), never "unset".
	ContextWindow             *int   `json:"contextWindow"`
	ContextWindowBufferTokens *int   `json:"contextWindowBufferTokens"`
	Tokenizer                 string `json:"tokenizer"`
	ToolChoice                string `json:"toolChoice"`
	// CacheStrategy "none" turns Anthropic prompt caching off for the
	// provider's targets; "full" (or absent) leaves the caching option.
	CacheStrategy string           `json:"cacheStrategy"`
	Models        map[string]Model `json:"models"`
	ScenarioFile  string           `json:"scenarioFile"`
	// Warnings lists non-fatal remarks about the entry (a missing type).
	Warnings []string `json:"-"`
}

// Model is one providers.NAME.models.MODEL entry.
type Model struct {
	// ContextWindow and ContextWindowBufferTokens are nil when unset.
	ContextWindow             *int   `json:"contextWindow"`
	ContextWindowBufferTokens *int   `json:"contextWindowBufferTokens"`
	Tokenizer                 string `json:"tokenizer"`
	ToolChoice                string `json:"toolChoice"`
	Reasoning                 any    `json:"reasoning"`
	// Overrides maps temperature, topP, topK and repeatPenalty (also
	// top_p, top_k, repeat_penalty) to a forced value, or nil: not sent.
	Overrides map[string]any `json:"overrides"`
}

// DefaultContextWindow is a model's context window in tokens when neither
// its provider entry nor its model entry gives one.
const DefaultContextWindow = 131072

// DefaultBufferTokens is the context window's safety buffer when neither
// defaults.contextWindowBufferTokens nor an entry gives one.
const DefaultBufferTokens = 8192

// Window returns the context window, its buffer and the tokenizer of model
// on the provider p: the model's settings beat the provider's, which beat
// DefaultContextWindow and buffer (the caller's default); a setting is
// taken when present, whatever its value (0 included).
func (p Provider) Window(model string, buffer int) (window, buf int, tokenizer string) {
	window, buf, tokenizer = DefaultContextWindow, buffer, p.Tokenizer
	if p.ContextWindow != nil {
		window = *p.ContextWindow
	}
	if p.ContextWindowBufferTokens != nil {
		buf = *p.ContextWindowBufferTokens
	}
	mc, ok := p.Models[model]
	if !ok {
		return window, buf, salveTokenizer(tokenizer)
	}
	if mc.ContextWindow != nil {
		window = *mc.ContextWindow
	}
	if mc.ContextWindowBufferTokens != nil {
		buf = *mc.ContextWindowBufferTokens
	}
	if mc.Tokenizer != "" {
		tokenizer = mc.Tokenizer
	}
	return window, buf, salveTokenizer(tokenizer)
}

// salveTokenizer is "approx" for the original's tokenizers that salve
// cannot count exactly (the tokenizer rows of Differences), else spec.
func salveTokenizer(spec string) string {
	for _, d := range Differences {
		if d.Value != "" && strings.HasSuffix(d.Key, ".tokenizer") {
			if ok, err := path.Match(d.Value, strings.ToLower(strings.TrimSpace(spec))); err == nil && ok {
				return "approx"
			}
		}
	}
	return spec
}

// ModelOverride is one per-model parameter override.
type ModelOverride struct {
	// Unset is true when the override is null: the parameter is not sent.
	Unset bool
	Value float64
}

// ParsedOverrides returns the model's overrides by canonical key (temperature,
// topP, topK, repeatPenalty).
func (m Model) ParsedOverrides() (map[string]ModelOverride, error) {
	aliases := map[string]string{"top_p": "topP", "top_k": "topK", "repeat_penalty": "repeatPenalty",
		"temperature": "temperature", "topP": "topP", "topK": "topK", "repeatPenalty": "repeatPenalty"}
	out := map[string]ModelOverride{}
	for k, v := range m.Overrides {
		key, ok := aliases[k]
		if !ok {
			continue
		}
		if v == nil {
			out[key] = ModelOverride{Unset: true}
			continue
		}
		f, err := number(v)
		if err != nil {
			return nil, fmt.Errorf("%w: override %s: %v", ErrConfig, k, err)
		}
		out[key] = ModelOverride{Value: f}
	}
	return out, nil
}

// ProviderEntry resolves providers.NAME: checks its variables, decodes it
// and settles its type (docs/contracts/ai-agent-cli.md §9.4). A configured
// entry always wins; with none, the well-known providers openai, anthropic,
// openrouter, ollama and google come from the environment (OPENAI_API_KEY
// and OPENAI_BASE_URL, ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL,
// OPENROUTER_API_KEY, OLLAMA_HOST, GOOGLE_API_KEY or GEMINI_API_KEY; the
// layers' env files count). A missing
// entry or an unknown type is an error wrapping ErrConfig.
func (c *Config) ProviderEntry(name string) (Provider, error) {
	var p Provider
	if !c.Has("providers", name) {
		if env, ok := c.providerFromEnv(name); ok {
			return env, nil
		}
		if ep, ok := envProviderNamed(name); ok {
			return p, fmt.Errorf("%w: provider %q is not configured in providers, and %s is not set", ErrConfig, name, ep.requiredVar())
		}
		return p, fmt.Errorf("%w: provider %q is not configured in providers", ErrConfig, name)
	}
	if err := c.Check("providers", name); err != nil {
		return p, err
	}
	if err := c.Decode(&p, "providers", name); err != nil {
		return p, err
	}
	if p.Type == "" {
		if !providerTypes[name] {
			return p, fmt.Errorf("%w: provider %q has no type", ErrConfig, name)
		}
		p.Type = name
		p.Warnings = append(p.Warnings, fmt.Sprintf("provider %q has no type; using %q", name, name))
	}
	if !providerTypes[p.Type] {
		return p, fmt.Errorf("%w: provider %q has unsupported type %q", ErrConfig, name, p.Type)
	}
	if p.CacheStrategy != "" && p.CacheStrategy != "full" && p.CacheStrategy != "none" {
		return p, fmt.Errorf("%w: providers.%s.cacheStrategy must be full or none, got %q", ErrConfig, name, p.CacheStrategy)
	}
	if err := checkWindow("providers."+name, p.ContextWindow, p.ContextWindowBufferTokens); err != nil {
		return p, err
	}
	for m, mc := range p.Models {
		if err := checkWindow("providers."+name+".models."+m, mc.ContextWindow, mc.ContextWindowBufferTokens); err != nil {
			return p, err
		}
	}
	return p, nil
}

// checkWindow validates the context window settings of one level: a
// window of at least 1 token and a buffer of at least 0, when set.
func checkWindow(entry string, window, buffer *int) error {
	if window != nil && *window < 1 {
		return fmt.Errorf("%w: %s.contextWindow must be at least 1, got %d", ErrConfig, entry, *window)
	}
	if buffer != nil && *buffer < 0 {
		return fmt.Errorf("%w: %s.contextWindowBufferTokens must be at least 0, got %d", ErrConfig, entry, *buffer)
	}
	return nil
}

// SplitModel splits "provider/model" at the first "/"
// (docs/contracts/ai-agent-cli.md §4).
func SplitModel(s string) (provider, model string, err error) {
	provider, model, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok || provider == "" || model == "" {
		return "", "", fmt.Errorf("%w: model %q is not provider/model", ErrConfig, s)
	}
	return provider, model, nil
}

// Defaults returns the config's defaults object (values as decoded JSON).
func (c *Config) Defaults() (map[string]any, error) {
	if err := c.Check("defaults"); err != nil {
		return nil, err
	}
	m, _ := c.Raw("defaults").(map[string]any)
	out := map[string]any{}
	for k, v := range m {
		if _, known := settingTable[canonicalKey(k)]; known {
			out[k] = v
		}
	}
	return out, nil
}

// StringAt returns the string at path after checking its variables, or "".
func (c *Config) StringAt(path ...string) (string, error) {
	if err := c.Check(path...); err != nil {
		return "", err
	}
	s, _ := c.Raw(path...).(string)
	return s, nil
}

// RawJSON returns the entry at path as JSON, or nil when absent.
func (c *Config) RawJSON(path ...string) (json.RawMessage, error) {
	if !c.Has(path...) {
		return nil, nil
	}
	if err := c.Check(path...); err != nil {
		return nil, err
	}
	b, err := json.Marshal(c.Raw(path...))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrConfig, strings.Join(path, "."), err)
	}
	return b, nil
}
