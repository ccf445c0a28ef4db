package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestProviderFromEnvironment(t *testing.T) {
	tests := []struct {
		name     string
		config   string
		envFile  string
		env      map[string]string
		provider string
		want     Provider
		err      string
	}{
		{name: "openai key", env: map[string]string{"OPENAI_API_KEY": "sk-1"}, provider: "openai",
			want: Provider{Type: "openai", APIKey: "sk-1"}},
		{name: "openai base url", env: map[string]string{"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, provider: "openai",
			want: Provider{Type: "openai", APIKey: "sk-1", BaseURL: "http://127.0.0.1:9/v1"}},
		{name: "anthropic sdk base url", env: map[string]string{"ANTHROPIC_API_KEY": "a", "ANTHROPIC_BASE_URL": "http://h:1/"}, provider: "anthropic",
			want: Provider{Type: "anthropic", APIKey: "a", BaseURL: "http://h:1/v1"}},
		{name: "anthropic v1 base url", env: map[string]string{"ANTHROPIC_API_KEY": "a", "ANTHROPIC_BASE_URL": "http://h:1/v1"}, provider: "anthropic",
			want: Provider{Type: "anthropic", APIKey: "a", BaseURL: "http://h:1/v1"}},
		{name: "openrouter", env: map[string]string{"OPENROUTER_API_KEY": "or"}, provider: "openrouter",
			want: Provider{Type: "openrouter", APIKey: "or"}},
		{name: "ollama host", env: map[string]string{"OLLAMA_HOST": "127.0.0.1"}, provider: "ollama",
			want: Provider{Type: "ollama", BaseURL: "http://127.0.0.1:11434/api"}},
		{name: "ollama host port", env: map[string]string{"OLLAMA_HOST": "gpu:8080"}, provider: "ollama",
			want: Provider{Type: "ollama", BaseURL: "http://gpu:8080/api"}},
		{name: "ollama url", env: map[string]string{"OLLAMA_HOST": "https://o.example/"}, provider: "ollama",
			want: Provider{Type: "ollama", BaseURL: "https://o.example/api"}},
		{name: "google key", env: map[string]string{"GEMINI_API_KEY": "g2"}, provider: "google",
			want: Provider{Type: "google", APIKey: "g2"}},
		{name: "google key first", env: map[string]string{"GEMINI_API_KEY": "g2", "GOOGLE_API_KEY": "g1", "GOOGLE_GEMINI_BASE_URL": "http://h:1/"}, provider: "google",
			want: Provider{Type: "google", APIKey: "g1", BaseURL: "http://h:1/v1beta"}},
		{name: "google versioned base url", env: map[string]string{"GOOGLE_API_KEY": " g1 ", "GEMINI_API_KEY": "", "GOOGLE_GEMINI_BASE_URL": "http://h:1/v1"}, provider: "google",
			want: Provider{Type: "google", APIKey: "g1", BaseURL: "http://h:1/v1"}},
		{name: "key from an env file", envFile: "OPENAI_API_KEY=from-file\n", provider: "openai",
			want: Provider{Type: "openai", APIKey: "from-file"}},
		{name: "configured provider wins", config: `{"providers":{"openai":{"type":"openai-compatible","baseUrl":"http://mine/v1","apiKey":"cfg"}}}`,
			env: map[string]string{"OPENAI_API_KEY": "sk-env"}, provider: "openai",
			want: Provider{Type: "openai-compatible", APIKey: "cfg", BaseURL: "http://mine/v1"}},
		{name: "no key", env: map[string]string{"OPENAI_BASE_URL": "http://x/v1"}, provider: "openai", err: "OPENAI_API_KEY"},
		{name: "empty key", env: map[string]string{"ANTHROPIC_API_KEY": " "}, provider: "anthropic", err: "ANTHROPIC_API_KEY"},
		{name: "no ollama host", provider: "ollama", err: "OLLAMA_HOST is not set"},
		{name: "no google key", env: map[string]string{"GEMINI_API_KEY": " "}, provider: "google", err: "GOOGLE_API_KEY or GEMINI_API_KEY is not set"},
		{name: "unknown provider", env: map[string]string{"OPENAI_API_KEY": "k"}, provider: "mistral", err: `provider "mistral" is not configured`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.config != "" {
				write(t, filepath.Join(dir, ".ai-agent.json"), tt.config)
			}
			if tt.envFile != "" {
				write(t, filepath.Join(dir, ".ai-agent.env"), tt.envFile)
			}
			c, err := Load(Locations{Cwd: dir, SystemDir: filepath.Join(dir, "none"), Getenv: envOf(tt.env)})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.ProviderEntry(tt.provider)
			if tt.err != "" {
				if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Type != tt.want.Type || got.APIKey != tt.want.APIKey || got.BaseURL != tt.want.BaseURL {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestZeroIsAValue: a 0 set at the provider or model level is kept as 0,
// an absent one is nil, and values that cannot be honoured are errors.
func TestZeroIsAValue(t *testing.T) {
	tests := []struct {
		name   string
		config string
		check  func(Provider) bool
		err    string
	}{
		{"provider buffer 0", `{"providers":{"p":{"type":"openai","contextWindowBufferTokens":0}}}`,
			func(p Provider) bool {
				return p.ContextWindowBufferTokens != nil && *p.ContextWindowBufferTokens == 0 && p.ContextWindow == nil
			}, ""},
		{"model buffer 0", `{"providers":{"p":{"type":"openai","contextWindowBufferTokens":4096,"models":{"m":{"contextWindowBufferTokens":0,"contextWindow":1000}}}}}`,
			func(p Provider) bool {
				m := p.Models["m"]
				return m.ContextWindowBufferTokens != nil && *m.ContextWindowBufferTokens == 0 && *m.ContextWindow == 1000
			}, ""},
		{"absent", `{"providers":{"p":{"type":"openai","models":{"m":{}}}}}`,
			func(p Provider) bool {
				return p.ContextWindowBufferTokens == nil && p.Models["m"].ContextWindowBufferTokens == nil
			}, ""},
		{"window 0", `{"providers":{"p":{"type":"openai","contextWindow":0}}}`, nil, "providers.p.contextWindow must be at least 1"},
		{"model window 0", `{"providers":{"p":{"type":"openai","models":{"m":{"contextWindow":0}}}}}`, nil, "providers.p.models.m.contextWindow must be at least 1"},
		{"negative buffer", `{"providers":{"p":{"type":"openai","contextWindowBufferTokens":-1}}}`, nil, "must be at least 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, ".ai-agent.json"), tt.config)
			c, err := Load(Locations{Cwd: dir, SystemDir: filepath.Join(dir, "none"), Getenv: noEnv(nil)})
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.ProviderEntry("p")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !tt.check(p) {
				t.Fatalf("got %+v, %v", p, err)
			}
		})
	}
}

// TestDefaultModels lists the default target of each well-known provider
// the environment configures, in the table's order; openrouter has none.
func TestDefaultModels(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{nil, ""},
		{map[string]string{"OPENAI_API_KEY": "k"}, "openai/gpt-4o-mini"},
		{map[string]string{"OLLAMA_HOST": "h", "ANTHROPIC_API_KEY": "a", "OPENROUTER_API_KEY": "o"},
			"anthropic/claude-3-5-haiku-latest,ollama/qwen2.5-coder"},
		{map[string]string{"OPENAI_API_KEY": " ", "OPENAI_BASE_URL": "http://h/v1"}, ""},
	}
	for _, tt := range tests {
		cfg, err := Load(Locations{Getenv: envOf(tt.env), SystemDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(cfg.DefaultModels(), ","); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.env, got, tt.want)
		}
	}
}
