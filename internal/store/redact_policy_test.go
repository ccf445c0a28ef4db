package store_test

import (
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/store"
)

// TestRedactFollowsSecretPolicy: the store redacts what the one secret rule
// (internal/secret) calls a secret, and nothing else: a commit's author is
// kept, a personal access token and a passphrase are not.
func TestRedactFollowsSecretPolicy(t *testing.T) {
	req := store.RedactRequest(contract.ToolRunRequestV1{
		Env: map[string]string{
			"GIT_AUTHOR_NAME": "Jane Doe", "GIT_AUTHOR_EMAIL": "jane@example.com", "GIT_COMMITTER_NAME": "CI Bot",
			"SSH_AUTH_SOCK": "/run/agent.sock", "MAX_TOKENS": "4096",
			"GITHUB_PAT": "ghp_pat-value", "GPG_PASSPHRASE": "a passphrase", "OPENAI_API_KEY": "sk-1",
		},
		Cmd: []string{"aider", "--max-chat-history-tokens", "2048", "--anthropic-api-key", "sk-ant-2"},
	})
	for k, want := range map[string]string{
		"GIT_AUTHOR_NAME": "Jane Doe", "GIT_AUTHOR_EMAIL": "jane@example.com", "GIT_COMMITTER_NAME": "CI Bot",
		"SSH_AUTH_SOCK": "/run/agent.sock", "MAX_TOKENS": "4096",
		"GITHUB_PAT": store.Redacted, "GPG_PASSPHRASE": store.Redacted, "OPENAI_API_KEY": store.Redacted,
	} {
		if got := req.Env[k]; got != want {
			t.Errorf("env %s = %q, want %q", k, got, want)
		}
	}
	if req.Cmd[2] != "2048" || req.Cmd[4] != store.Redacted {
		t.Errorf("cmd %q", req.Cmd)
	}
	m := store.RedactMap(map[string]any{"GIT_AUTHOR_NAME": "Jane Doe", "nested": map[string]any{"accessToken": "t-123456"}})
	if m["GIT_AUTHOR_NAME"] != "Jane Doe" || m["nested"].(map[string]any)["accessToken"] != store.Redacted {
		t.Errorf("RedactMap %v", m)
	}
}
