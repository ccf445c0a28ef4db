package subagent

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestToolSchemaGolden pins the tool definitions offered to the model for a
// text agent and a json agent.
func TestToolSchemaGolden(t *testing.T) {
	run := (&fakeRunner{res: success("x")}).run
	tests := []struct {
		golden string
		agent  Agent
	}{
		{golden: "text_agent.golden", agent: Agent{Name: "reviewer", Description: "Reviews a change.", Run: run}},
		{golden: "json_agent.golden", agent: Agent{Name: "calc", InputFormat: "json", Run: run,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["b","a"]}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			p, err := New(Root("main"), []Agent{tt.agent}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			tl := p.Tools()[0]
			var out bytes.Buffer
			out.WriteString(tl.Name + " (" + tl.Server + "): " + tl.Description + "\n")
			if err := json.Indent(&out, tl.InputSchema, "", "  "); err != nil {
				t.Fatal(err)
			}
			out.WriteString("\n")
			path := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Fatalf("schema differs from %s:\n got:\n%s\nwant:\n%s", path, out.Bytes(), want)
			}
		})
	}
}

// FuzzCall sends arbitrary argument text (it comes from a model) to a
// sub-agent tool: Call never panics, and the runner is called only for
// arguments that passed validation, with a prompt.
func FuzzCall(f *testing.F) {
	for _, s := range []string{`{"prompt":"p"}`, `{}`, `{"prompt":1}`, `[]`, `{"prompt":"x","format":"sub-agent"}`, `nope`} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, args string, jsonInput bool) {
		fr := &fakeRunner{res: success("ok")}
		a := Agent{Name: "a", Run: fr.run}
		if jsonInput {
			a.InputFormat = "json"
			a.InputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
		}
		p, err := New(Root("main"), []Agent{a}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Call(context.Background(), "agent__a", json.RawMessage(args))
		if err != nil {
			if len(fr.prompts) != 0 {
				t.Fatalf("runner called for rejected arguments %q", args)
			}
			return
		}
		if len(fr.prompts) != 1 || res.Text != "ok" {
			t.Fatalf("accepted %q but runner calls %v, result %+v", args, fr.prompts, res)
		}
	})
}
