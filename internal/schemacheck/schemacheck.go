// Package schemacheck validates JSON documents against JSON Schemas of
// draft 2020-12 or draft 7, with github.com/google/jsonschema-go. It is the
// validator of the salve binary: salve validates only its own contract
// objects (a git agent's ActionResponse, an LLM's FixResult), whose schemas
// are draft 2020-12, and this library costs nothing at start-up. Every
// `salve` command pays the package initialisation of what it links, and
// the validator the ai-agent runtime uses for schemas users write
// (internal/agent/tools/toolschema: drafts 4 to 2020-12, every violation reported)
// compiles its meta-schemas there, about 3 ms of each start.
//
// A failure reports the first violation found, with its place in the
// schema. Remote references are never loaded.
package schemacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/google/jsonschema-go/jsonschema"
)

// ErrSchema is wrapped by errors about a schema itself.
var ErrSchema = errors.New("invalid JSON schema")

// Schema is a compiled JSON Schema. It is safe for concurrent use.
type Schema struct {
	resolved *jsonschema.Resolved
}

// Compile compiles raw, a JSON Schema of draft 2020-12 (the default) or
// draft 7. Errors wrap ErrSchema.
func Compile(raw []byte) (*Schema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	switch s.Schema {
	case "", "https://json-schema.org/draft/2020-12/schema",
		"http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#":
	default:
		return nil, fmt.Errorf("%w: $schema %q: only draft 2020-12 and draft 7 are read", ErrSchema, s.Schema)
	}
	r, err := s.Resolve(nil) // no loader: a remote reference is an error
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	return &Schema{resolved: r}, nil
}

// Validate checks v, a value decoded from JSON (numbers as float64 or
// json.Number), against the schema.
func (s *Schema) Validate(v any) error {
	f, _ := floats(v)
	return s.resolved.Validate(f)
}

// floats returns v with every json.Number made a float64, which is how
// the validator recognises a number, and whether it changed anything; v is
// copied only where it holds one.
func floats(v any) (any, bool) {
	switch n := v.(type) {
	case json.Number:
		if f, err := n.Float64(); err == nil {
			return f, true
		}
	case map[string]any:
		var out map[string]any
		for k, c := range n {
			fc, changed := floats(c)
			if !changed {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(n))
				for k2, c2 := range n {
					out[k2] = c2
				}
			}
			out[k] = fc
		}
		if out != nil {
			return out, true
		}
	case []any:
		var out []any
		for i, c := range n {
			fc, changed := floats(c)
			if !changed {
				continue
			}
			if out == nil {
				out = append([]any(nil), n...)
			}
			out[i] = fc
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

// ValidateJSON decodes raw, one JSON value, and validates it.
func (s *Schema) ValidateJSON(raw []byte) error {
	v, err := Decode(raw)
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return s.Validate(v)
}

// Decode decodes raw, exactly one JSON value, with numbers kept as
// json.Number, so that re-encoding a value loses no precision.
func Decode(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("more than one value")
	}
	return v, nil
}
