package llmfix

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/heal"
)

// bigInput is a fix request for a file of about 40 KB, some ten thousand
// tokens.
func bigInput() heal.FixInput {
	in := input
	in.Content = strings.Repeat("total = compute(value, other) + offset\n", 1000)
	return in
}

func TestContextWindowGuard(t *testing.T) {
	tests := []struct {
		name     string
		big      bool
		windows  []int // one target per window, in fallback order
		wantReqs []int // requests each target received
		wantErr  error
	}{
		{name: "fits", windows: []int{4096}, wantReqs: []int{1}},
		{name: "default window", big: true, windows: []int{0}, wantReqs: []int{1}},
		{name: "too big", big: true, windows: []int{4096}, wantReqs: []int{0}, wantErr: ErrContextWindow},
		{name: "too big for every target", big: true, windows: []int{4096, 8192}, wantReqs: []int{0, 0}, wantErr: ErrContextWindow},
		{name: "falls back to the larger window", big: true, windows: []int{4096, 65536}, wantReqs: []int{0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := input
			if tt.big {
				in = bigInput()
			}
			clients := make([]*captureProvider, len(tt.windows))
			f := &Fixer{}
			for i, w := range tt.windows {
				clients[i] = &captureProvider{}
				f.Targets = append(f.Targets, Target{Provider: string(rune('a' + i)), Model: "m", Client: clients[i], ContextWindow: w})
			}
			res, err := f.Fix(context.Background(), in)
			for i, c := range clients {
				if len(c.reqs) != tt.wantReqs[i] {
					t.Errorf("target %d got %d requests, want %d", i, len(c.reqs), tt.wantReqs[i])
				}
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), "context window") {
					t.Fatalf("err = %v, want %v naming the context window", err, tt.wantErr)
				}
				// One refused attempt per target, then the session ends.
				if acct := f.Accounting(); len(acct) != len(tt.windows) || acct[0].Status != contract.AccountingFail {
					t.Errorf("accounting %+v, want %d failed entries", acct, len(tt.windows))
				}
				return
			}
			if err != nil || res.PatchedContent != "fixed\n" {
				t.Fatalf("res %+v err %v", res, err)
			}
		})
	}
}

// TestTargetsCarryTheWindow checks that the model's settings beat the
// provider's, which beat the defaults.
func TestTargetsCarryTheWindow(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agent.json")
	if err := os.WriteFile(cfg, []byte(`{"providers": {"local": {"type": "ollama", "baseUrl": "http://127.0.0.1:9",
		"contextWindow": 32768, "tokenizer": "approx",
		"models": {"small": {"contextWindow": 8192, "contextWindowBufferTokens": 512, "tokenizer": "tiktoken"}}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ts, err := Targets(Setup{Models: []string{"local/small", "local/big"}, ConfigFile: cfg, Cwd: dir, Home: dir,
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		window, buffer int
		tokenizer      string
	}{{8192, 512, "tiktoken"}, {32768, config.DefaultBufferTokens, "approx"}}
	for i, w := range want {
		got := ts[i]
		if got.ContextWindow != w.window || got.ContextWindowBufferTokens != w.buffer || got.Tokenizer != w.tokenizer {
			t.Errorf("%s: window %d buffer %d tokenizer %q, want %+v", got.Model, got.ContextWindow, got.ContextWindowBufferTokens, got.Tokenizer, w)
		}
	}
}
