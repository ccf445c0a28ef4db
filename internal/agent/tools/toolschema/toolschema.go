// Package toolschema compiles tool input schemas and validates tool-call
// arguments against them (docs/contracts/ai-agent-cli.md §11 "Calls that are
// not executed"), for MCP tools, REST tools and sub-agents alike. It uses
// github.com/santhosh-tekuri/jsonschema/v6, which reports every violation
// with its JSON pointer.
//
// Unknown keywords and unknown `format` values are not errors
// (docs/contracts/ai-agent-cli.md §7, exit 5 row): formats are not asserted
// at all. A schema that cannot be compiled is a *[CompileError] wrapping
// [ErrSchema] (exit 5 class). Remote `$ref`s are never fetched; they fail to
// compile.
package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ErrSchema is wrapped by every error about a schema itself (one that does
// not compile, or an unknown draft name). The CLI maps it to exit 5.
var ErrSchema = errors.New("invalid JSON Schema")

// ErrInvalidArguments is wrapped by every argument validation failure.
var ErrInvalidArguments = errors.New("invalid arguments")

// CompileError reports a tool schema that cannot be compiled.
type CompileError struct {
	// Tool is the exposed tool name.
	Tool string
	Err  error
}

// Error implements error.
func (e *CompileError) Error() string {
	return fmt.Sprintf("tool %s: inputSchema cannot be compiled: %v", e.Tool, e.Err)
}

// Unwrap returns both the cause and [ErrSchema].
func (e *CompileError) Unwrap() []error { return []error{ErrSchema, e.Err} }

// ArgumentsError reports arguments that do not match the schema. Its message
// is "invalid arguments: <details>", the text the engine puts after
// "(tool failed: ".
type ArgumentsError struct {
	// Details lists each violation as "<pointer>: <message>", sorted.
	Details []string
}

// Error implements error.
func (e *ArgumentsError) Error() string {
	return "invalid arguments: " + strings.Join(e.Details, "; ")
}

// Unwrap returns [ErrInvalidArguments].
func (e *ArgumentsError) Unwrap() error { return ErrInvalidArguments }

// Schema is a compiled input schema. A nil *Schema accepts any object.
type Schema struct {
	compiled *jsonschema.Schema
}

const resourceURL = "mem://tool/input.json"

// Compile compiles raw (a JSON Schema, by default of draft 2020-12 unless it
// says otherwise with `$schema`) for the tool named tool. An empty raw, or
// JSON null, yields a schema that accepts any object.
func Compile(tool string, raw json.RawMessage) (*Schema, error) {
	s, err := compile(raw, jsonschema.Draft2020, false)
	if err != nil {
		return nil, &CompileError{Tool: tool, Err: err}
	}
	return s, nil
}

func compile(raw json.RawMessage, draft *jsonschema.Draft, forceDraft bool) (*Schema, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return &Schema{}, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	if obj, ok := doc.(map[string]any); ok && forceDraft {
		delete(obj, "$schema")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(draft)
	c.UseLoader(noRemote{})
	if err := c.AddResource(resourceURL, doc); err != nil {
		return nil, fmt.Errorf("add schema: %w", err)
	}
	compiled, err := c.Compile(resourceURL)
	if err != nil {
		return nil, err
	}
	return &Schema{compiled: compiled}, nil
}

// noRemote refuses every external reference.
type noRemote struct{}

// Load implements jsonschema.URLLoader by refusing.
func (noRemote) Load(url string) (any, error) {
	return nil, fmt.Errorf("external reference %s is not loaded", url)
}

// Validate checks args, a JSON object, against the schema. It returns an
// *[ArgumentsError] for arguments that are not a JSON object or that
// violate the schema.
func (s *Schema) Validate(args json.RawMessage) error {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		args = []byte("{}")
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return &ArgumentsError{Details: []string{"arguments are not valid JSON: " + err.Error()}}
	}
	if _, ok := v.(map[string]any); !ok {
		return &ArgumentsError{Details: []string{"arguments must be a JSON object"}}
	}
	if s == nil || s.compiled == nil {
		return nil
	}
	err = s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &ArgumentsError{Details: []string{err.Error()}}
	}
	return &ArgumentsError{Details: details(ve)}
}

// details flattens a validation error into "pointer: message" leaves.
func details(ve *jsonschema.ValidationError) []string {
	var out []string
	seen := map[string]bool{}
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil {
			continue
		}
		msg := u.Error.String()
		if strings.HasPrefix(msg, "validation failed") {
			continue
		}
		loc := u.InstanceLocation
		if loc == "" {
			loc = "/"
		}
		line := loc + ": " + msg
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		out = append(out, strings.ReplaceAll(ve.Error(), "\n", " "))
	}
	sort.Strings(out)
	return out
}
