package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func noEnv(map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { return "", false }
}

func TestParseDuration(t *testing.T) {
	cases := map[string]time.Duration{
		"1500": 1500 * time.Millisecond, "90s": 90 * time.Second, "1.5m": 90 * time.Second,
		"2h": 2 * time.Hour, "1d": 24 * time.Hour, "1w": 7 * 24 * time.Hour, "1mo": 30 * 24 * time.Hour,
		"250ms": 250 * time.Millisecond, "0": 0, " 10S ": 10 * time.Second,
	}
	for in, want := range cases {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-5", "abc", "5x", "-1s"} {
		if _, err := ParseDuration(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("ParseDuration(%q) accepted", bad)
		}
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"90s", "1.5m", "100", "1mo", "3y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err == nil && d < 0 {
			t.Fatalf("negative duration %v from %q", d, s)
		}
	})
}

func TestParseEnvFile(t *testing.T) {
	env := ParseEnvFile("# comment\n\nexport A=1\nB = \"two words\" \nC='x'\nnoequals\nD=a=b\r\n")
	want := map[string]string{"A": "1", "B": "two words", "C": "x", "D": "a=b"}
	if len(env) != len(want) {
		t.Fatalf("env = %v", env)
	}
	for k, v := range want {
		if env[k] != v {
			t.Fatalf("%s = %q, want %q", k, env[k], v)
		}
	}
}

func TestLayersMergeAndPrecedence(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "cwd")
	home := filepath.Join(root, "home")
	sys := filepath.Join(root, "etc")
	cfg := filepath.Join(root, "explicit", "c.json")
	write(t, filepath.Join(sys, "ai-agent.json"), `{"providers":{"p":{"type":"openai","baseUrl":"sys","headers":{"A":"1"}}},"defaults":{"maxTurns":1}}`)
	write(t, filepath.Join(home, ".ai-agent", "ai-agent.json"), `{"providers":{"p":{"apiKey":"${KEY}"}},"defaults":{"maxTurns":2}}`)
	write(t, filepath.Join(home, ".ai-agent", "ai-agent.env"), "KEY=from-home-env\n")
	write(t, filepath.Join(cwd, ".ai-agent.json"), `{"providers":{"p":{"headers":{"B":"2"}}},"defaults":{"maxTurns":3,"list":[1]}}`)
	write(t, cfg, `{"defaults":{"maxTurns":4}}`)
	c, err := Load(Locations{ConfigFile: cfg, Cwd: cwd, Home: home, SystemDir: sys, Getenv: noEnv(nil)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.ProviderEntry("p")
	if err != nil {
		t.Fatal(err)
	}
	if p.Type != "openai" || p.BaseURL != "sys" || p.APIKey != "from-home-env" || p.Headers["A"] != "1" || p.Headers["B"] != "2" {
		t.Fatalf("merged provider = %+v", p)
	}
	d, _ := c.Defaults()
	if v, _ := ParseSetting("maxTurns", d["maxTurns"]); v.Int != 4 {
		t.Fatalf("maxTurns = %v", d["maxTurns"])
	}
}

func TestMissingVariableNamesLayer(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".ai-agent.json"), `{"providers":{"used":{"type":"openai","apiKey":"${NOPE}"},"unused":{"type":"openai","apiKey":"${ALSO_NOPE}"}},
		"restTools":{"r":{"url":"http://x/?q=${parameters.q}"}},"mcpServers":{"m":{"command":"x","env":{"T":"${UNSET_TOKEN}"},"args":["${MCP_ROOT}"]}}}`)
	c, err := Load(Locations{Cwd: root, SystemDir: filepath.Join(root, "none"), Getenv: noEnv(nil)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ProviderEntry("used")
	var mv *MissingVariableError
	if !errors.As(err, &mv) || mv.Var != "NOPE" || mv.Origin != OriginCwd || !errors.Is(err, ErrConfig) {
		t.Fatalf("want MissingVariableError naming cwd, got %v", err)
	}
	if !strings.Contains(err.Error(), "cwd") || !strings.Contains(err.Error(), "providers.used") {
		t.Fatalf("message = %v", err)
	}
	for _, entry := range [][]string{{"restTools", "r"}, {"mcpServers", "m"}} {
		if err := c.Check(entry...); err != nil {
			t.Fatalf("protected placeholder raised: %v", err)
		}
	}
	var m struct {
		Args []string          `json:"args"`
		Env  map[string]string `json:"env"`
	}
	if err := c.Decode(&m, "mcpServers", "m"); err != nil {
		t.Fatal(err)
	}
	if m.Args[0] != root || m.Env["T"] != "${UNSET_TOKEN}" {
		t.Fatalf("mcp entry = %+v", m)
	}
}

func TestLoadErrors(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "array.json"), `[1,2]`)
	write(t, filepath.Join(root, "bad.json"), `{`)
	for _, f := range []string{"array.json", "bad.json", "missing.json"} {
		_, err := Load(Locations{ConfigFile: filepath.Join(root, f), SystemDir: root})
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), f) {
			t.Errorf("%s: err = %v", f, err)
		}
	}
}

func TestScenarioFileRelativeToLayer(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "sub", "c.json")
	write(t, cfg, `{"providers":{"t":{"type":"test-llm","scenarioFile":"s.json"}}}`)
	c, err := Load(Locations{ConfigFile: cfg, SystemDir: root})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := c.ProviderEntry("t")
	if p.ScenarioFile != filepath.Join(root, "sub", "s.json") {
		t.Fatalf("scenarioFile = %s", p.ScenarioFile)
	}
}

// TestOpenAPISources: "openapi:NAME" selects openapiSpecs.NAME, whose
// relative spec path is its layer's; an unknown name or an unresolved
// variable in the entry fails.
func TestOpenAPISources(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "sub", "c.json")
	write(t, cfg, `{"openapiSpecs":{
		"pets":{"spec":"specs/pets.yaml","headers":{"X-Key":"${PETS_KEY}"}},
		"far":{"spec":"/abs/far.json"},
		"web":{"spec":"https://example.com/spec.json"},
		"broken":{"spec":"b.json","headers":{"X-Key":"${NOPE}"}}},
		"restTools":{"echo":{"url":"http://h"}}}`)
	getenv := func(k string) (string, bool) { return map[string]string{"PETS_KEY": "k-1"}[k], k == "PETS_KEY" }
	c, err := Load(Locations{ConfigFile: cfg, SystemDir: root, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := c.ToolSources([]string{"echo", "openapi:pets", "openapi:far", "openapi:web"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"headers":{"X-Key":"k-1"},"spec":"` + filepath.Join(root, "sub", "specs", "pets.yaml") + `"}`,
		`{"spec":"/abs/far.json"}`,
		`{"spec":"https://example.com/spec.json"}`,
	}
	if len(ts.OpenAPI) != len(want) || len(ts.REST) != 1 {
		t.Fatalf("sources %+v", ts)
	}
	for i, w := range want {
		if string(ts.OpenAPI[i].JSON) != w {
			t.Errorf("entry %d = %s, want %s", i, ts.OpenAPI[i].JSON, w)
		}
	}
	if _, err := c.ToolSources([]string{"openapi:nope"}); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("unknown spec: %v", err)
	}
	var mv *MissingVariableError
	if _, err := c.ToolSources([]string{"openapi:broken"}); !errors.As(err, &mv) || mv.Var != "NOPE" {
		t.Errorf("unresolved variable: %v", err)
	}
}

func TestSplitFrontmatter(t *testing.T) {
	cases := []struct{ in, header, body string }{
		{"#!/usr/bin/env ai-agent\n---\na: 1\n---\nbody\n", "a: 1", "body\n"},
		{"---\r\na: 1\r\n---\r\nbody", "a: 1\r", "body"},
		{"no header", "", "no header"},
		{"---\nunterminated", "", "---\nunterminated"},
	}
	for _, tc := range cases {
		h, b, _ := SplitFrontmatter(tc.in)
		if h != tc.header || b != tc.body {
			t.Errorf("SplitFrontmatter(%q) = %q, %q", tc.in, h, b)
		}
	}
}

func FuzzSplitFrontmatter(f *testing.F) {
	f.Add("---\na: 1\n---\nbody")
	f.Fuzz(func(t *testing.T, s string) {
		h, b, ok := SplitFrontmatter(s)
		if ok && len(h)+len(b) > len(s) {
			t.Fatalf("split longer than input")
		}
		if ok {
			_, _ = ParseFrontmatter(h, ".")
		}
	})
}

func TestParseFrontmatter(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "s.yaml"), "type: object\nrequired: [a]\n")
	good := "description: d\nmodels: a/b, c/d\ntools: [fs, batch]\nmaxTurns: 8\ntemperature: none\nllmTimeout: 90s\noutput:\n  format: json\n  schemaRef: s.yaml\ncache: 5m\nplugins: x\ntoolOutput: {enabled: true, maxChunks: 3}\n"
	fm, err := ParseFrontmatter(good, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(fm.Models) != 2 || fm.Tools[1] != "batch" || fm.Output.Format != "json" || !strings.Contains(string(fm.Output.Schema), `"required"`) || len(fm.Warnings) != 1 ||
		fm.Cache != 5*time.Minute || !fm.CacheSet || fm.ToolOutput == nil || !*fm.ToolOutput.Enabled || *fm.ToolOutput.MaxChunks != 3 {
		t.Fatalf("frontmatter = %+v", fm)
	}
	bad := map[string]string{
		"unknown key":     "nope: 1",
		"runtime key":     "stream: true",
		"bad range":       "maxTurns: 0",
		"wrong type":      "maxTurns: many",
		"bad yaml":        "a: [",
		"bad schemaRef":   "output: {format: json, schemaRef: missing.json}",
		"bad format":      "output: {format: xml}",
		"not mapping":     "- a\n- b",
		"bad temperature": "temperature: 3",
		"bad cache":       "cache: soon",
		"bad toolOutput":  "toolOutput: {maxChunks: 0}",
		"toolOutput typo": "toolOutput: {enable: true}",
		"toolOutput list": "toolOutput: [1]",
	}
	for name, h := range bad {
		if _, err := ParseFrontmatter(h, dir); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: accepted (%v)", name, err)
		}
	}
}

func TestSourcesPrecedence(t *testing.T) {
	s := Sources{
		Override:    map[string]string{"maxTurns": "1"},
		CLI:         map[string]string{"maxTurns": "2", "temperature": "unset"},
		Frontmatter: map[string]any{"maxTurns": 3, "topP": 0.5},
		Defaults:    map[string]any{"maxTurns": 4, "topK": 7},
	}
	checks := []struct {
		key  string
		want Value
	}{{"maxTurns", Value{Int: 1}}, {"temperature", Value{Unset: true}}, {"topP", Value{Float: 0.5}}, {"topK", Value{Int: 7}}}
	for _, c := range checks {
		got, ok, err := s.Resolve(c.key)
		if err != nil || !ok || got != c.want {
			t.Errorf("%s = %+v %v %v", c.key, got, ok, err)
		}
	}
	if _, ok, _ := s.Resolve("maxRetries"); ok {
		t.Errorf("unset option resolved")
	}
}

func TestParseOverride(t *testing.T) {
	for _, ok := range []string{"maxTurns=3", "models=a/b", "no-batch=true", "temperature=off"} {
		if _, _, err := ParseOverride(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"maxTurns", "nope=1", "maxTurns=0", "=1"} {
		if _, _, err := ParseOverride(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("%s accepted", bad)
		}
	}
}

func FuzzParseEnvFile(f *testing.F) {
	f.Add("A=1\nexport B='two'\n# c\n")
	f.Fuzz(func(t *testing.T, s string) {
		for k := range ParseEnvFile(s) {
			if k == "" || strings.ContainsAny(k, "\n") {
				t.Fatalf("bad key %q", k)
			}
		}
	})
}

func FuzzParseSetting(f *testing.F) {
	f.Add("llmTimeout", "90s")
	f.Add("temperature", "unset")
	f.Add("maxTurns", "7")
	f.Fuzz(func(t *testing.T, key, val string) {
		v, err := ParseSetting(key, val)
		if err == nil && (v.Dur < 0 || v.Int < 0 || v.Float < 0) {
			t.Fatalf("ParseSetting(%q, %q) = %+v", key, val, v)
		}
	})
}

func TestProviderWindow(t *testing.T) {
	n := func(v int) *int { return &v }
	p := Provider{ContextWindow: n(32000), Tokenizer: "approx", Models: map[string]Model{
		"big":  {ContextWindow: n(200000), ContextWindowBufferTokens: n(0), Tokenizer: "tiktoken"},
		"same": {},
	}}
	for _, tc := range []struct {
		model       string
		window, buf int
		tok         string
	}{
		{"big", 200000, 0, "tiktoken"},
		{"same", 32000, 500, "approx"},
		{"other", 32000, 500, "approx"},
	} {
		w, b, tok := p.Window(tc.model, 500)
		if w != tc.window || b != tc.buf || tok != tc.tok {
			t.Errorf("Window(%q) = %d, %d, %q; want %d, %d, %q", tc.model, w, b, tok, tc.window, tc.buf, tc.tok)
		}
	}
	if w, b, _ := (Provider{}).Window("m", DefaultBufferTokens); w != DefaultContextWindow || b != DefaultBufferTokens {
		t.Errorf("defaults: %d, %d", w, b)
	}
}
