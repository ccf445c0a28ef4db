package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestIncludeOfLinkToDotEnv runs the real binary on a prompt whose
// include names an innocent file that is a link to an env file: the run
// is refused and the secret never reaches the provider.
func TestIncludeOfLinkToDotEnv(t *testing.T) {
	bin := aiAgentBinary(t)
	cases := []struct{ name, link, target string }{
		{"link to .env", "style.md", ".env"},
		{"link to .env.local", "style.md", ".env.local"},
		{"link to config env", "style.md", ".ai-agent.env"},
		{"chain of links", "style.md", "mid.md"},
		{"link in a subfolder", "sub/style.md", "../.env"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := echoProvider(t, 0)
			dir := headendDir(t, srv)
			const secret = "sk-leak-7f3a9"
			for _, f := range []string{".env", ".env.local", ".ai-agent.env"} {
				if err := os.WriteFile(filepath.Join(dir, f), []byte("OPENAI_API_KEY="+secret+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(".env", filepath.Join(dir, "mid.md")); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(tc.link)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(tc.target, filepath.Join(dir, tc.link)); err != nil {
				t.Fatal(err)
			}
			prompt := "---\nmodels: [mock/m1]\n---\nFollow the style: ${include:" + tc.link + "}\n"
			if err := os.WriteFile(filepath.Join(dir, "leak.ai"), []byte(prompt), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "--tooling-transport", "native", "leak.ai", "hello")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			for _, r := range srv.Requests() {
				if bytes.Contains(r.Body, []byte(secret)) {
					t.Fatalf("the env file's secret was sent to the provider")
				}
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitConfig || !strings.Contains(stderr.String(), "forbidden") {
				t.Fatalf("exit %v, want %d with 'forbidden'; stderr:\n%s", err, exitConfig, stderr.String())
			}
		})
	}
}
