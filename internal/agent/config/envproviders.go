package config

import (
	"net"
	"strings"
)

// envProvider says how a well-known provider is found in the environment
// when no config layer configures it.
type envProvider struct {
	// name is the provider's name and type.
	name string
	// keyVars hold the API key, the first set one winning; none means the
	// provider needs no key.
	keyVars []string
	// urlVar names the variable that holds the base URL.
	urlVar string
	// baseURL normalises the urlVar value; nil keeps it.
	baseURL func(string) string
	// model is the model a caller may use when it names none (the heal's
	// llm tier does); "" means there is none.
	model string
}

// envProviders are the providers that --models finds in the environment
// with no config file, the one table of the well-known providers'
// defaults, in the order DefaultModels lists them.
var envProviders = []envProvider{
	{name: "openai", keyVars: []string{"OPENAI_API_KEY"}, urlVar: "OPENAI_BASE_URL", model: "gpt-4o-mini"},
	{name: "anthropic", keyVars: []string{"ANTHROPIC_API_KEY"}, urlVar: "ANTHROPIC_BASE_URL", baseURL: anthropicBase, model: "claude-3-5-haiku-latest"},
	{name: "openrouter", keyVars: []string{"OPENROUTER_API_KEY"}, urlVar: "OPENROUTER_BASE_URL"},
	{name: "ollama", urlVar: "OLLAMA_HOST", baseURL: ollamaBase, model: "qwen2.5-coder"},
	// The Gemini API's SDKs read GOOGLE_API_KEY first, then GEMINI_API_KEY.
	{name: "google", keyVars: []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}, urlVar: "GOOGLE_GEMINI_BASE_URL", baseURL: geminiBase},
}

// envProviderNamed returns the row of envProviders for name.
func envProviderNamed(name string) (envProvider, bool) {
	for _, ep := range envProviders {
		if ep.name == name {
			return ep, true
		}
	}
	return envProvider{}, false
}

// DefaultModels returns "provider/model" for each well-known provider that
// the environment configures (the layers' env files count) and that has a
// default model, in the order of the table: the targets of a caller that
// was given no model and takes the environment's.
func (c *Config) DefaultModels() []string {
	var out []string
	for _, ep := range envProviders {
		if ep.model == "" {
			continue
		}
		if _, ok := c.providerFromEnv(ep.name); ok {
			out = append(out, ep.name+"/"+ep.model)
		}
	}
	return out
}

// anthropicBase accepts the SDKs' spelling without the version
// (https://api.anthropic.com) as well as salve's (…/v1).
func anthropicBase(s string) string {
	s = strings.TrimRight(s, "/")
	if !strings.HasSuffix(s, "/v1") {
		s += "/v1"
	}
	return s
}

// geminiBase accepts the SDKs' spelling without the API version
// (https://generativelanguage.googleapis.com) as well as a prefix with one
// (…/v1beta, …/v1, …/v1alpha).
func geminiBase(s string) string {
	s = strings.TrimRight(s, "/")
	for _, v := range []string{"/v1beta", "/v1", "/v1alpha"} {
		if strings.HasSuffix(s, v) {
			return s
		}
	}
	return s + "/v1beta"
}

// ollamaBase turns OLLAMA_HOST (host, host:port or a URL) into the API
// prefix.
func ollamaBase(s string) string {
	s = strings.TrimRight(strings.TrimSpace(s), "/")
	if !strings.Contains(s, "://") {
		if _, _, err := net.SplitHostPort(s); err != nil {
			s = net.JoinHostPort(strings.Trim(s, "[]"), "11434")
		}
		s = "http://" + s
	}
	if !strings.HasSuffix(s, "/api") && !strings.HasSuffix(s, "/v1") {
		s += "/api"
	}
	return s
}

// lookupEnv reads a variable from the layers' env files, highest first,
// then the process environment.
func (c *Config) lookupEnv(name string) (string, bool) {
	for _, l := range c.layers {
		if v, ok := l.Env[name]; ok {
			return v, true
		}
	}
	return c.getenv(name)
}

// providerFromEnv builds the entry of a well-known provider from the
// environment, when its variables are set.
func (c *Config) providerFromEnv(name string) (Provider, bool) {
	ep, ok := envProviderNamed(name)
	if !ok {
		return Provider{}, false
	}
	p := Provider{Type: name}
	for _, v := range ep.keyVars {
		if key, ok := c.lookupEnv(v); ok && strings.TrimSpace(key) != "" {
			p.APIKey = strings.TrimSpace(key)
			break
		}
	}
	if len(ep.keyVars) > 0 && p.APIKey == "" {
		return Provider{}, false
	}
	url, hasURL := c.lookupEnv(ep.urlVar)
	url = strings.TrimSpace(url)
	if len(ep.keyVars) == 0 && (!hasURL || url == "") {
		return Provider{}, false
	}
	if url != "" {
		if ep.baseURL != nil {
			url = ep.baseURL(url)
		}
		p.BaseURL = url
	}
	return p, true
}

// requiredVar names the variable a provider needs in the environment.
func (ep envProvider) requiredVar() string {
	if len(ep.keyVars) > 0 {
		return strings.Join(ep.keyVars, " or ")
	}
	return ep.urlVar
}
