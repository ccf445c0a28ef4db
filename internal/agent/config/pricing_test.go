package config

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/salve-dev/salve/contract"
)

func loadJSON(t *testing.T, text string) *Config {
	t.Helper()
	f := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(Locations{ConfigFile: f, Getenv: noEnv(nil), SystemDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPricingCost(t *testing.T) {
	c := loadJSON(t, `{"pricing":{
		"anthropic":{"claude":{"unit":"per_1m","currency":"USD","prompt":3,"completion":15,"cacheRead":0.3,"cacheWrite":3.75}},
		"openai":{"gpt":{"unit":"per_1k","prompt":1,"completion":2}},
		"local":{"free":{}}}}`)
	p, err := c.Pricing()
	if err != nil {
		t.Fatal(err)
	}
	n := func(v int) *int { return &v }
	cases := []struct {
		name, prov, model string
		usage             contract.TokenUsage
		want              float64
		ok                bool
	}{
		{"per million with cache", "anthropic", "claude",
			contract.TokenUsage{InputTokens: 1000, OutputTokens: 100, CacheReadInputTokens: n(2000), CacheWriteInputTokens: n(400)},
			(3*1000 + 15*100 + 0.3*2000 + 3.75*400) / 1e6, true},
		{"cachedTokens when no cache read", "anthropic", "claude", contract.TokenUsage{CachedTokens: n(1000)}, 0.3 * 1000 / 1e6, true},
		{"per thousand", "openai", "gpt", contract.TokenUsage{InputTokens: 500, OutputTokens: 250}, (500 + 2*250) / 1e3, true},
		{"zero prices", "local", "free", contract.TokenUsage{InputTokens: 5}, 0, true},
		{"unknown model", "openai", "other", contract.TokenUsage{InputTokens: 5}, 0, false},
		{"unknown provider", "nope", "gpt", contract.TokenUsage{InputTokens: 5}, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := p.Cost(tc.prov, tc.model, tc.usage)
			if ok != tc.ok || math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("Cost = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
	if miss := p.Missing([]string{"openai/gpt", "openai/other", "bad"}); len(miss) != 1 || miss[0] != "openai/other" {
		t.Fatalf("Missing = %v", miss)
	}
}

func TestPricingAndBudgetsRefuseBadValues(t *testing.T) {
	cases := []struct{ name, json string }{
		{"unit", `{"pricing":{"p":{"m":{"unit":"per_token"}}}}`},
		{"currency", `{"pricing":{"p":{"m":{"currency":"EUR"}}}}`},
		{"negative", `{"pricing":{"p":{"m":{"prompt":-1}}}}`},
		{"not an object", `{"pricing":{"p":3}}`},
		{"negative cap", `{"budgets":{"maxCostUsd":-1}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := loadJSON(t, tc.json)
			_, perr := c.Pricing()
			_, berr := c.Budgets()
			if !errors.Is(perr, ErrConfig) && !errors.Is(berr, ErrConfig) {
				t.Fatalf("no config error: %v, %v", perr, berr)
			}
		})
	}
}

func TestTelemetrySection(t *testing.T) {
	c := loadJSON(t, `{"telemetry":{"enabled":true,"otlp":{"endpoint":"grpc://h:4317","timeoutMs":500},
		"prometheus":{"enabled":true,"host":"0.0.0.0","port":9999},"labels":{"env":"prod"},
		"traces":{"enabled":true,"sampler":"ratio","ratio":0.5}}}`)
	tc, err := c.Telemetry()
	if err != nil {
		t.Fatal(err)
	}
	if !*tc.Enabled || *tc.OTLP.Endpoint != "grpc://h:4317" || *tc.OTLP.TimeoutMs != 500 || !*tc.Prometheus.Enabled ||
		*tc.Prometheus.Host != "0.0.0.0" || *tc.Prometheus.Port != 9999 || tc.Labels["env"] != "prod" ||
		!*tc.Traces.Enabled || *tc.Traces.Sampler != "ratio" || *tc.Traces.Ratio != 0.5 {
		t.Fatalf("telemetry = %+v", tc)
	}
	empty, err := loadJSON(t, `{}`).Telemetry()
	if err != nil || empty.Enabled != nil {
		t.Fatalf("absent section = %+v, %v", empty, err)
	}
}
