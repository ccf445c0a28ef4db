package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/agent/tools/toolschema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from %s:\n%s", path, lineDiff(string(want), string(got)))
	}
}

// lineDiff shows the first differing lines.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + itoa(i+1) + ":\n- " + wl + "\n+ " + gl
		}
	}
	return "(no line differs)"
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestWriteToolList(t *testing.T) {
	listings := []Listing{
		{Server: "fs", Tools: []tools.Tool{
			{Name: "fs__read_file", LocalName: "read_file", Description: "Read a file.\nSecond line.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "fs__old", LocalName: "old", Description: "Draft-04 style.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true}}}`)},
		}},
		{Server: "empty"},
	}
	tests := []struct {
		name, golden, draft string
		wantSum             Summary
	}{
		{name: "plain", golden: "list_tools.golden"},
		{name: "draft-07", golden: "list_tools_draft07.golden", draft: "draft7", wantSum: Summary{Passed: 1, Total: 2}},
		{name: "draft-04", golden: "list_tools_draft04.golden", draft: "draft-04", wantSum: Summary{Passed: 2, Total: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var draft *toolschema.Draft
			if tt.draft != "" {
				d, err := toolschema.ParseDraft(tt.draft)
				if err != nil {
					t.Fatal(err)
				}
				draft = &d
			}
			var out bytes.Buffer
			sum, err := WriteToolList(&out, listings, draft)
			if err != nil || sum != tt.wantSum {
				t.Fatalf("summary %+v, %v; want %+v", sum, err, tt.wantSum)
			}
			golden(t, tt.golden, out.Bytes())
		})
	}
}

// TestListTools runs --list-tools against real servers: the mcptest server
// with an uncompilable schema (listed, then FAIL under --schema-validate:
// exit 5 class) and one that cannot start (exit 3 class, the others still
// listed).
func TestListTools(t *testing.T) {
	tests := []struct {
		name      string
		cfgs      []ServerConfig
		draft     string
		golden    string
		wantStart bool
		wantCheck bool
	}{
		{name: "lists without checks", cfgs: []ServerConfig{helperConfig("t", "badschema")}, golden: "list_tools_mcptest.golden"},
		{name: "schema check fails", cfgs: []ServerConfig{helperConfig("t", "badschema")}, draft: "2020-12", golden: "list_tools_mcptest_2020.golden", wantCheck: true},
		{name: "a server fails to start", cfgs: []ServerConfig{{Name: "gone", Command: "salve-no-such-mcp-server"}, helperConfig("t", "badschema")}, golden: "list_tools_mcptest.golden", wantStart: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := ListTools(context.Background(), &out, tt.cfgs, tt.draft, Options{})
			if errors.Is(err, ErrStart) != tt.wantStart || errors.Is(err, ErrSchemaCheckFailed) != tt.wantCheck {
				t.Fatalf("ListTools error = %v, want start=%v check=%v", err, tt.wantStart, tt.wantCheck)
			}
			if tt.wantCheck && !errors.Is(err, toolschema.ErrSchema) {
				t.Fatalf("failed check %v does not wrap toolschema.ErrSchema", err)
			}
			golden(t, tt.golden, out.Bytes())
		})
	}
	if err := ListTools(context.Background(), &bytes.Buffer{}, nil, "draft-99", Options{}); !errors.Is(err, toolschema.ErrSchema) {
		t.Fatalf("unknown draft error = %v", err)
	}
}
