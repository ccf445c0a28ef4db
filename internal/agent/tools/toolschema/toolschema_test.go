package toolschema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCompile(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		wantErr bool
	}{
		{name: "empty means any object", schema: ``},
		{name: "null means any object", schema: `null`},
		{name: "plain object", schema: `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`},
		{name: "unknown keyword is not an error", schema: `{"type":"object","x-custom":{"anything":true},"properties":{"a":{"type":"string","ui:widget":"text"}}}`},
		{name: "unknown format is not an error", schema: `{"type":"object","properties":{"a":{"type":"string","format":"no-such-format"}}}`},
		{name: "draft-07 by $schema", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"x":{"type":"integer"}}}`},
		{name: "bad type value", schema: `{"type":"object","properties":{"a":{"type":12}}}`, wantErr: true},
		{name: "bad required", schema: `{"type":"object","required":"a"}`, wantErr: true},
		{name: "remote ref is not fetched", schema: `{"$ref":"https://example.invalid/schema.json"}`, wantErr: true},
		{name: "not JSON", schema: `{"type":`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile("srv__tool", json.RawMessage(tt.schema))
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("Compile: %v", err)
				}
				return
			}
			var ce *CompileError
			if !errors.As(err, &ce) || !errors.Is(err, ErrSchema) || ce.Tool != "srv__tool" {
				t.Fatalf("Compile error = %v, want a CompileError wrapping ErrSchema", err)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	schema := `{"type":"object","properties":{"text":{"type":"string","format":"no-such-format"},"n":{"type":"integer","minimum":1}},"required":["text"],"additionalProperties":false}`
	s, err := Compile("t__echo", json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args string
		want []string // substrings of the error; nil means valid
	}{
		{name: "valid", args: `{"text":"hi","n":2}`},
		{name: "unknown format value is accepted", args: `{"text":"anything"}`},
		{name: "missing required", args: `{}`, want: []string{"invalid arguments: /: missing property 'text'"}},
		{name: "empty args are an empty object", args: ``, want: []string{"missing property 'text'"}},
		{name: "wrong type", args: `{"text":5}`, want: []string{"/text: got number, want string"}},
		{name: "two violations, sorted", args: `{"text":"a","n":0,"extra":1}`, want: []string{"/: additional properties 'extra' not allowed", "/n: minimum: got 0, want 1"}},
		{name: "not an object", args: `[1,2]`, want: []string{"arguments must be a JSON object"}},
		{name: "not JSON", args: `{"text":`, want: []string{"arguments are not valid JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Validate(json.RawMessage(tt.args))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate(%s): %v", tt.args, err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidArguments) {
				t.Fatalf("Validate(%s) = %v, want ErrInvalidArguments", tt.args, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("Validate(%s) = %q, want it to contain %q", tt.args, err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "invalid arguments: ") {
				t.Fatalf("message %q lacks the prefix", err)
			}
		})
	}
}

func TestNilSchemaAcceptsObjects(t *testing.T) {
	var s *Schema
	if err := s.Validate(json.RawMessage(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(json.RawMessage(`"x"`)); !errors.Is(err, ErrInvalidArguments) {
		t.Fatalf("nil schema accepted a string: %v", err)
	}
}

func TestParseDraft(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"draft-04", "draft-04"}, {"draft4", "draft-04"}, {"draft-06", "draft-06"},
		{"draft-07", "draft-07"}, {"draft7", "draft-07"}, {"draft-7", "draft-07"}, {"Draft_07", "draft-07"},
		{"2019-09", "2019-09"}, {"draft2019-09", "2019-09"},
		{"2020-12", "2020-12"}, {"draft2020", "2020-12"}, {"draft-2020-12", "2020-12"},
		{"draft-05", ""}, {"", ""}, {"latest", ""},
	}
	for _, tt := range tests {
		d, err := ParseDraft(tt.in)
		if tt.want == "" {
			if !errors.Is(err, ErrSchema) {
				t.Errorf("ParseDraft(%q) = %v, %v; want ErrSchema", tt.in, d, err)
			}
			continue
		}
		if err != nil || d.Name != tt.want {
			t.Errorf("ParseDraft(%q) = %q, %v; want %q", tt.in, d.Name, err, tt.want)
		}
	}
}

func TestDraftCheck(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		valid  map[string]bool // by draft name; absent means valid
	}{
		{name: "simple", schema: `{"type":"object","properties":{"a":{"type":"string"}}}`},
		{name: "numeric exclusiveMinimum is not draft-04",
			schema: `{"type":"object","properties":{"a":{"type":"number","exclusiveMinimum":5}}}`,
			valid:  map[string]bool{"draft-04": false}},
		{name: "boolean exclusiveMinimum is only draft-04",
			schema: `{"type":"object","properties":{"a":{"type":"number","minimum":1,"exclusiveMinimum":true}}}`,
			valid:  map[string]bool{"draft-06": false, "draft-07": false, "2019-09": false, "2020-12": false}},
		{name: "declared $schema is ignored",
			schema: `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"type":"number","minimum":1,"exclusiveMinimum":true}}}`,
			valid:  map[string]bool{"draft-06": false, "draft-07": false, "2019-09": false, "2020-12": false}},
		{name: "invalid everywhere", schema: `{"type":"object","properties":{"a":{"type":"strin"}}}`,
			valid: map[string]bool{"draft-04": false, "draft-06": false, "draft-07": false, "2019-09": false, "2020-12": false}},
	}
	for _, tt := range tests {
		for _, name := range []string{"draft-04", "draft-06", "draft-07", "2019-09", "2020-12"} {
			d, _ := ParseDraft(name)
			want, ok := tt.valid[name]
			if !ok {
				want = true
			}
			err := d.Check(json.RawMessage(tt.schema))
			if (err == nil) != want {
				t.Errorf("%s under %s: err = %v, want valid=%v", tt.name, name, err, want)
			}
		}
	}
}

// FuzzValidate feeds arbitrary argument text (it comes from a model) to a
// compiled schema: Validate must never panic, and must accept exactly the
// JSON objects that satisfy the schema's one rule.
func FuzzValidate(f *testing.F) {
	s, err := Compile("t__x", json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{`{"a":"x"}`, `{}`, `[]`, `{"a":1}`, `nul`, `{"a":"x"} trailing`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, args string) {
		err := s.Validate(json.RawMessage(args))
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(args))
		isObj := dec.Decode(&m) == nil && m != nil && !dec.More()
		_, isStr := m["a"].(string)
		if err == nil && !(isObj && isStr) {
			t.Fatalf("Validate(%q) accepted", args)
		}
		if err != nil && !errors.Is(err, ErrInvalidArguments) {
			t.Fatalf("Validate(%q) = %v", args, err)
		}
	})
}
