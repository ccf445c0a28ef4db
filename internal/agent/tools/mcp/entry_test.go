package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDecodeEntry(t *testing.T) {
	tests := []struct {
		name        string
		entry       string
		wantEnabled bool
		check       func(ServerConfig) bool
		wantErr     bool
	}{
		{name: "stdio", entry: `{"command":"npx","args":["-y","srv"],"env":{"T":"${X}"},"toolsDenied":["w*"],"queue":"io","cache":"ignored"}`, wantEnabled: true,
			check: func(c ServerConfig) bool {
				return c.Command == "npx" && slices.Equal(c.Args, []string{"-y", "srv"}) && c.Env["T"] == "${X}" && c.Queue == "io" && c.ToolsDenied[0] == "w*"
			}},
		{name: "http", entry: `{"type":"http","url":"http://h/mcp","headers":{"A":"b"}}`, wantEnabled: true,
			check: func(c ServerConfig) bool { return c.Type == "http" && c.URL == "http://h/mcp" && c.Headers["A"] == "b" }},
		{name: "disabled", entry: `{"command":"x","enabled":false}`, check: func(c ServerConfig) bool { return c.Command == "x" && c.HealthProbe == ProbePing }},
		{name: "request timeout and probe", entry: `{"command":"x","requestTimeoutMs":1500.9,"healthProbe":"listtools","shared":true}`, wantEnabled: true,
			check: func(c ServerConfig) bool {
				return c.RequestTimeout == 1500*time.Millisecond && c.HealthProbe == ProbeListTools
			}},
		{name: "request timeout ignored unless positive", entry: `{"command":"x","requestTimeoutMs":-5,"healthProbe":7}`, wantEnabled: true,
			check: func(c ServerConfig) bool { return c.RequestTimeout == 0 && c.HealthProbe == ProbePing }},
		{name: "request timeout not a number", entry: `{"command":"x","requestTimeoutMs":"5000"}`, wantEnabled: true,
			check: func(c ServerConfig) bool { return c.RequestTimeout == 0 }},
		{name: "not an object", entry: `[1]`, wantErr: true},
		{name: "wrong type", entry: `{"args":"x"}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, enabled, err := DecodeEntry("s", json.RawMessage(tt.entry))
			if tt.wantErr {
				if !errors.Is(err, ErrStart) {
					t.Fatalf("error = %v, want a StartError", err)
				}
				return
			}
			if err != nil || enabled != tt.wantEnabled || cfg.Name != "s" || !tt.check(cfg) {
				t.Fatalf("DecodeEntry = %+v, %v, %v", cfg, enabled, err)
			}
		})
	}
}

func TestExpander(t *testing.T) {
	env := map[string]string{"A": "1", "TOKEN": "s3"}
	x := Expander(func(k string) string { return env[k] })
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"${A}", "1"},
		{"Bearer ${TOKEN}!", "Bearer s3!"},
		{"${A}${A}-${MISSING}-", "11--"},
		{"$A stays", "$A stays"},
		{"unclosed ${A", "unclosed ${A"},
	}
	for _, tt := range tests {
		if got := x(tt.in); got != tt.want {
			t.Errorf("expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if Expander(nil) != nil {
		t.Fatal("Expander(nil) is not nil")
	}
}

// TestStartEntry starts the mcptest helper from a config entry, as
// cmd/ai-agent does, with its env placeholder filled from the merged
// environment.
func TestStartEntry(t *testing.T) {
	entry, _ := json.Marshal(map[string]any{"command": helperConfig("t", "1").Command, "env": map[string]string{helperEnv: "1", "SECRET": "${FS_TOKEN}"}, "toolsAllowed": []string{"env", "echo"}})
	p, err := StartEntry(context.Background(), "t", entry, Options{Expand: Expander(func(k string) string {
		if k == "FS_TOKEN" {
			return "tok"
		}
		return ""
	})})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if names := len(p.Tools()); names != 2 {
		t.Fatalf("tools %v, want echo and env only", p.Tools())
	}
	res, err := p.Call(context.Background(), "t__env", nil)
	if err != nil || !strings.Contains(res.Text, "SECRET=tok") {
		t.Fatalf("env = %q, %v", res.Text, err)
	}
}

// FuzzDecodeEntry reads arbitrary config entries: DecodeEntry never panics,
// and every failure is a StartError at the config stage.
func FuzzDecodeEntry(f *testing.F) {
	for _, s := range []string{`{"command":"x"}`, `{"url":"http://h","enabled":false}`, `[]`, `{"env":{"A":1}}`, `null`, `{"args":["a",null]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, entry string) {
		cfg, _, err := DecodeEntry("s", json.RawMessage(entry))
		var se *StartError
		if err != nil && (!errors.As(err, &se) || se.Stage != StageConfig || se.Server != "s") {
			t.Fatalf("DecodeEntry(%q) error = %v", entry, err)
		}
		if err == nil && cfg.Name != "s" {
			t.Fatalf("DecodeEntry(%q) name = %q", entry, cfg.Name)
		}
	})
}
