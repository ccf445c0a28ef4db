package config

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/agent"
)

// resolveIn loads the config text (as the cwd layer) and resolves the
// frontmatter header with cli.
func resolveIn(t *testing.T, config, header string, cli CLI) (*Settings, error) {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, ".ai-agent.json"), config)
	c, err := Load(Locations{Cwd: dir, SystemDir: filepath.Join(dir, "etc"), Getenv: noEnv(nil)})
	if err != nil {
		t.Fatal(err)
	}
	fm, err := ParseFrontmatter(header, dir)
	if err != nil {
		t.Fatal(err)
	}
	return Resolve(Request{Config: c, Frontmatter: fm, CLI: cli, Home: dir})
}

// TestResolvePrecedence: --override, then the flag, then the
// frontmatter, then the config's defaults, then the built-in value, for
// every kind of setting the session takes.
func TestResolvePrecedence(t *testing.T) {
	const cfg = `{"defaults":{"maxTurns":4,"toolTimeout":"2s","stream":true,"reasoning":"low","contextWindowBufferTokens":100},
		"tooling":{"transport":"xml"},"persistence":{"sessionsDir":"/s"},"budgets":{"maxCostUsd":2}}`
	s, err := resolveIn(t, cfg, "models: [p/m]\nmaxTurns: 3\nllmTimeout: 5s\ntools: [a]\nreasoningTokens: disabled\ncontextWindowBufferTokens: 50", CLI{
		Settings:  map[string]string{"maxTurns": "2", "temperature": "0.9"},
		Flags:     map[string]string{"tooling-transport": "native", "billing-file": "/b", "max-cost-usd": "1.5"},
		Lists:     map[string][]string{"tools": {"b"}},
		Overrides: []string{"maxTurns=1", "agents=x.ai"},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Targets.Params
	checks := []struct {
		what      string
		got, want any
	}{
		{"maxTurns (override)", s.MaxTurns, 1},
		{"llmTimeout (frontmatter)", s.LLMTimeout, 5 * time.Second},
		{"toolTimeout (defaults)", s.ToolTimeout, 2 * time.Second},
		{"maxRetries (built in)", s.MaxRetries, agent.DefaultMaxRetries},
		{"stream (defaults)", s.Stream, true},
		{"transport (flag)", s.Transport, agent.TransportNative},
		{"temperature (flag)", *p.Temperature, 0.9},
		{"reasoning (defaults)", p.Reasoning, "low"},
		{"reasoningTokens disabled", *p.ReasoningTokens, 0},
		{"buffer (frontmatter, not defaults)", *s.Targets.BufferTokens, 50},
		{"tools (flag)", s.Tools, []string{"b"}},
		{"agents (override)", s.Agents, []string{"x.ai"}},
		{"models (frontmatter)", s.Targets.Models, []string{"p/m"}},
		{"billing file (flag)", s.BillingFile, "/b"},
		{"sessions dir (config)", s.SessionsDir, "/s"},
		{"cost cap (flag)", s.MaxCostUSD, 1.5},
		{"format (not a terminal)", s.Format, agent.FormatPipe},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
}

// TestOriginalSpellings: maxToolTurns is maxTurns wherever an option may
// be set, and a source that sets both uses maxTurns; the config's
// contextWindowBufferTokens stays the entries' fallback.
func TestOriginalSpellings(t *testing.T) {
	cases := []struct {
		name, config, header string
		overrides            []string
		turns                int
		buffer               bool
	}{
		{"frontmatter", `{}`, "models: [p/m]\nmaxToolTurns: 6", nil, 6, false},
		{"frontmatter, both", `{}`, "models: [p/m]\nmaxToolTurns: 6\nmaxTurns: 7", nil, 7, false},
		{"defaults", `{"defaults":{"maxToolTurns":5,"contextWindowBufferTokens":10}}`, "models: [p/m]", nil, 5, false},
		{"override", `{}`, "models: [p/m]\nmaxTurns: 7", []string{"maxToolTurns=4", "contextWindowBufferTokens=0"}, 4, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := resolveIn(t, tc.config, tc.header, CLI{Overrides: tc.overrides})
			if err != nil {
				t.Fatal(err)
			}
			if s.MaxTurns != tc.turns || (s.Targets.BufferTokens != nil) != tc.buffer {
				t.Errorf("maxTurns %d buffer %v, want %d %v", s.MaxTurns, s.Targets.BufferTokens, tc.turns, tc.buffer)
			}
		})
	}
}

// TestResolveRefuses: bad values from every source are configuration
// errors.
func TestResolveRefuses(t *testing.T) {
	cases := []struct {
		name, config, header string
		cli                  CLI
	}{
		{"no model", `{}`, "maxTurns: 2", CLI{}},
		{"zero timeout", `{}`, "models: [p/m]\ntoolTimeout: 0", CLI{}},
		{"bad transport", `{"tooling":{"transport":"smoke"}}`, "models: [p/m]", CLI{}},
		{"bad format", `{}`, "models: [p/m]", CLI{Flags: map[string]string{"format": "xml"}}},
		{"bad default reasoning", `{}`, "models: [p/m]", CLI{Flags: map[string]string{"default-reasoning": "max"}}},
		{"bad override", `{}`, "models: [p/m]", CLI{Overrides: []string{"maxToolTurns=0"}}},
		{"schema file missing", `{}`, "models: [p/m]", CLI{Flags: map[string]string{"schema": "@/nonexistent/s.json"}}},
		{"negative cost", `{}`, "models: [p/m]", CLI{Flags: map[string]string{"max-cost-usd": "-1"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := resolveIn(t, tc.config, tc.header, tc.cli); !errors.Is(err, ErrConfig) {
				t.Errorf("err = %v, want ErrConfig", err)
			}
		})
	}
}

// TestFrontmatterBareInput: an input mapping without format, schema or
// schemaRef is a JSON Schema for a json input.
func TestFrontmatterBareInput(t *testing.T) {
	fm, err := ParseFrontmatter("input:\n  type: object\n  properties:\n    q: {type: string}", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if fm.Input == nil || fm.Input.Format != "json" || string(fm.Input.Schema) != `{"properties":{"q":{"type":"string"}},"type":"object"}` {
		t.Errorf("input = %+v", fm.Input)
	}
	if _, err := ParseFrontmatter("output:\n  type: object", t.TempDir()); !errors.Is(err, ErrConfig) {
		t.Errorf("a bare output schema: %v", err)
	}
}
