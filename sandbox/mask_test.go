package sandbox_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/salve-dev/salve/sandbox"
)

func TestMaskerMask(t *testing.T) {
	m := sandbox.MaskerFromEnv([][]string{{
		"OPENAI_API_KEY=sk-abcdefghijklmnop", "MY_SERVICE_TOKEN=tok-12345678", "DB_PASSWORD=hunter2-long",
		"SHORT_TOKEN=abc", "PATH=/usr/bin:/bin", "HOME=/home/someone",
	}}, "Bearer header-value-xyz")
	tests := []struct{ in, want string }{
		{"key=sk-abcdefghijklmnop.", "key=[masked OPENAI_API_KEY]."},
		{"tok-12345678 and hunter2-long", "[masked MY_SERVICE_TOKEN] and [masked DB_PASSWORD]"},
		{"auth: Bearer header-value-xyz", "auth: [masked]"},
		{"abc /usr/bin:/bin /home/someone", "abc /usr/bin:/bin /home/someone"},
		{"sk-abcdefghijklmno", "sk-abcdefghijklmno"}, // one byte short: not the secret
	}
	for _, tt := range tests {
		if got := m.Mask(tt.in); got != tt.want {
			t.Errorf("Mask(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	var nilM *sandbox.Masker
	if nilM.Mask("x") != "x" || !nilM.Empty() {
		t.Error("a nil Masker must mask nothing")
	}
}

// TestMaskerWriterSplits writes a text holding secrets in every possible
// split of two writes, and byte by byte: no split may let a secret through.
func TestMaskerWriterSplits(t *testing.T) {
	m := sandbox.NewMasker("secretvalue1", "secretvalue1-longer", "abcabcabd")
	text := "x secretvalue1 y secretvalue1-longer z abcabcabcabd end abcab"
	want := m.Mask(text)
	if strings.Contains(want, "secretvalue1") || strings.Contains(want, "abcabcabd") {
		t.Fatalf("Mask left a secret: %q", want)
	}
	for i := 0; i <= len(text); i++ {
		var buf bytes.Buffer
		w := m.Writer(&buf)
		w.Write([]byte(text[:i]))
		w.Write([]byte(text[i:]))
		w.Close()
		if buf.String() != want {
			t.Errorf("split at %d: %q, want %q", i, buf.String(), want)
		}
	}
	var buf bytes.Buffer
	w := m.Writer(&buf)
	for i := range len(text) {
		w.Write([]byte{text[i]})
	}
	w.Close()
	if buf.String() != want {
		t.Errorf("byte by byte: %q, want %q", buf.String(), want)
	}
}

func FuzzMaskerWriter(f *testing.F) {
	f.Add("prefix SECRET-VALUE-1 suffix", 7)
	f.Add("SECRET-VALUSECRET-VALUE-1", 3)
	f.Fuzz(func(t *testing.T, text string, split int) {
		m := sandbox.NewMasker("SECRET-VALUE-1")
		if split < 0 || split > len(text) {
			split = len(text) / 2
		}
		var buf bytes.Buffer
		w := m.Writer(&buf)
		w.Write([]byte(text[:split]))
		w.Write([]byte(text[split:]))
		w.Close()
		if got := buf.String(); got != m.Mask(text) || strings.Contains(got, "SECRET-VALUE-1") {
			t.Errorf("writer %q, Mask %q", got, m.Mask(text))
		}
	})
}

// TestRunMasksOutput prints a secret from a file and from the environment
// through a real process: neither the capture nor the live writer sees it.
func TestRunMasksOutput(t *testing.T) {
	dir := t.TempDir()
	const fileSecret, envSecret = "file-secret-0123456789", "env-secret-9876543210"
	if err := os.WriteFile(dir+"/key", []byte(fileSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "DEPLOY_TOKEN=" + envSecret}
	var live bytes.Buffer
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "sh", Dir: dir, Env: env, Combined: true, Stdout: &live,
		Args: []string{"-c", `cat key; printf 'tok=%s' "$DEPLOY_TOKEN" >&2`},
		Mask: sandbox.MaskerFromEnv([][]string{env}, fileSecret)})
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"capture": string(res.Stdout), "live": live.String()} {
		if strings.Contains(got, "secret") || !strings.Contains(got, "[masked DEPLOY_TOKEN]") || !strings.Contains(got, "[masked]\n") {
			t.Errorf("%s: %q", name, got)
		}
	}
}
