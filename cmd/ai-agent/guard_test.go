package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// TestGuardHeadendListenNeedsToken: headend mode refuses to listen beyond
// loopback without a token, before loading any agent, and says which
// token to give. On main it started with no token on every interface.
func TestGuardHeadendListenNeedsToken(t *testing.T) {
	t.Setenv("AI_AGENT_HEADEND_TOKEN", "")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--api", "0", "--listen-address", "0.0.0.0", "--agent", "does-not-exist.ai"},
		strings.NewReader(""), &stdout, &stderr)
	if code != exitConfig {
		t.Fatalf("exit %d, want %d; stderr %q", code, exitConfig, stderr.String())
	}
	for _, w := range []string{"not a loopback address", "--headend-token", "$AI_AGENT_HEADEND_TOKEN", "--insecure-no-token"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("stderr %q lacks %q", stderr.String(), w)
		}
	}
	// MCP on stdio listens on nothing: no token needed (it goes on to
	// fail on the missing agent file instead).
	stderr.Reset()
	run(context.Background(), []string{"--mcp", "stdio", "--listen-address", "0.0.0.0", "--agent", "does-not-exist.ai"},
		strings.NewReader(""), &stdout, &stderr)
	if strings.Contains(stderr.String(), "loopback") {
		t.Errorf("stdio asked for a token: %q", stderr.String())
	}
}

// TestGuardHeadendInsecureNoToken: the insecure-no-token flag reaches the
// headend options, which then allow the address and return the warning.
func TestGuardHeadendInsecureNoToken(t *testing.T) {
	t.Setenv("AI_AGENT_HEADEND_TOKEN", "")
	a := &cliArgs{values: map[string]string{"listen-address": "0.0.0.0"}, bools: map[string]bool{"insecure-no-token": true},
		headends: []headendArg{{kind: "api", value: "0"}}}
	specs, err := headendSpecs(a)
	if err != nil {
		t.Fatal(err)
	}
	o, err := headendOptions(a, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	warning, err := o.CheckListen(specs)
	if err != nil || !strings.Contains(warning, "WARNING") || !strings.Contains(warning, "0.0.0.0") {
		t.Fatalf("warning %q, error %v", warning, err)
	}
}
