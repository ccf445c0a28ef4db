package contract_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sv "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/salve-dev/salve/contract"
)

var update = flag.Bool("update", false, "rewrite the schema files from the Go types")

// typeSchemas overrides what the generator cannot see: json.RawMessage holds
// any JSON value, and a nil map encodes as null.
var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {},
	reflect.TypeFor[map[string]any]():  {Types: []string{"null", "object"}},
}

// generate builds the schema of v's type the same way every time.
func generate(t *testing.T, name string, v any) []byte {
	t.Helper()
	s, err := jsonschema.ForType(reflect.TypeOf(v), &jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		t.Fatalf("generate %s: %v", name, err)
	}
	s.Schema = "https://json-schema.org/draft/2020-12/schema"
	s.Title = name
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatalf("marshal %s: %v", name, err)
	}
	return append(b, '\n')
}

// TestSchemasMatchTypes regenerates every schema from its Go type and fails
// when the committed file differs. Run with -update to rewrite them.
func TestSchemasMatchTypes(t *testing.T) {
	for _, name := range contract.SchemaNames() {
		t.Run(name, func(t *testing.T) {
			want := generate(t, name, contract.SchemaTypes[name])
			path := filepath.Join("schema", name+".json")
			if *update {
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			got, err := contract.Schema(name)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("schema/%s.json is stale against the Go type; run go test ./contract -update", name)
			}
		})
	}
}

func compile(t *testing.T, name string) *sv.Schema {
	t.Helper()
	raw, err := contract.Schema(name)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sv.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := sv.NewCompiler()
	if err := c.AddResource(name+".json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name + ".json")
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	return s
}

func validate(t *testing.T, s *sv.Schema, v any) error {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := sv.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(inst)
}

func ptr[T any](v T) *T { return &v }

// TestSchemasAcceptTypes encodes a populated value of each type and checks
// that its schema accepts it, so the schemas describe what the types write.
func TestSchemasAcceptTypes(t *testing.T) {
	samples := map[string]any{
		"ActionResponse": contract.ActionResponse{
			RequestID: "f5e93cc3-5d6f-4e9e-88a2-2f10e1bf7a21", Status: contract.StatusError, Code: 1,
			Result: &contract.ActionResult{OutputType: contract.OutputError, Data: "fatal", Metadata: map[string]any{"exit_code": 128}},
			PlanID: ptr("p"),
		},
		"ToolRunResultV1": contract.ToolRunResultV1{ToolID: "aider", ExitCode: -1, TimedOut: true, StartedAt: "2025-12-07T01:00:00.000Z"},
		"BugReport": contract.BugReport{FilePath: "a/b.go", LineNumber: 3, ErrorType: contract.ErrImport, Message: "m",
			ConfidenceScore: ptr(0.9), Column: 2, Tool: "go"},
		"AIAgentResult": contract.AIAgentResult{Success: true,
			FinalReport:  &contract.FinalReport{Status: "success", Format: "json", ContentJSON: json.RawMessage(`{"a":1}`), TS: 1},
			Conversation: []contract.Message{{Role: "assistant", ToolCalls: []contract.ToolCall{{ID: "c", Name: "t", Parameters: json.RawMessage(`{}`)}}}},
			Accounting:   []contract.AccountingEntry{{Type: "tool", Status: "ok", CharactersIn: ptr(3), CharactersOut: ptr(0)}},
		},
		"ExecutorOutput": contract.ExecutorOutput{ExitCode: 124, EnvironmentMetadata: contract.EnvironmentMetadata{
			RuntimeVersions: map[string]string{"go": "1.26"}, DetectedTools: []string{"go"}, TimedOut: true}},
	}
	for name, v := range samples {
		t.Run(name, func(t *testing.T) {
			if err := validate(t, compile(t, name), v); err != nil {
				t.Errorf("schema rejects its own type's encoding: %v", err)
			}
		})
	}
}

// TestSchemaRejects shows that the schemas are not vacuous: wrong types and
// missing required fields fail.
func TestSchemaRejects(t *testing.T) {
	s := compile(t, "ActionResponse")
	bad := []string{
		`{"request_id":"x","status":"success","code":"0","result":null,"error":null,"plan_id":null,"task_id":null,"correlation_id":null,"api_version":null}`,
		`{"status":"success","code":0}`,
		`[]`,
	}
	for _, doc := range bad {
		inst, err := sv.UnmarshalJSON(bytes.NewReader([]byte(doc)))
		if err != nil {
			t.Fatal(err)
		}
		if s.Validate(inst) == nil {
			t.Errorf("ActionResponse schema accepted %s", doc)
		}
	}
}

func TestToolRunResultSuccessDerived(t *testing.T) {
	for _, tc := range []struct {
		code int
		want bool
	}{{0, true}, {1, false}, {-1, false}, {-4, false}} {
		b, err := json.Marshal(contract.ToolRunResultV1{ExitCode: tc.code, Success: !tc.want})
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m["success"] != tc.want {
			t.Errorf("exit %d: success = %v, want %v", tc.code, m["success"], tc.want)
		}
		var back contract.ToolRunResultV1
		if err := json.Unmarshal([]byte(`{"exit_code":`+string(rune('0'+max(tc.code, 0)))+`,"success":true}`), &back); err != nil {
			t.Fatal(err)
		}
		if back.Success != (back.ExitCode == 0) {
			t.Errorf("decoded success %v for exit %d", back.Success, back.ExitCode)
		}
	}
}

func TestBugReportString(t *testing.T) {
	r := contract.BugReport{FilePath: "pkg/a.go", LineNumber: 12, Column: 4, ErrorType: contract.ErrTypeError,
		Message: "undefined: x\nmore", Tool: "go", TestName: ptr("TestA")}
	want := "pkg/a.go:12:4: TYPE_ERROR undefined: x [go] (test TestA)"
	if got := r.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestErrorTypes(t *testing.T) {
	if len(contract.ErrorTypes) != 6 {
		t.Fatalf("want the six seed types, have %d", len(contract.ErrorTypes))
	}
	if contract.ErrorType("BOGUS").Valid() || !contract.ErrLogic.Valid() {
		t.Error("Valid() is wrong")
	}
}
