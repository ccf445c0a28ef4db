package toolschema

import (
	"encoding/json"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Document is a compiled JSON Schema for whole documents, such as an
// agent's output schema or a tool's input schema handed to the agent
// runtime. Unlike [Schema], it validates any JSON value.
type Document struct {
	compiled *jsonschema.Schema
}

// CompileDocument compiles raw, a JSON Schema of draft 2020-12 unless it
// says otherwise with `$schema` (drafts 4, 6, 7 and 2019-09 are read).
// Remote references are never loaded. An empty raw, or JSON null, accepts
// anything.
func CompileDocument(raw json.RawMessage) (*Document, error) {
	s, err := compile(raw, jsonschema.Draft2020, false)
	if err != nil {
		return nil, err
	}
	return &Document{compiled: s.compiled}, nil
}

// Validate checks v, a value decoded from JSON (numbers as json.Number or
// float64). A failure is a *[DocumentError] listing every violation.
func (d *Document) Validate(v any) error {
	if d == nil || d.compiled == nil {
		return nil
	}
	err := d.compiled.Validate(v)
	if ve, ok := err.(*jsonschema.ValidationError); ok {
		return &DocumentError{ve: ve}
	}
	return err
}

// DocumentError is a document's failure to match its schema.
type DocumentError struct {
	ve *jsonschema.ValidationError
}

// Error implements error: every violation, with its JSON pointer.
func (e *DocumentError) Error() string { return e.ve.Error() }

// Details lists each violation as "<pointer>: <message>", sorted.
func (e *DocumentError) Details() []string { return details(e.ve) }

// Locations lists the instance locations (JSON pointers as segments) of
// the deepest violations.
func (e *DocumentError) Locations() [][]string { return leaves(e.ve) }

func leaves(ve *jsonschema.ValidationError) [][]string {
	if len(ve.Causes) == 0 {
		return [][]string{ve.InstanceLocation}
	}
	var out [][]string
	for _, c := range ve.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}
