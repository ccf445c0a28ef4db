package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// schemaFor infers the JSON Schema of T the way the SDK would, with two
// corrections for output types: a json.RawMessage is any JSON value (not
// an array of bytes), and a map may be null (Go encodes a nil map so).
func schemaFor[T any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[json.RawMessage](): {}},
	})
	if err != nil {
		return nil, fmt.Errorf("schema of %v: %w", reflect.TypeFor[T](), err)
	}
	nullableMaps(s)
	return s, nil
}

// nullableMaps lets every map schema under s (an object whose additional
// properties are not false) be null as well.
func nullableMaps(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.Type == "object" && s.AdditionalProperties != nil && s.AdditionalProperties.Not == nil && len(s.Properties) == 0 {
		s.Types = []string{"null", "object"}
		s.Type = ""
	}
	for _, p := range s.Properties {
		nullableMaps(p)
	}
	nullableMaps(s.Items)
	nullableMaps(s.AdditionalProperties)
}

// mustSchema is schemaFor for the server's own fixed types, whose schemas
// are checked by the tests.
func mustSchema[T any]() *jsonschema.Schema {
	s, err := schemaFor[T]()
	if err != nil {
		panic(err)
	}
	return s
}

// prop returns the property name of the object schema s, panicking when it
// is absent: the input types and their refinements are written together.
func prop(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p := s.Properties[name]
	if p == nil {
		panic(fmt.Sprintf("mcpserver: schema has no property %q", name))
	}
	return p
}

func enum(s *jsonschema.Schema, name string, values ...string) {
	p := prop(s, name)
	p.Enum = nil
	for _, v := range values {
		p.Enum = append(p.Enum, v)
	}
}

func minimum(s *jsonschema.Schema, name string, min float64) {
	prop(s, name).Minimum = &min
}

func maximum(s *jsonschema.Schema, name string, max float64) {
	prop(s, name).Maximum = &max
}
