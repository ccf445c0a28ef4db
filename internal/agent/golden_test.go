package agent

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/agent/tools"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run go test -update): %v", err)
	}
	if string(want) != got {
		t.Fatalf("%s differs from the golden file:\n%s", name, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines that differ, with their numbers.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var lw, lg string
		if i < len(w) {
			lw = w[i]
		}
		if i < len(g) {
			lg = g[i]
		}
		if lw != lg {
			b.WriteString("line " + itoa(i+1) + ":\n- " + lw + "\n+ " + lg + "\n")
		}
	}
	return b.String()
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestGoldenXMLMessages(t *testing.T) {
	spec := &toolSpec{Tool: tools.Tool{Name: "fs__read_file", Description: "Read a file\n  from disk.",
		InputSchema: json.RawMessage(`{"type": "object", "properties": {"path": {"type": "string"}}}`)}}
	var b strings.Builder
	b.WriteString("== xml, turn 2\n")
	b.WriteString(renderXMLNext(xmlNextInput{Nonce: "3f9a0c1e", Turn: 2, MaxTurns: 5, Format: FormatMarkdown,
		Slots: slotsForTurn(2, 3), Tools: []*toolSpec{spec}, Progress: true}))
	b.WriteString("== xml, final turn\n")
	b.WriteString(renderXMLNext(xmlNextInput{Nonce: "3f9a0c1e", Turn: 5, MaxTurns: 5, Format: FormatMarkdown, Final: true,
		Slots: slotsForTurn(5, 3), Tools: []*toolSpec{spec}, Progress: true}))
	b.WriteString("== xml-final, json\n")
	b.WriteString(renderXMLNext(xmlNextInput{Nonce: "3f9a0c1e", Turn: 1, MaxTurns: 5, Format: FormatJSON, Schema: `{"type":"object"}`}))
	b.WriteString("== xml-past\n")
	b.WriteString(renderXMLPast([]xmlPastBlock{
		{SlotID: "3f9a0c1e-0004", Tool: "fs__read_file", Status: "ok", Seconds: 0.04, Request: `{"path":"a.txt"}`, Response: "hello"},
		{SlotID: "3f9a0c1e-0005", Tool: "fs__read_file", Status: "failed", Seconds: 1.5, Request: `{"path":"b.txt"}`, Response: "(tool failed: timeout)"},
	}))
	b.WriteString("\n== native final report schema, json\n")
	b.WriteString(string(finalReportSchema(FormatJSON, json.RawMessage(`{"type":"object","required":["a"]}`))) + "\n")
	golden(t, "xml-messages.golden", b.String())
}
