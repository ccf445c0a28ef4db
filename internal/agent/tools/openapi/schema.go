package openapi

import (
	"fmt"
	"slices"
)

// MaxSchemaBytes bounds the text of one tool's input schema, references
// inlined.
const MaxSchemaBytes = 4 << 20

// schema converts an OpenAPI schema object into a JSON Schema with every
// local reference inlined: OpenAPI 3.0's nullable becomes a "null" type,
// and the keywords only OpenAPI knows (discriminator, xml, externalDocs,
// example) are dropped. A missing schema is a string. description fills
// the schema's own when it has none.
func (d *doc) schema(v any, description string) (any, error) {
	if v == nil {
		v = map[string]any{"type": "string"}
	}
	w := &walker{d: d, stack: map[string]bool{}}
	out, err := w.schema(v, 0)
	if err != nil {
		return nil, err
	}
	if m, ok := out.(map[string]any); ok && description != "" && m["description"] == nil {
		m["description"] = description
	}
	return out, nil
}

// walker inlines one schema, counting what it builds.
type walker struct {
	d     *doc
	stack map[string]bool // references being inlined
	nodes int
	bytes int
}

func (w *walker) count(depth, size int) error {
	w.nodes++
	w.bytes += size
	switch {
	case depth > MaxDepth:
		return fmt.Errorf("its schema nests deeper than %d", MaxDepth)
	case w.nodes > MaxNodes:
		return fmt.Errorf("its schema inlines into more than %d values", MaxNodes)
	case w.bytes > MaxSchemaBytes:
		return fmt.Errorf("its schema inlines into more than %d bytes", MaxSchemaBytes)
	}
	return nil
}

// Keywords whose value is a map of schemas, data, or dropped.
var (
	schemaMaps = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	dataKeys   = []string{"enum", "const", "default", "examples"}
	dropped    = []string{"discriminator", "xml", "externalDocs", "example", "nullable"}
)

// schema converts a value in schema position.
func (w *walker) schema(v any, depth int) (any, error) {
	if err := w.count(depth, 0); err != nil {
		return nil, err
	}
	switch t := v.(type) {
	case map[string]any:
		if ref, ok := t["$ref"].(string); ok {
			return w.ref(ref, depth)
		}
		out := make(map[string]any, len(t))
		for k, c := range t {
			var err error
			switch {
			case slices.Contains(dropped, k):
				continue
			case slices.Contains(dataKeys, k):
				out[k], err = w.data(c, depth+1)
			case slices.Contains(schemaMaps, k):
				out[k], err = w.schemaMap(c, depth+1)
			default:
				out[k], err = w.schema(c, depth+1)
			}
			if err != nil {
				return nil, err
			}
			w.bytes += len(k)
		}
		if t["nullable"] == true {
			nullable(out)
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			var err error
			if out[i], err = w.schema(c, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	case string:
		return t, w.count(depth, len(t))
	}
	return v, nil
}

// ref inlines the schema a reference names; one that is being inlined
// already (a recursive schema) is refused, since a tool schema must be
// finite.
func (w *walker) ref(ref string, depth int) (any, error) {
	if w.stack[ref] {
		return nil, fmt.Errorf("$ref %q is recursive; recursive schemas are not imported", ref)
	}
	target, err := w.d.pointer(ref)
	if err != nil {
		return nil, err
	}
	w.stack[ref] = true
	defer delete(w.stack, ref)
	return w.schema(target, depth+1)
}

// schemaMap converts a map of name to schema.
func (w *walker) schemaMap(v any, depth int) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return w.schema(v, depth)
	}
	out := make(map[string]any, len(m))
	for k, c := range m {
		var err error
		if out[k], err = w.schema(c, depth+1); err != nil {
			return nil, err
		}
		w.bytes += len(k)
	}
	return out, nil
}

// data copies a value that is data, not a schema (enum, default), counting
// it: a "$ref" inside it is a member like any other.
func (w *walker) data(v any, depth int) (any, error) {
	size := 0
	if s, ok := v.(string); ok {
		size = len(s)
	}
	if err := w.count(depth, size); err != nil {
		return nil, err
	}
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, c := range t {
			var err error
			if out[k], err = w.data(c, depth+1); err != nil {
				return nil, err
			}
			w.bytes += len(k)
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			var err error
			if out[i], err = w.data(c, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return v, nil
}

// nullable adds "null" to a schema's type.
func nullable(s map[string]any) {
	switch t := s["type"].(type) {
	case string:
		s["type"] = []any{t, "null"}
	case []any:
		if !slices.Contains(t, any("null")) {
			s["type"] = append(t, "null")
		}
	}
}
