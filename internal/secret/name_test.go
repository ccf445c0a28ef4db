package secret_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/secret"
)

// rowExamples names, for every row of secret.Rules by its first pattern,
// names that the row (and no earlier one) decides. A row without examples
// fails the test, so a new row comes with its cases.
var rowExamples = map[string][]string{
	"GIT_AUTHOR_NAME":        {"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "git_committer_name", "GIT_COMMITTER_DATE"},
	"SSH_AUTH_SOCK":          {"SSH_AUTH_SOCK"},
	"TOKENIZERS_PARALLELISM": {"TOKENIZERS_PARALLELISM", "KEYCHAIN", "KEYCHAIN_PATH"},
	"CACHEKEY":               {"CI_CACHE_KEY", "CACHE_KEY", "cacheKey"},
	"OPENAI_API_KEY":         {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "--openai-api-key", "openrouter_api_key", "GEMINI_API_KEY"},
	"GITHUB_TOKEN":           {"GITHUB_TOKEN", "GH_TOKEN", "GITHUB_PAT", "NPM_TOKEN", "CI_JOB_TOKEN"},
	"AWS_SECRET_ACCESS_KEY":  {"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ACCESS_KEY_ID"},
	"DOCKER_AUTH_CONFIG":     {"DOCKER_AUTH_CONFIG"},
	"SALVE_SERVER_TOKEN":     {"SALVE_SERVER_TOKEN", "SALVE_NATS_TOKEN", "SALVE_MCP_TOKEN"},
	"TOKEN":                  {"MY_SERVICE_TOKEN", "accessToken", "DB_PASSWORD", "db_passwd", "GPG_PASSPHRASE", "GOOGLE_APPLICATION_CREDENTIALS", "Authorization", "PROXY_AUTHORIZATION", "openrouter_apikey", "SECRET_KEY_BASE", "token", "AUTH_TOKEN_V2", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "botToken", "appToken", "signingSecret"},
	"PAT":                    {"MY_GITHUB_PAT", "PAT_GITLAB"},
	"API KEY":                {"API_KEY_2", "PRIVATE_KEY_PEM", "ACCESS_KEY_FILE", "apiKeyHeader"},
	"KEY":                    {"SIGNING_KEY", "--anthropic-key", "SSH_KEY", "licenseKey"},
	"AUTH":                   {"NPM_AUTH", "npm_config__auth", "BASIC_AUTH", "auth"},
	"PASS":                   {"DB_PASS", "SMTP_PASS"},
	"TOKEN#squashed":         {"GITHUBTOKEN", "openaiapikey", "MYSECRET"},
}

// notSecret are names no row takes (or a non-secret row takes).
var notSecret = []string{
	"PATH", "HOME", "GOFLAGS", "OLLAMA_HOST", "AIDER_MODEL", "--message-file", "--max-chat-history-tokens",
	"MAX_TOKENS", "OPENAI_MAX_TOKENS", "SEARCH_KEYWORDS", "KEYBOARD_LAYOUT", "PATH_PREFIX", "AUTHOR", "GIT_AUTHOR_NAME",
	"SSH_AUTH_SOCK", "TOKENIZERS_PARALLELISM", "PWD", "OLDPWD", "BYPASS_PROXY", "", "-", "__",
}

func rowKey(r secret.Rule) string {
	k := r.Patterns[0]
	if r.Match == secret.Squashed && r.Secret {
		k += "#squashed"
	}
	return k
}

// TestEveryRule checks every row of Rules against its examples: the row is
// the first to match each, and decides it.
func TestEveryRule(t *testing.T) {
	seen := map[string]bool{}
	for i, r := range secret.Rules {
		key := rowKey(r)
		if seen[key] {
			t.Fatalf("row %d: duplicate key %q", i, key)
		}
		seen[key] = true
		if r.Why == "" || len(r.Patterns) == 0 {
			t.Errorf("row %d (%s): no patterns or no reason", i, key)
		}
		ex := rowExamples[key]
		if len(ex) == 0 {
			t.Errorf("row %d (%s) has no examples", i, key)
		}
		for _, name := range ex {
			got, ok := secret.Classify(name)
			if !ok || !reflect.DeepEqual(got, r) {
				t.Errorf("Classify(%q) = %q (%v), want row %d %q", name, got.Patterns, ok, i, r.Patterns)
			}
			if secret.IsSecretName(name) != r.Secret {
				t.Errorf("IsSecretName(%q) = %v, want %v", name, !r.Secret, r.Secret)
			}
		}
	}
	for key := range rowExamples {
		if !seen[key] {
			t.Errorf("examples for %q, which is no row", key)
		}
	}
	for _, name := range notSecret {
		if secret.IsSecretName(name) {
			r, _ := secret.Classify(name)
			t.Errorf("IsSecretName(%q) = true (row %q)", name, r.Patterns)
		}
	}
}

// TestFormerRulesAgree: every name one of the four former rules (the
// sandbox's, the tool adapter's, the store's and the CLI's) tested as a
// secret is still one, and the names they got wrong are now right.
func TestFormerRulesAgree(t *testing.T) {
	for name, want := range map[string]bool{
		// sandbox
		"OPENAI_API_KEY": true, "MY_SERVICE_TOKEN": true, "DB_PASSWORD": true, "DEPLOY_TOKEN": true,
		// store
		"--anthropic-api-key": true, "GITHUB_TOKEN": true, "db_password": true, "AWS_SECRET_ACCESS_KEY": true,
		"Authorization": true, "MY_SECRET": true, "AIDER_MODEL": false, "--message-file": false,
		// cmd/salve
		"GH_TOKEN": true, "NPM_TOKEN": true, "openrouter_apikey": true, "NPM_AUTH": true, "PROXY_AUTHORIZATION": true,
		"GIT_AUTHOR_NAME": false, "GIT_AUTHOR_EMAIL": false, "GIT_COMMITTER_NAME": false, "SSH_AUTH_SOCK": false,
		// the tool adapter
		"GITHUB_PAT": true, "GPG_PASSPHRASE": true, "GIT_CREDENTIALS": true, "SSH_PRIVATE_KEY": true,
	} {
		if got := secret.IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string]string{
		"OPENAI_API_KEY": "OPENAI API KEY", "--openai-api-key": "OPENAI API KEY", "openaiApiKey": "OPENAI API KEY",
		"Authorization": "AUTHORIZATION", "npm_config__auth": "NPM CONFIG AUTH", "a.b-c d": "A B C D", "": "", "--": "",
		"v2Token": "V2 TOKEN",
	} {
		if got := strings.Join(secret.Words(in), " "); got != want {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzIsSecretName: any name is classified without panicking, the same
// way in upper and lower case (ASCII), and with leading dashes.
func FuzzIsSecretName(f *testing.F) {
	for _, ex := range rowExamples {
		for _, n := range ex {
			f.Add(n)
		}
	}
	for _, n := range notSecret {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := secret.IsSecretName(name)
		ascii := true
		for i := 0; i < len(name); i++ {
			ascii = ascii && name[i] < 0x80
		}
		if ascii && !strings.ContainsAny(name, "abcdefghijklmnopqrstuvwxyz") {
			if lower := strings.ToLower(name); secret.IsSecretName(lower) != got {
				t.Errorf("IsSecretName(%q) = %v but %q gives the opposite", name, got, lower)
			}
		}
		if len(name) < 200 && secret.IsSecretName("--"+name) != got {
			t.Errorf("IsSecretName(%q) = %v but with leading dashes the opposite", name, got)
		}
	})
}
