package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ErrSchema marks a JSON Schema that cannot be compiled (exit 5).
var ErrSchema = errors.New("invalid JSON schema")

// Schema is a compiled JSON Schema.
type Schema struct {
	raw    json.RawMessage
	schema *jsonschema.Schema
}

// CompileSchema compiles a JSON Schema document. Errors wrap ErrSchema.
// Unknown keywords and formats are not errors.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("parse schema: %w: %v", ErrSchema, err)
	}
	if _, ok := doc.(map[string]any); !ok {
		if b, isBool := doc.(bool); !isBool || !b {
			return nil, fmt.Errorf("parse schema: %w: not an object", ErrSchema)
		}
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///schema.json", doc); err != nil {
		return nil, fmt.Errorf("add schema: %w: %v", ErrSchema, err)
	}
	s, err := c.Compile("mem:///schema.json")
	if err != nil {
		return nil, fmt.Errorf("compile schema: %w: %v", ErrSchema, err)
	}
	return &Schema{raw: raw, schema: s}, nil
}

// Validate checks a JSON document against the schema.
func (s *Schema) Validate(doc json.RawMessage) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("parse instance: %w", err)
	}
	return s.schema.Validate(v)
}

// maxJSONRepairPasses bounds the content_json repair loop (spec §11).
const maxJSONRepairPasses = 4

// validateWithRepair validates v against s; when it fails, it re-parses a
// stringified JSON value at a failing location and tries again, at most
// maxJSONRepairPasses times (seed 003, §1). It returns the accepted value.
func validateWithRepair(s *Schema, v any) (any, []string, error) {
	var steps []string
	for pass := 0; ; pass++ {
		err := s.schema.Validate(v)
		if err == nil {
			return v, steps, nil
		}
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) || pass >= maxJSONRepairPasses {
			return nil, steps, err
		}
		fixed, path, ok := reparseAt(v, leafLocations(ve))
		if !ok {
			return nil, steps, err
		}
		v = fixed
		steps = append(steps, "/"+strings.Join(path, "/"))
	}
}

// leafLocations lists the instance locations of the deepest causes.
func leafLocations(ve *jsonschema.ValidationError) [][]string {
	if len(ve.Causes) == 0 {
		return [][]string{ve.InstanceLocation}
	}
	var out [][]string
	for _, c := range ve.Causes {
		out = append(out, leafLocations(c)...)
	}
	return out
}

// reparseAt replaces the first string value found at one of the locations
// (or at one of their ancestors) that parses as a JSON object or array.
func reparseAt(root any, locs [][]string) (any, []string, bool) {
	for _, loc := range locs {
		for n := len(loc); n >= 0; n-- {
			if out, ok := replaceString(root, loc[:n]); ok {
				return out, loc[:n], true
			}
		}
	}
	return root, nil, false
}

func replaceString(node any, path []string) (any, bool) {
	if len(path) == 0 {
		s, ok := node.(string)
		if !ok {
			return node, false
		}
		t := strings.TrimSpace(s)
		if !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[") {
			return node, false
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(t))
		if err != nil {
			return node, false
		}
		return v, true
	}
	switch n := node.(type) {
	case map[string]any:
		child, ok := n[path[0]]
		if !ok {
			return node, false
		}
		nv, ok := replaceString(child, path[1:])
		if ok {
			n[path[0]] = nv
		}
		return n, ok
	case []any:
		i, err := strconv.Atoi(path[0])
		if err != nil || i < 0 || i >= len(n) {
			return node, false
		}
		nv, ok := replaceString(n[i], path[1:])
		if ok {
			n[i] = nv
		}
		return n, ok
	}
	return node, false
}
