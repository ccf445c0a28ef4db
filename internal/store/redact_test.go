package store_test

import (
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/store"
)

// FuzzRedactRequest checks that no value given to a secret-looking flag or
// variable survives redaction, and that the caller's request is untouched.
func FuzzRedactRequest(f *testing.F) {
	f.Add("aider\x00--api-key\x00openai=sk-1\x00a.py", "OPENAI_API_KEY", "sk-2")
	f.Add("aider\x00--openai-api-key=sk-3\x00--model\x00m", "PATH", "/bin")
	f.Add("aider\x00--token", "GITHUB_TOKEN", "ghp")
	f.Fuzz(func(t *testing.T, joined, envKey, envVal string) {
		cmd := strings.Split(joined, "\x00")
		orig := append([]string(nil), cmd...)
		req := contract.ToolRunRequestV1{Cmd: cmd, Env: map[string]string{envKey: envVal}}
		got := store.RedactRequest(req)
		if len(got.Cmd) != len(cmd) {
			t.Fatalf("length changed: %q -> %q", cmd, got.Cmd)
		}
		for i := range cmd {
			if cmd[i] != orig[i] {
				t.Fatal("the caller's command was modified")
			}
		}
		for i := 1; i < len(cmd); i++ {
			name, _, hasValue := strings.Cut(cmd[i], "=")
			// An argument taken as the value of the flag before it is not
			// a flag itself.
			if !strings.HasPrefix(name, "-") || !store.IsSecretName(name) || got.Cmd[i] == store.Redacted {
				continue
			}
			if hasValue && got.Cmd[i] != name+"="+store.Redacted {
				t.Fatalf("%q kept its value: %q", cmd[i], got.Cmd[i])
			}
			if !hasValue && i+1 < len(cmd) && got.Cmd[i+1] != store.Redacted {
				t.Fatalf("value after %q kept: %q", cmd[i], got.Cmd[i+1])
			}
		}
		if store.IsSecretName(envKey) && got.Env[envKey] != store.Redacted {
			t.Fatalf("env %s kept its value", envKey)
		}
		if req.Env[envKey] != envVal {
			t.Fatal("the caller's env was modified")
		}
	})
}

// TestRedactSetEnv checks aider's --set-env VAR=VALUE: a secret variable
// keeps its name and loses its value, in both spellings of the flag.
func TestRedactSetEnv(t *testing.T) {
	for _, tc := range []struct {
		cmd, want []string
	}{
		{[]string{"aider", "--set-env", "OPENAI_API_KEY=sk-1", "a.py"}, []string{"aider", "--set-env", "OPENAI_API_KEY=" + store.Redacted, "a.py"}},
		{[]string{"aider", "--set-env=GITHUB_TOKEN=ghp-2"}, []string{"aider", "--set-env=GITHUB_TOKEN=" + store.Redacted}},
		{[]string{"aider", "--set-env", "AIDER_DARK_MODE=1", "a.py"}, []string{"aider", "--set-env", "AIDER_DARK_MODE=1", "a.py"}},
		{[]string{"aider", "--set-env"}, []string{"aider", "--set-env"}},
	} {
		got := store.RedactRequest(contract.ToolRunRequestV1{Cmd: tc.cmd}).Cmd
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("RedactRequest(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}
