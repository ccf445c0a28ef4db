package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// TestOneConfigSameRequests: one .ai-agent.json, with defaults and models
// that carry their own overrides, makes the ai-agent binary and the heal's
// llm tier (salve fix --fixers llm) send the same temperature, top_p and
// max_tokens, both against a local OpenAI-compatible server. Both resolve
// their targets through internal/agent/config; if either stopped applying
// the defaults or a model's overrides, its request would carry its own
// built-in value instead.
func TestOneConfigSameRequests(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if strings.Contains(string(r.Body), "Fix Agent") {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "agent__final_report",
				Arguments: `{"report_format":"json","content_json":{"patched_content":"package main\n\nfunc main() {}\n",` +
					`"fix_reason":"drop the unused import","confidence_score":0.9}}`}}}
		}
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "agent__final_report",
			Arguments: `{"report_format":"pipe","report_content":"done"}`}}}
	})

	dir := t.TempDir()
	cfg := filepath.Join(dir, "agent.json")
	if err := os.WriteFile(cfg, []byte(`{"defaults": {"temperature": 0.3, "maxOutputTokens": 777},
  "providers": {"local": {"type": "openai-compatible", "baseUrl": "`+srv.OpenAIBaseURL()+`",
  "models": {
    "tuned": {"overrides": {"temperature": 0.7, "top_p": 0.5}},
    "muted": {"overrides": {"temperature": null}}}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	aiAgent := filepath.Join(t.TempDir(), "ai-agent")
	build := exec.Command("go", "build", "-o", aiAgent, "github.com/salve-dev/salve/cmd/ai-agent")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ai-agent: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home")
	t.Chdir(dir)
	t.Setenv("HOME", home)
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "OPENROUTER_API_KEY"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}

	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nimport \"os\"\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bugs, _ := json.Marshal([]contract.BugReport{{FilePath: "main.go", LineNumber: 3, ErrorType: contract.ErrImport,
		Message: `"os" imported and not used`}})

	callers := []struct {
		name string
		run  func(t *testing.T, model string)
	}{
		{"ai-agent", func(t *testing.T, model string) {
			cmd := exec.Command(aiAgent, "--config", cfg, "--models", model, "--tooling-transport", "native",
				"--billing-file", "", "--sessions-dir", "", "sys", "hello")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("ai-agent: %v\n%s", err, out)
			}
		}},
		{"salve fix --fixers llm", func(t *testing.T, model string) {
			code, out, errOut := runSalve(t, "fix", "--workspace", ws, "--fixers", "llm", "--models", model,
				"--config", cfg, "--bug", string(bugs))
			if code != exitOK || !strings.Contains(out, `"fixer": "llm"`) {
				t.Fatalf("salve fix: exit %d\n%s\n%s", code, out, errOut)
			}
		}},
	}
	// want maps a request field to its value; "" means the field is absent.
	for _, tc := range []struct {
		model string
		want  map[string]string
	}{
		{"local/plain", map[string]string{"temperature": "0.3", "top_p": "", "max_tokens": "777"}},
		{"local/tuned", map[string]string{"temperature": "0.7", "top_p": "0.5", "max_tokens": "777"}},
		{"local/muted", map[string]string{"temperature": "", "top_p": "", "max_tokens": "777"}},
	} {
		for _, c := range callers {
			t.Run(tc.model+"/"+c.name, func(t *testing.T) {
				before := len(srv.Requests())
				c.run(t, tc.model)
				reqs := srv.Requests()[before:]
				if len(reqs) == 0 {
					t.Fatal("no request reached the server")
				}
				for _, r := range reqs {
					body := r.JSON()
					for field, want := range tc.want {
						got := ""
						if v, ok := body[field]; ok {
							b, _ := json.Marshal(v)
							got = string(b)
						}
						if got != want {
							t.Errorf("request to %s: %s = %q, want %q", r.Model, field, got, want)
						}
					}
				}
			})
		}
	}
}
