package secret_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/secret"
)

func TestMaskerMask(t *testing.T) {
	m := secret.FromEnv([][]string{{
		"OPENAI_API_KEY=sk-abcdefghijklmnop", "MY_SERVICE_TOKEN=tok-12345678", "DB_PASSWORD=hunter2-long",
		"GITHUB_PAT=ghp_0123456789abcdef", "GPG_PASSPHRASE=correct horse",
		"SHORT_TOKEN=abcde", "PATH=/usr/bin:/bin", "HOME=/home/someone", "GIT_AUTHOR_NAME=Jane Doe-Example",
	}}, "Bearer header-value-xyz")
	tests := []struct{ in, want string }{
		{"key=sk-abcdefghijklmnop.", "key=[masked OPENAI_API_KEY]."},
		{"tok-12345678 and hunter2-long", "[masked MY_SERVICE_TOKEN] and [masked DB_PASSWORD]"},
		{"pat ghp_0123456789abcdef, phrase correct horse", "pat [masked GITHUB_PAT], phrase [masked GPG_PASSPHRASE]"},
		{"auth: Bearer header-value-xyz", "auth: [masked]"},
		{"abcde /usr/bin:/bin /home/someone Jane Doe-Example", "abcde /usr/bin:/bin /home/someone Jane Doe-Example"},
		{"sk-abcdefghijklmno", "sk-abcdefghijklmno"}, // one byte short: not the secret
	}
	for _, tt := range tests {
		if got := m.Mask(tt.in); got != tt.want {
			t.Errorf("Mask(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := string(m.MaskBytes([]byte(tt.in))); got != tt.want {
			t.Errorf("MaskBytes(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := m.Uniform("[REDACTED]").Mask("x tok-12345678 y"); got != "x [REDACTED] y" {
		t.Errorf("Uniform: %q", got)
	}
	var nilM *secret.Masker
	if nilM.Mask("x") != "x" || !nilM.Empty() || !nilM.Uniform("[R]").Empty() || string(nilM.MaskBytes([]byte("y"))) != "y" {
		t.Error("a nil Masker must mask nothing")
	}
	if w := m.With("another-secret-1"); w.Mask("another-secret-1 tok-12345678") != "[masked] [masked MY_SERVICE_TOKEN]" {
		t.Errorf("With: %q", w.Mask("another-secret-1 tok-12345678"))
	}
}

// TestMaskerWriterSplits writes a text holding secrets in every possible
// split of two writes, and byte by byte: no split may let a secret through.
func TestMaskerWriterSplits(t *testing.T) {
	m := secret.NewMasker("secretvalue1", "secretvalue1-longer", "abcabcabd")
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

// FuzzMasker checks the stream writer against Mask for any text, secret
// and split, and that no secret of MinLen bytes or more survives either.
func FuzzMasker(f *testing.F) {
	f.Add("prefix SECRET-VALUE-1 suffix", "SECRET-VALUE-1", 7)
	f.Add("SECRET-VALUSECRET-VALUE-1", "SECRET-VALUE-1", 3)
	f.Add("aaaaaaab", "aaaaab", 2)
	f.Fuzz(func(t *testing.T, text, value string, split int) {
		m := secret.NewMasker(value, "SECRET-VALUE-1")
		if split < 0 || split > len(text) {
			split = len(text) / 2
		}
		var buf bytes.Buffer
		w := m.Writer(&buf)
		w.Write([]byte(text[:split]))
		w.Write([]byte(text[split:]))
		w.Close()
		masked := m.Mask(text)
		if got := buf.String(); got != masked {
			t.Errorf("writer %q, Mask %q", got, masked)
		}
		if string(m.MaskBytes([]byte(text))) != masked {
			t.Errorf("MaskBytes differs from Mask")
		}
		v := strings.TrimSpace(value)
		if len(v) >= secret.MinLen && !strings.ContainsAny(v, "[]") && !strings.Contains("masked", v) && strings.Contains(masked, v) {
			t.Errorf("Mask(%q) = %q still holds %q", text, masked, v)
		}
	})
}
