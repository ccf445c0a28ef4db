package mcpserver

import (
	"context"
	"encoding/json"
	"testing"
)

// FuzzParseTool feeds arbitrary logs to the parse tool and checks that it
// never fails and that its output always matches its published schema
// (which the SDK enforces: a mismatch would be a protocol error).
func FuzzParseTool(f *testing.F) {
	for _, s := range []string{goBuildLog, "", "\x00\xff", "main.go:0:0: x\n", "error[E0425]: cannot find value `x`\n --> src/main.rs:2:5\n",
		"Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\nNameError: name 'x' is not defined\n"} {
		f.Add(s)
	}
	resolved, err := mustSchema[ParseOutput]().Resolve(nil)
	if err != nil {
		f.Fatal(err)
	}
	s := New(Options{})
	f.Fuzz(func(t *testing.T, log string) {
		_, out, err := s.parse(context.Background(), nil, ParseInput{Log: log})
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(v); err != nil {
			t.Fatalf("output %s does not match the schema: %v", b, err)
		}
		if out.Count != len(out.Reports) {
			t.Fatalf("count %d, %d reports", out.Count, len(out.Reports))
		}
	})
}
