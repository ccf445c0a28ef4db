package config

import (
	"fmt"
	"math"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// Budgets is the config's budgets section (a salve extension): cost caps in
// USD for one session and for each headend over the process's life. Zero is
// no cap.
type Budgets struct {
	MaxCostUSD        float64 `json:"maxCostUsd"`
	HeadendMaxCostUSD float64 `json:"headendMaxCostUsd"`
}

// Budgets reads the budgets section.
func (c *Config) Budgets() (Budgets, error) {
	var b Budgets
	if err := c.Decode(&b, "budgets"); err != nil {
		return b, err
	}
	if b.MaxCostUSD < 0 || b.HeadendMaxCostUSD < 0 {
		return b, fmt.Errorf("budgets: %w: caps must not be negative", ErrConfig)
	}
	return b, nil
}

// Price is one model's row of the pricing table: USD per 1000 (per_1k) or
// per million (per_1m, the default) tokens.
type Price struct {
	Unit       string  `json:"unit,omitempty"`
	Currency   string  `json:"currency,omitempty"`
	Prompt     float64 `json:"prompt"`
	Completion float64 `json:"completion"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// Pricing is the config's pricing section: provider name, then model, then
// its prices. It implements the engine's Pricer.
type Pricing map[string]map[string]Price

// Pricing reads and checks the pricing section.
func (c *Config) Pricing() (Pricing, error) {
	var p Pricing
	if err := c.Decode(&p, "pricing"); err != nil {
		return nil, err
	}
	for prov, models := range p {
		for model, pr := range models {
			entry := "pricing." + prov + "." + model
			switch pr.Unit {
			case "", "per_1k", "per_1m":
			default:
				return nil, fmt.Errorf("%s: %w: unit %q (per_1k or per_1m)", entry, ErrConfig, pr.Unit)
			}
			if pr.Currency != "" && !strings.EqualFold(pr.Currency, "USD") {
				return nil, fmt.Errorf("%s: %w: currency %q (only USD)", entry, ErrConfig, pr.Currency)
			}
			for _, v := range []float64{pr.Prompt, pr.Completion, pr.CacheRead, pr.CacheWrite} {
				if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("%s: %w: prices must be non-negative numbers", entry, ErrConfig)
				}
			}
		}
	}
	return p, nil
}

// Cost prices usage with the row of provider and model: input tokens at
// the prompt price, output at the completion price, cache reads (else
// cachedTokens) and cache writes at theirs. ok is false without a row.
func (p Pricing) Cost(provider, model string, u contract.TokenUsage) (float64, bool) {
	pr, ok := p[provider][model]
	if !ok {
		return 0, false
	}
	denom := 1_000_000.0
	if pr.Unit == "per_1k" {
		denom = 1_000
	}
	read, write := 0, 0
	switch {
	case u.CacheReadInputTokens != nil:
		read = *u.CacheReadInputTokens
	case u.CachedTokens != nil:
		read = *u.CachedTokens
	}
	if u.CacheWriteInputTokens != nil {
		write = *u.CacheWriteInputTokens
	}
	cost := (pr.Prompt*float64(u.InputTokens) + pr.Completion*float64(u.OutputTokens) +
		pr.CacheRead*float64(read) + pr.CacheWrite*float64(write)) / denom
	if math.IsNaN(cost) || math.IsInf(cost, 0) {
		return 0, false
	}
	return cost, true
}

// Missing lists the provider/model pairs with no pricing row, for the
// start-up warning.
func (p Pricing) Missing(pairs []string) []string {
	var out []string
	for _, pm := range pairs {
		prov, model, err := SplitModel(pm)
		if err != nil {
			continue
		}
		if _, ok := p[prov][model]; !ok {
			out = append(out, pm)
		}
	}
	return out
}
