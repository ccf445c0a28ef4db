package schemacheck

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

func TestValidate(t *testing.T) {
	const obj = `{"type":"object","properties":{"n":{"type":"integer","minimum":1},"s":{"type":"string"}},"required":["n"],"additionalProperties":false}`
	tests := []struct {
		schema, doc string
		wantErr     string // substring; empty: valid
	}{
		{obj, `{"n":3,"s":"x"}`, ""},
		{obj, `{"n":12345678901234567890}`, ""},
		{obj, `{"s":"x"}`, "required"},
		{obj, `{"n":0}`, "minimum"},
		{obj, `{"n":1,"x":1}`, "additional properties"},
		{obj, `{"n":1.5}`, "type"},
		{obj, `[1]`, "type"},
		{obj, `{"n":1} {}`, "more than one value"},
		{obj, `{"n":`, "not JSON"},
		{`true`, `{"anything":[1,2]}`, ""},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"string"}`, `"x"`, ""},
		{`{"$defs":{"p":{"type":"string"}},"type":"object","properties":{"a":{"$ref":"#/$defs/p"}}}`, `{"a":1}`, "type"},
	}
	for _, tt := range tests {
		s, err := Compile([]byte(tt.schema))
		if err != nil {
			t.Fatalf("Compile(%s): %v", tt.schema, err)
		}
		err = s.ValidateJSON([]byte(tt.doc))
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s against %s: %v", tt.doc, tt.schema, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s against %s: error %v, want one with %q", tt.doc, tt.schema, err, tt.wantErr)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for _, raw := range []string{
		`{"type":`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`,
		`{"$ref":"https://example.invalid/remote.json"}`,
		`{"$ref":"#/$defs/missing"}`,
		`{"type":"object","properties":{"a":{"pattern":"("}}}`,
	} {
		if _, err := Compile([]byte(raw)); !errors.Is(err, ErrSchema) {
			t.Errorf("Compile(%s) = %v, want ErrSchema", raw, err)
		}
	}
}

// TestContractSchemasCompile: every schema salve validates its own objects
// against is one this package reads.
func TestContractSchemasCompile(t *testing.T) {
	for _, name := range []string{"ActionResponse", "FixResult", "BugReport", "ActionRequest"} {
		raw, err := contract.Schema(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Compile(raw); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestJSONNumbers: values decoded with UseNumber validate as numbers, and
// the caller's value is left as it was.
func TestJSONNumbers(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}},"o":{"type":"object","properties":{"x":{"type":"number"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v := map[string]any{"a": []any{json.Number("1"), json.Number("2")}, "o": map[string]any{"x": json.Number("1.5")}, "s": "x"}
	if err := s.Validate(v); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if _, ok := v["a"].([]any)[0].(json.Number); !ok {
		t.Error("the caller's value was changed")
	}
	v["a"] = []any{json.Number("1.5")}
	if err := s.Validate(v); err == nil {
		t.Error("1.5 accepted as an integer")
	}
}

// FuzzValidate: a reply from a model or an agent, valid JSON or not, is
// decoded and validated without a panic.
func FuzzValidate(f *testing.F) {
	raw, err := contract.Schema("FixResult")
	if err != nil {
		f.Fatal(err)
	}
	s, err := Compile(raw)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{`{"patched_content":"x","fix_reason":"y","confidence_score":0.5}`, `[]`, `{"confidence_score":"1"}`, `1e400`, `{`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		_ = s.ValidateJSON([]byte(doc))
	})
}
