package guidetest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// world is what a reader of one guide page has: a git repository whose
// build fails on one unused import (the rules tier fixes it), an origin to
// push to, the files the examples name, an .ai-agent.json, and local
// stand-ins for every network peer the examples reach.
type world struct {
	root string // holds repo, origin.git, home…
	repo string // the working directory of every block
	env  []string
	llm  *llmtest.Server
}

// brokenProject is a Go module whose build fails on an unused import.
var brokenProject = map[string]string{
	"go.mod":  "module example.com/app\n\ngo 1.21\n",
	"main.go": "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() { fmt.Println(\"hello\") }\n",
}

// worldFiles are the other files the guide's examples name.
var worldFiles = map[string]string{
	"Makefile":   "check:\n\tgo build ./... && go vet ./...\n",
	"README.md":  "# app\n\nPrints hello.\n",
	"system.md":  "You are terse.\n",
	"build.log":  "# example.com/app\n./main.go:5:2: \"os\" imported and not used\n",
	"src/app.py": "print('hello')\n",
	// fix.txt is a message for the aider stand-in: one edit in scope.
	"fix.txt": "write src/app.py print('hello, world')\n",
	// review.ai is the .ai file the ai-agent page shows.
	"review.ai": "---\nmodels: [openai/gpt-4o-mini, anthropic/claude-haiku-4]\ntools: [fs]\nmaxTurns: 8\noutput: { format: markdown }\n---\nYou review code changes. Be specific and brief.\n",
}

// finalRE finds the session's final-report tag in a request, with its
// nonce and format, so the stand-in model can answer it.
var finalRE = regexp.MustCompile(`<ai-agent-([0-9a-f]{8})-FINAL tool="agent__final_report" format="([^"]+)"`)

// newWorld builds a world under a temporary folder, with the programs of
// bin first on PATH.
func newWorld(t *testing.T, bin string) *world {
	t.Helper()
	w := &world{root: t.TempDir()}
	w.repo = filepath.Join(w.root, "repo")
	w.llm = llmtest.NewServer()
	t.Cleanup(w.llm.Close)
	w.llm.Handle(func(r llmtest.Request) llmtest.Reply {
		if m := finalRE.FindStringSubmatch(allText(r.JSON())); m != nil {
			return llmtest.Reply{Text: "<ai-agent-" + m[1] + "-FINAL tool=\"agent__final_report\" format=\"" + m[2] + "\">Hello from the stand-in model.</ai-agent-" + m[1] + "-FINAL>"}
		}
		return llmtest.Reply{Text: "Hello from the stand-in model."}
	})
	forge := forgetest.New("ghs-guide-token")
	t.Cleanup(forge.Close)
	forge.AddRepo("github", "acme/app")

	home := filepath.Join(w.root, "home")
	goEnv := func(k string) string {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		return strings.TrimSpace(string(out))
	}
	w.env = []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home, "LANG=C.UTF-8", "TZ=UTC",
		"XDG_DATA_HOME=" + filepath.Join(w.root, "data"), "XDG_STATE_HOME=" + filepath.Join(w.root, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		// The Go of the examples' builds reuses the machine's caches and
		// never reaches the network.
		"GOCACHE=" + goEnv("GOCACHE"), "GOMODCACHE=" + goEnv("GOMODCACHE"), "GOPATH=" + goEnv("GOPATH"),
		"GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-mod=mod",
		"GIT_AUTHOR_NAME=Guide Reader", "GIT_AUTHOR_EMAIL=reader@example.com",
		"GIT_COMMITTER_NAME=Guide Reader", "GIT_COMMITTER_EMAIL=reader@example.com",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"SALVE_REGISTRY_DB=" + filepath.Join(w.root, "registry.db"),
		"SALVE_GIT_AGENT=" + filepath.Join(bin, "git_agent"),
		// The providers the guide uses from the environment alone.
		"OPENAI_API_KEY=sk-guide", "OPENAI_BASE_URL=" + w.llm.OpenAIBaseURL(),
		"ANTHROPIC_API_KEY=ak-guide", "ANTHROPIC_BASE_URL=" + w.llm.URL,
		"OPENROUTER_API_KEY=or-guide", "OPENROUTER_BASE_URL=" + w.llm.OpenAIBaseURL(),
		"OLLAMA_HOST=" + strings.TrimPrefix(w.llm.URL, "http://"),
		// A GitHub runner's variables, for --pr.
		"GITHUB_TOKEN=ghs-guide-token", "GITHUB_REPOSITORY=acme/app", "GITHUB_API_URL=" + forge.GitHubAPI(),
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}

	// The user's repository, pushed to a local origin.
	origin := filepath.Join(w.root, "origin.git")
	w.git(t, w.root, "init", "-q", "--bare", origin)
	files := map[string]string{}
	for k, v := range brokenProject {
		files[k] = v
	}
	for k, v := range worldFiles {
		files[k] = v
	}
	files[".ai-agent.json"] = w.aiAgentConfig(t, bin)
	w.newRepo(t, w.repo, files)
	w.git(t, w.repo, "remote", "add", "origin", origin)
	w.git(t, w.repo, "push", "-q", "origin", "main")
	// Two more repositories the examples name, kept out of the first.
	w.newRepo(t, filepath.Join(w.repo, "my-project"), brokenProject)
	w.newRepo(t, filepath.Join(w.repo, "path", "to", "repo"), map[string]string{"README.md": "another repository\n"})
	exclude := filepath.Join(w.repo, ".git", "info", "exclude")
	if err := os.WriteFile(exclude, []byte("/my-project/\n/path/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// aiAgentConfig is the repository's .ai-agent.json: the guide's `local`
// OpenAI-compatible provider at the stand-in model, and the MCP server
// `fs` that the examples name, here the test MCP server (the guide's
// npx command would need the network).
func (w *world) aiAgentConfig(t *testing.T, bin string) string {
	t.Helper()
	cfg := map[string]any{
		"providers": map[string]any{
			"local": map[string]any{
				"type": "openai-compatible", "baseUrl": w.llm.OpenAIBaseURL(), "apiKey": "${LOCAL_KEY}",
				"headers": map[string]string{"X-Team": "platform"},
				"models":  map[string]any{"qwen3-coder": map[string]any{"contextWindow": 65536, "contextWindowBufferTokens": 2048}},
			},
		},
		"mcpServers": map[string]any{
			"fs": map[string]any{"command": filepath.Join(bin, "mcptest")},
		},
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// newRepo makes a git repository at dir holding files, committed on main.
func (w *world) newRepo(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.git(t, dir, "init", "-q", "-b", "main")
	w.git(t, dir, "add", "-A")
	w.git(t, dir, "commit", "-q", "-m", "the project")
}

func (w *world) git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, w.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// allText joins every string of a decoded JSON value: a request's
// prompts, whatever the wire's layout.
func allText(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x)
			b.WriteByte('\n')
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}
