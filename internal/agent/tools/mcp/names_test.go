package mcp

import (
	"errors"
	"testing"
)

func TestExposedName(t *testing.T) {
	tests := []struct{ server, tool, want string }{
		{"fs", "read_file", "fs__read_file"},
		{"everything", "get-sum", "everything__get-sum"},
		{"my.server", "tool/with spaces", "my_server__tool_with_spaces"},
		{"s", "ünïcode", "s___n_code"},
		{"", "x", "__x"},
	}
	for _, tt := range tests {
		if got := ExposedName(tt.server, tt.tool); got != tt.want {
			t.Errorf("ExposedName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
		}
	}
}

func TestFilter(t *testing.T) {
	tests := []struct {
		name            string
		allowed, denied []string
		tool            string
		want            bool
	}{
		{name: "no lists allow all", tool: "x", want: true},
		{name: "empty allow list allows all", allowed: []string{}, tool: "x", want: true},
		{name: "star allows all", allowed: []string{"*"}, tool: "x", want: true},
		{name: "any allows all", allowed: []string{"any"}, tool: "x", want: true},
		{name: "exact allow", allowed: []string{"read_file"}, tool: "read_file", want: true},
		{name: "not in allow list", allowed: []string{"read_file"}, tool: "write_file", want: false},
		{name: "glob allow", allowed: []string{"read_*"}, tool: "read_text_file", want: true},
		{name: "glob allow misses", allowed: []string{"read_*"}, tool: "list_directory", want: false},
		{name: "deny wins over allow", allowed: []string{"*"}, denied: []string{"write_file"}, tool: "write_file", want: false},
		{name: "deny glob", denied: []string{"*_file"}, tool: "write_file", want: false},
		{name: "deny glob misses", denied: []string{"*_file"}, tool: "list_directory", want: true},
		{name: "deny star denies all", denied: []string{"*"}, tool: "x", want: false},
		{name: "malformed pattern matches itself", allowed: []string{"a[b"}, tool: "a[b", want: true},
		{name: "malformed pattern matches nothing else", allowed: []string{"a[b"}, tool: "ab", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Filter{Allowed: tt.allowed, Denied: tt.denied}).Allows(tt.tool); got != tt.want {
				t.Fatalf("Allows(%q) = %v, want %v", tt.tool, got, tt.want)
			}
		})
	}
}

func TestSelect(t *testing.T) {
	all := map[string]ServerConfig{"b": {Command: "b"}, "a": {Command: "a"}, "c": {URL: "http://x"}}
	tests := []struct {
		names   []string
		want    []string
		wantErr bool
	}{
		{names: []string{"all"}, want: []string{"a", "b", "c"}},
		{names: []string{" ALL "}, want: []string{"a", "b", "c"}},
		{names: []string{"c", "a", "c"}, want: []string{"c", "a"}},
		{names: []string{"a", "zz"}, wantErr: true},
	}
	for _, tt := range tests {
		got, err := Select(all, tt.names)
		if tt.wantErr {
			if !errors.Is(err, ErrUnknownServer) {
				t.Errorf("Select(%v) error = %v, want ErrUnknownServer", tt.names, err)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) {
			t.Fatalf("Select(%v) = %v, %v", tt.names, got, err)
		}
		for i := range got {
			if got[i].Name != tt.want[i] {
				t.Errorf("Select(%v)[%d] = %s, want %s", tt.names, i, got[i].Name, tt.want[i])
			}
		}
	}
}

func TestTransportType(t *testing.T) {
	tests := []struct {
		cfg     ServerConfig
		want    string
		wantErr bool
	}{
		{cfg: ServerConfig{Command: "x"}, want: TypeStdio},
		{cfg: ServerConfig{URL: "http://h/mcp"}, want: TypeHTTP},
		{cfg: ServerConfig{Type: "SSE", URL: "http://h/sse"}, want: TypeSSE},
		{cfg: ServerConfig{Type: "websocket", URL: "ws://h"}, want: TypeWebSocket},
		{cfg: ServerConfig{Type: "websocket"}, wantErr: true},
		{cfg: ServerConfig{Type: "stdio"}, wantErr: true},
		{cfg: ServerConfig{Type: "http"}, wantErr: true},
		{cfg: ServerConfig{Type: "grpc", URL: "x"}, wantErr: true},
		{cfg: ServerConfig{}, wantErr: true},
	}
	for _, tt := range tests {
		got, err := tt.cfg.transport()
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("transport(%+v) = %q, %v; want %q, err %v", tt.cfg, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestChildEnv(t *testing.T) {
	parent := map[string]string{"HOME": "/h", "PATH": "/bin", "USER": "u", "SECRET_TOKEN": "s3cr3t", "LANG": "C"}
	lookup := func(k string) (string, bool) { v, ok := parent[k]; return v, ok }
	cfg := ServerConfig{Env: map[string]string{"TOKEN": "${FS_TOKEN}", "PATH": "/override"}}
	expand := func(s string) string {
		if s == "${FS_TOKEN}" {
			return "tok"
		}
		return s
	}
	got := childEnv(cfg, Options{LookupEnv: lookup, Expand: expand})
	want := []string{"HOME=/h", "PATH=/override", "TOKEN=tok", "USER=u"}
	if len(got) != len(want) {
		t.Fatalf("childEnv = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("childEnv = %v, want %v", got, want)
		}
	}
}
