package config

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/llm"
)

func intp(n int) *int { return &n }

// TestTargetZeroIsAValue: contextWindowBufferTokens 0 at the model or
// provider level beats the level below, as any other value does.
func TestTargetZeroIsAValue(t *testing.T) {
	tests := []struct {
		name          string
		entry         Provider
		defaultBuffer int
		wantBuffer    int
		wantWindow    int
	}{
		{"defaults only", Provider{}, 8192, 8192, 131072},
		{"defaults 0", Provider{}, 0, 0, 131072},
		{"provider 0 beats defaults", Provider{ContextWindowBufferTokens: intp(0)}, 8192, 0, 131072},
		{"model 0 beats provider", Provider{ContextWindowBufferTokens: intp(4096),
			Models: map[string]Model{"m": {ContextWindowBufferTokens: intp(0)}}}, 8192, 0, 131072},
		{"model window", Provider{ContextWindow: intp(32000), Models: map[string]Model{"m": {ContextWindow: intp(16000)}}}, 100, 100, 16000},
		{"other model unaffected", Provider{ContextWindowBufferTokens: intp(7), Models: map[string]Model{"x": {ContextWindowBufferTokens: intp(0)}}}, 100, 7, 131072},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := target("p", "m", tt.entry, nil, agent.Params{}, tt.defaultBuffer)
			if err != nil {
				t.Fatal(err)
			}
			if got.ContextWindowBufferTokens != tt.wantBuffer || got.ContextWindow != tt.wantWindow {
				t.Fatalf("buffer %d window %d, want %d %d", got.ContextWindowBufferTokens, got.ContextWindow, tt.wantBuffer, tt.wantWindow)
			}
		})
	}
}

// stubClient is an llm.Provider that is never called.
type stubClient struct {
	llm.Provider
	name string
}

// TestTargets resolves every per-model setting from one configuration: the
// model's overrides beat the caller's parameters (null stops one being
// sent), toolChoice and the window come from the model, else the
// provider, the caller's contextWindow beats both, and each provider gets
// one client.
func TestTargets(t *testing.T) {
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "agent.json")
	write(t, cfgFile, `{
  "defaults": {"contextWindowBufferTokens": 100},
  "providers": {
    "p": {"type": "openai-compatible", "baseUrl": "http://127.0.0.1:9", "toolChoice": "auto", "contextWindow": 5000,
          "models": {"tuned": {"toolChoice": "required", "contextWindow": 4000, "contextWindowBufferTokens": 10,
                               "overrides": {"temperature": 0.7, "top_p": null, "topK": 5, "repeat_penalty": 1.1}}}},
    "q": {"type": "ollama", "baseUrl": "http://127.0.0.1:9"}}}`)
	cfg, err := Load(Locations{ConfigFile: cfgFile, Getenv: noEnv(nil)})
	if err != nil {
		t.Fatal(err)
	}
	temp, topP := 0.2, 0.9
	base := agent.Params{Temperature: &temp, TopP: &topP, MaxOutputTokens: 333}
	made := map[string]int{}
	setup := TargetSetup{Models: []string{"p/tuned", "p/plain", "q/m"}, Params: base,
		NewClient: func(name string, entry Provider) (llm.Provider, error) {
			made[name]++
			return stubClient{name: name}, nil
		}}
	ts, err := cfg.Targets(setup)
	if err != nil {
		t.Fatal(err)
	}
	f := func(p *float64) string {
		if p == nil {
			return "unset"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	type want struct {
		temp, topP, toolChoice string
		topK                   *int
		repeat                 bool
		window, buffer         int
	}
	wants := []want{
		{"0.7", "unset", "required", intp(5), true, 4000, 10},
		{"0.2", "0.9", "auto", nil, false, 5000, 100},
		{"0.2", "0.9", "", nil, false, DefaultContextWindow, 100},
	}
	for i, w := range wants {
		got := ts[i]
		if f(got.Params.Temperature) != w.temp || f(got.Params.TopP) != w.topP || got.ToolChoice != w.toolChoice ||
			(got.Params.TopK == nil) != (w.topK == nil) || (w.topK != nil && *got.Params.TopK != *w.topK) ||
			(got.Params.RepeatPenalty != nil) != w.repeat || got.Params.MaxOutputTokens != 333 ||
			got.ContextWindow != w.window || got.ContextWindowBufferTokens != w.buffer {
			t.Errorf("%s/%s: %+v, want %+v", got.Provider, got.Model, got, w)
		}
		if got.Client.(stubClient).name != got.Provider {
			t.Errorf("%s/%s has the client of %v", got.Provider, got.Model, got.Client)
		}
	}
	if made["p"] != 1 || made["q"] != 1 {
		t.Errorf("clients made %v, want one per provider", made)
	}
	if *base.Temperature != 0.2 || *base.TopP != 0.9 {
		t.Errorf("the caller's parameters changed: %+v", base)
	}

	setup.ContextWindow = intp(2048)
	if ts, err = cfg.Targets(setup); err != nil {
		t.Fatal(err)
	}
	for _, got := range ts {
		if got.ContextWindow != 2048 {
			t.Errorf("%s/%s: window %d, want the caller's 2048", got.Provider, got.Model, got.ContextWindow)
		}
	}

	for _, bad := range []struct{ models, want string }{
		{"nomodel", "not provider/model"},
		{"absent/m", `provider "absent" is not configured`},
	} {
		setup.Models = []string{bad.models}
		if _, err := cfg.Targets(setup); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err %v, want %q", bad.models, err, bad.want)
		}
	}
}

// TestTargetSettings: --override beats the flag, which beats the
// frontmatter, then the config's defaults, then the caller's built-in
// values; an UNSET spelling stops a parameter being sent.
func TestTargetSettings(t *testing.T) {
	temp := 0.2
	s := Sources{
		Override:    map[string]string{"topP": "0.4"},
		CLI:         map[string]string{"topP": "0.9", "temperature": "unset"},
		Frontmatter: map[string]any{"maxOutputTokens": 900},
		Defaults:    map[string]any{"maxOutputTokens": 700.0, "topK": 9.0, "contextWindow": 4096.0, "reasoning": "high"},
	}
	ts, err := s.TargetSettings(agent.Params{Temperature: &temp, MaxOutputTokens: 100, Caching: "full"})
	if err != nil {
		t.Fatal(err)
	}
	p := ts.Params
	if p.Temperature != nil || p.TopP == nil || *p.TopP != 0.4 || p.MaxOutputTokens != 900 || p.TopK == nil || *p.TopK != 9 ||
		p.Caching != "full" || p.Reasoning != "high" || ts.ContextWindow == nil || *ts.ContextWindow != 4096 {
		t.Errorf("%+v window %v", p, ts.ContextWindow)
	}
	if _, err := (Sources{Defaults: map[string]any{"temperature": 5.0}}).TargetSettings(agent.Params{}); !errors.Is(err, ErrConfig) ||
		!strings.Contains(err.Error(), "defaults") {
		t.Errorf("out-of-range default: %v", err)
	}
}
