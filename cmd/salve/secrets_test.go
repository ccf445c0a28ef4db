package main

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/assemble"
	"github.com/salve-dev/salve/internal/secret"
)

// TestTakeSecrets: the secrets leave the process environment, stay readable
// through getenv and environ, and a variable named in keep stays put.
func TestTakeSecrets(t *testing.T) {
	t.Setenv("SALVE_TEST_API_KEY", "sk-test-1")
	t.Setenv("SALVE_KEPT_TOKEN", "kept-2")
	t.Setenv("SALVE_TEST_PLAIN", "plain")
	sec, err := takeSecrets(func(k string) bool { return strings.HasPrefix(k, "SALVE_") && secret.IsSecretName(k) }, []string{"SALVE_KEPT_TOKEN"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := os.LookupEnv("SALVE_TEST_API_KEY"); ok {
		t.Error("SALVE_TEST_API_KEY is still in the process environment")
	}
	if os.Getenv("SALVE_KEPT_TOKEN") != "kept-2" || os.Getenv("SALVE_TEST_PLAIN") != "plain" {
		t.Error("a kept or plain variable was removed")
	}
	if sec.getenv("SALVE_TEST_API_KEY") != "sk-test-1" || sec.getenv("SALVE_TEST_PLAIN") != "plain" {
		t.Error("getenv lost a variable")
	}
	found := false
	for _, kv := range sec.environ() {
		found = found || kv == "SALVE_TEST_API_KEY=sk-test-1"
	}
	if !found {
		t.Error("environ does not give the secret back")
	}
}

// TestSecretsStillConfigureTheLLMTier: with the key only in memory, the
// default fixer tiers still include llm.
func TestSecretsStillConfigureTheLLMTier(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-llm")
	t.Setenv("HOME", t.TempDir())
	s := &streams{Stdout: io.Discard, Stderr: io.Discard}
	s.Getenv = func(k string) string { return s.secrets.getenv(k) }
	var err error
	if s.secrets, err = takeSecrets(func(k string) bool { return k == "OPENAI_API_KEY" }, nil); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("OPENAI_API_KEY") != "" {
		t.Fatal("the key is still in the environment")
	}
	fixers, _, err := assemble.Fixers((&healOptions{}).config(s, "", (&logOptions{Format: "text"}).logger(io.Discard)), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fixers {
		names = append(names, f.Name())
	}
	if len(names) == 0 || names[len(names)-1] != "llm" {
		t.Errorf("fixers = %v, want the default tiers ending with llm", names)
	}
}
