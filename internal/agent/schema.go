package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/internal/schemacheck"
)

// ErrSchema marks a JSON Schema that cannot be compiled (exit 5).
var ErrSchema = errors.New("invalid JSON schema")

// A SchemaCompiler compiles a JSON Schema document: the output schema of
// the json format, and the input schema of every tool. See
// [Options.SchemaCompiler].
type SchemaCompiler func(raw json.RawMessage) (SchemaValidator, error)

// A SchemaValidator is a compiled JSON Schema. Validate checks v, a value
// decoded from JSON with numbers as json.Number. When its error has a
// method Locations() [][]string, those are the JSON pointers (as
// segments) of the instance's failing places, where the repair of
// stringified JSON looks first.
type SchemaValidator interface {
	Validate(v any) error
}

// BasicSchemas is the SchemaCompiler used when Options leave it unset: JSON
// Schema drafts 2020-12 and 7, reporting the first violation, with no
// start-up cost. The ai-agent command uses internal/agent/tools/toolschema's, which reads
// drafts 4 to 2020-12 and reports every violation.
func BasicSchemas(raw json.RawMessage) (SchemaValidator, error) {
	s, err := schemacheck.Compile(raw)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Schema is a compiled JSON Schema.
type Schema struct {
	raw json.RawMessage
	v   SchemaValidator
}

// CompileSchema compiles a JSON Schema document with [BasicSchemas].
// Errors wrap ErrSchema. Unknown keywords and formats are not errors.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	return SchemaCompiler(nil).Compile(raw)
}

// Compile compiles raw with c, or with BasicSchemas when c is nil. Errors
// wrap ErrSchema.
func (c SchemaCompiler) Compile(raw json.RawMessage) (*Schema, error) {
	doc, err := schemacheck.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("parse schema: %w: %v", ErrSchema, err)
	}
	if _, ok := doc.(map[string]any); !ok {
		if b, isBool := doc.(bool); !isBool || !b {
			return nil, fmt.Errorf("parse schema: %w: not an object", ErrSchema)
		}
	}
	if c == nil {
		c = BasicSchemas
	}
	v, err := c(raw)
	if err != nil {
		return nil, fmt.Errorf("compile schema: %w: %v", ErrSchema, err)
	}
	return &Schema{raw: raw, v: v}, nil
}

// Validate checks a JSON document against the schema.
func (s *Schema) Validate(doc json.RawMessage) error {
	v, err := schemacheck.Decode(doc)
	if err != nil {
		return fmt.Errorf("parse instance: %w", err)
	}
	return s.v.Validate(v)
}

// maxJSONRepairPasses bounds the content_json repair loop
// (docs/contracts/ai-agent-cli.md §11).
const maxJSONRepairPasses = 4

// validateWithRepair validates v against s; when it fails, it re-parses a
// stringified JSON value at a failing location and tries again, at most
// maxJSONRepairPasses times (docs/contracts/ai-agent.md §1). It returns the
// accepted value.
func validateWithRepair(s *Schema, v any) (any, []string, error) {
	var steps []string
	for pass := 0; ; pass++ {
		err := s.v.Validate(v)
		if err == nil {
			return v, steps, nil
		}
		if pass >= maxJSONRepairPasses {
			return nil, steps, err
		}
		var located interface{ Locations() [][]string }
		var locs [][]string
		if errors.As(err, &located) {
			locs = located.Locations()
		} else {
			locs = jsonStrings(v, nil)
		}
		fixed, path, ok := reparseAt(v, locs)
		if !ok {
			return nil, steps, err
		}
		v = fixed
		steps = append(steps, "/"+strings.Join(path, "/"))
	}
}

// jsonStrings lists the places of the string values under v that hold a
// JSON object or array: where to look when a validator does not say where
// the instance failed.
func jsonStrings(v any, at []string) [][]string {
	var out [][]string
	switch n := v.(type) {
	case string:
		if t := strings.TrimSpace(n); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
			out = append(out, append([]string(nil), at...))
		}
	case map[string]any:
		keys := make([]string, 0, len(n))
		for k := range n {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, jsonStrings(n[k], append(at, k))...)
		}
	case []any:
		for i, c := range n {
			out = append(out, jsonStrings(c, append(at, strconv.Itoa(i)))...)
		}
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
		v, err := schemacheck.Decode([]byte(t))
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
