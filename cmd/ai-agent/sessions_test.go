package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

func readConv(t *testing.T, path string) []contract.Message {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var conv []contract.Message
	if err := json.Unmarshal(b, &conv); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return conv
}

// TestSaveLoadResume: --save then --load and --resume continue a
// conversation; --resume keeps the turns used and the accounting.
func TestSaveLoadResume(t *testing.T) {
	e := newEnv(t, baseConfig)
	bill := filepath.Join(e.dir, "bill.jsonl")
	sessions := filepath.Join(e.dir, "sessions")
	save := filepath.Join(e.dir, "conv.json")
	all := filepath.Join(e.dir, "all")
	common := []string{"--models", "p/m", "--billing-file", bill, "--sessions-dir", sessions}

	code, _, stderr := e.run(t, "", append(common, "--save", save, "--save-all", all, "first system", "first question")...)
	if code != exitOK {
		t.Fatalf("first run: %d %s", code, stderr)
	}
	conv := readConv(t, save)
	if len(conv) < 3 || conv[0].Role != contract.RoleSystem || conv[1].Content != "first question" {
		t.Fatalf("saved conversation: %+v", conv)
	}
	masters, _ := filepath.Glob(filepath.Join(all, "*", "*__master.json"))
	if len(masters) != 1 || len(readConv(t, masters[0])) != len(conv) {
		t.Fatalf("--save-all master files: %v", masters)
	}
	ids, _ := filepath.Glob(filepath.Join(sessions, "*.json.gz"))
	if len(ids) != 1 {
		t.Fatalf("session files: %v", ids)
	}
	id := strings.TrimSuffix(filepath.Base(ids[0]), ".json.gz")
	if filepath.Base(filepath.Dir(masters[0])) != id {
		t.Fatalf("--save-all dir %s is not the origin id %s", masters[0], id)
	}

	// --load: the saved conversation goes before the new question, under
	// the new system prompt.
	code, _, stderr = e.run(t, "", append(common, "--load", save, "second system", "second question")...)
	if code != exitOK {
		t.Fatalf("--load: %d %s", code, stderr)
	}
	req := e.fake.reqs[len(e.fake.reqs)-1]
	var texts []string
	for _, m := range req.Messages {
		texts = append(texts, m.Role+":"+m.Content)
	}
	joined := strings.Join(texts, "\n")
	if !strings.Contains(joined, "user:first question") || !strings.Contains(joined, "user:second question") ||
		strings.Contains(joined, "first system") || !strings.HasPrefix(texts[0], "system:second system") {
		t.Fatalf("--load request:\n%s", joined)
	}

	// --resume: one turn used of two leaves one; the accounting is carried
	// and the billing file gets only the new entries.
	result := filepath.Join(e.dir, "result.json")
	before := billingLines(t, bill)
	code, _, stderr = e.run(t, "", append(common, "--resume", id, "--max-turns", "2", "--result-json", result, "sys", "third question")...)
	if code != exitOK {
		t.Fatalf("--resume: %d %s", code, stderr)
	}
	var res contract.AIAgentResult
	b, _ := os.ReadFile(result)
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	llmEntries := 0
	for _, a := range res.Accounting {
		if a.Type == contract.AccountingLLM {
			llmEntries++
		}
	}
	if llmEntries != 2 || res.Conversation[1].Content != "first question" {
		t.Fatalf("resumed result: %d llm entries, conversation %+v", llmEntries, res.Conversation)
	}
	if got := billingLines(t, bill) - before; got != len(res.Accounting)/2 {
		t.Fatalf("billing file got %d new lines for %d entries, half of them carried", got, len(res.Accounting))
	}
	ids, _ = filepath.Glob(filepath.Join(sessions, "*.json.gz"))
	if len(ids) != 2 {
		t.Fatalf("the resumed session did not keep its origin id: %v", ids)
	}

	// Turns used count against maxTurns.
	code, _, _ = e.run(t, "", append(common, "--resume", id, "--max-turns", "1", "sys", "again")...)
	if code != exitFailure {
		t.Fatalf("--resume past maxTurns: exit %d, want %d", code, exitFailure)
	}
}

func billingLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

func TestSessionFlagErrors(t *testing.T) {
	e := newEnv(t, baseConfig)
	if err := os.WriteFile(filepath.Join(e.dir, "bad.json"), []byte(`{"not":"a list"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"load and resume", []string{"--load", "x", "--resume", "y"}, "cannot be used together"},
		{"load missing", []string{"--load", "nope.json"}, "does not exist"},
		{"load not a conversation", []string{"--load", "bad.json"}, "failed to load conversation from bad.json"},
		{"resume escapes", []string{"--resume", "../etc/passwd"}, "not a session file, nor a session id"},
		{"resume missing", []string{"--resume", "no-such-id"}, "not found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := e.run(t, "", append([]string{"--models", "p/m", "--sessions-dir", e.dir}, append(tc.args, "s", "u")...)...)
			if code != exitConfig || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %s", code, stderr)
			}
		})
	}
}

// TestPromptIncludes: an --agent file's includes are expanded before its
// frontmatter is read; one escaping its directory is exit 4.
func TestPromptIncludes(t *testing.T) {
	e := newEnv(t, baseConfig)
	files := map[string]string{
		"agents/main.ai":           "---\n${include:parts/models.yaml}\n---\nBe brief. {{include:parts/rules.md}}",
		"agents/parts/models.yaml": "models: p/m",
		"agents/parts/rules.md":    "---\ndescription: dropped\n---\nRULES",
		"agents/bad.ai":            "${include:../outside.md}",
		"outside.md":               "OUT",
	}
	for name, content := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(e.dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr := e.run(t, "", "--agent", "agents/main.ai", "question")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if sys := e.fake.reqs[0].Messages[0].Content; !strings.Contains(sys, "Be brief. RULES") || strings.Contains(sys, "dropped") {
		t.Fatalf("system prompt %q", sys)
	}
	code, _, stderr = e.run(t, "", "--models", "p/m", "--agent", "agents/bad.ai", "question")
	if code != exitConfig || !strings.Contains(stderr, "outside the prompt's directory") {
		t.Fatalf("escaping include: exit %d: %s", code, stderr)
	}
}
