package wire

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/llm"
)

func TestBound(t *testing.T) {
	for _, tc := range []struct {
		name     string
		timeout  time.Duration
		deadline bool
	}{
		{"no timeout", 0, false},
		{"timeout", time.Hour, true},
	} {
		ctx, cancel := Endpoint{Timeout: tc.timeout}.Bound(context.Background())
		d, ok := ctx.Deadline()
		if ok != tc.deadline || (ok && time.Until(d) > tc.timeout) {
			t.Errorf("%s: deadline %v, %v", tc.name, d, ok)
		}
		cancel()
		if tc.deadline && ctx.Err() == nil {
			t.Errorf("%s: cancel did not end the context", tc.name)
		}
	}
}

func TestFunctionTools(t *testing.T) {
	for _, tc := range []struct {
		name string
		defs []llm.ToolDef
		want string
	}{
		{"none", nil, `null`},
		{"schema kept", []llm.ToolDef{{Name: "fs__read", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object","required":["path"]}`)}},
			`[{"type":"function","function":{"name":"fs__read","description":"Read a file","parameters":{"type":"object","required":["path"]}}}]`},
		{"no schema, no description", []llm.ToolDef{{Name: "agent__final_report"}},
			`[{"type":"function","function":{"name":"agent__final_report","parameters":{"type":"object","properties":{}}}}]`},
	} {
		got, err := json.Marshal(FunctionTools(tc.defs))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
