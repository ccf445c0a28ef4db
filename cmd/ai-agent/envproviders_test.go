package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// TestModelsFromEnvironment runs `ai-agent --models PROVIDER/MODEL` with no
// config file, the provider coming from its environment variables, against
// a local server speaking that provider's wire API.
func TestModelsFromEnvironment(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "agent__final_report",
			Arguments: `{"report_format":"pipe","report_content":"from ` + string(r.Wire) + `"}`}}}
	})
	tests := []struct {
		name   string
		env    map[string]string
		model  string
		wire   llmtest.Wire
		header string
		value  string
	}{
		{"openai", map[string]string{"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": srv.OpenAIBaseURL()}, "openai/gpt-4o",
			llmtest.OpenAI, "Authorization", "Bearer sk-test"},
		{"anthropic", map[string]string{"ANTHROPIC_API_KEY": "ak-test", "ANTHROPIC_BASE_URL": srv.URL}, "anthropic/claude-x",
			llmtest.Anthropic, "X-Api-Key", "ak-test"},
		{"openrouter", map[string]string{"OPENROUTER_API_KEY": "or-test", "OPENROUTER_BASE_URL": srv.OpenAIBaseURL()}, "openrouter/meta/llama",
			llmtest.OpenAI, "Authorization", "Bearer or-test"},
		{"ollama", map[string]string{"OLLAMA_HOST": strings.TrimPrefix(srv.URL, "http://")}, "ollama/qwen3",
			llmtest.Ollama, "", ""},
		{"google", map[string]string{"GEMINI_API_KEY": "gk-test", "GOOGLE_GEMINI_BASE_URL": srv.URL}, "google/gemini-2.5-flash",
			llmtest.Gemini, "X-Goog-Api-Key", "gk-test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			t.Setenv("HOME", filepath.Join(dir, "home"))
			for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
				"OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "OLLAMA_HOST", "GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"} {
				t.Setenv(k, "")
				os.Unsetenv(k)
			}
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			before := len(srv.Requests())
			var out, errOut bytes.Buffer
			code := runWith(context.Background(), defaultDeps(), []string{"--models", tt.model, "--tooling-transport", "native",
				"--billing-file", "", "--sessions-dir", "", "sys", "hello"}, strings.NewReader(""), &out, &errOut)
			if code != exitOK || strings.TrimSpace(out.String()) != "from "+string(tt.wire) {
				t.Fatalf("exit %d, stdout %q, stderr %s", code, out.String(), errOut.String())
			}
			reqs := srv.Requests()[before:]
			if len(reqs) != 1 || reqs[0].Wire != tt.wire {
				t.Fatalf("requests %+v", reqs)
			}
			if tt.header != "" && reqs[0].Header.Get(tt.header) != tt.value {
				t.Fatalf("%s = %q, want %q", tt.header, reqs[0].Header.Get(tt.header), tt.value)
			}
		})
	}
	t.Run("missing key", func(t *testing.T) {
		dir := t.TempDir()
		t.Chdir(dir)
		t.Setenv("HOME", filepath.Join(dir, "home"))
		t.Setenv("OPENAI_API_KEY", "")
		os.Unsetenv("OPENAI_API_KEY")
		var out, errOut bytes.Buffer
		code := runWith(context.Background(), defaultDeps(), []string{"--models", "openai/gpt-4o", "sys", "hello"}, strings.NewReader(""), &out, &errOut)
		if code != exitConfig || !strings.Contains(errOut.String(), "OPENAI_API_KEY is not set") {
			t.Fatalf("exit %d, stderr %s", code, errOut.String())
		}
	})
}

// TestZeroSettingsAreNotUnset: numeric settings set to 0 are used or
// refused with a clear error, never silently replaced by the default.
func TestZeroSettingsAreNotUnset(t *testing.T) {
	tests := []struct {
		name   string
		config string
		args   []string
		code   int
		stderr string
	}{
		{"defaults buffer 0 is used", `"defaults":{"contextWindowBufferTokens":0}`, nil, exitOK, ""},
		{"defaults buffer invalid", `"defaults":{"contextWindowBufferTokens":"lots"}`, nil, exitConfig, "contextWindowBufferTokens"},
		{"llmTimeout 0", `"defaults":{"llmTimeout":0}`, nil, exitConfig, "llmTimeout must be greater than 0"},
		{"toolTimeout 0 flag", ``, []string{"--tool-timeout-ms", "0"}, exitConfig, "toolTimeout must be greater than 0"},
		{"provider window 0", `"providers":{"p":{"type":"openai-compatible","baseUrl":"http://x","contextWindow":0}}`, nil, exitConfig, "contextWindow must be at least 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := `{"providers":{"p":{"type":"openai-compatible","baseUrl":"http://x"}}` + map[bool]string{true: "", false: "," + tt.config}[tt.config == ""] + `}`
			if strings.HasPrefix(tt.config, `"providers"`) {
				cfg = `{` + tt.config + `}`
			}
			e := newEnv(t, cfg)
			code, _, stderr := e.run(t, "", append([]string{"--models", "p/m"}, append(tt.args, "sys", "user")...)...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", code, tt.code, stderr, tt.stderr)
			}
		})
	}
}
