// Package openapi turns the operations of an OpenAPI 3 document into REST
// tools (package rest), as the original ai-agent's openapiSpecs do: each
// operation becomes one tool named PREFIX_operationId (or
// PREFIX_method_path without one), whose arguments are the operation's
// path, query and header parameters and, for a JSON request body, "body".
//
// # Hostile documents
//
// A document is read from a local file of at most [MaxDocument] bytes, as
// JSON or YAML, and must say "openapi: 3.x". Only references inside the
// document ("#/…") are followed. An operation whose parameters or body
// reach a reference that does not resolve, points outside the document or
// leads back into itself, nest deeper than [MaxDepth] or inline into more
// than [MaxNodes] values, or whose schema does not compile, is left out
// with the reason in [Import.Skipped]; the rest of the document still
// loads. More than [MaxOperations] operations is an error: narrow the
// import with Options.Methods or Options.Tags.
package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/salve-dev/salve/internal/agent/tools/rest"
	"github.com/salve-dev/salve/internal/agent/tools/toolschema"
	"github.com/salve-dev/salve/internal/lazyre"
	"github.com/salve-dev/salve/internal/safefile"
)

// Limits on a document.
const (
	// MaxDocument bounds the file read.
	MaxDocument = 16 << 20
	// MaxOperations bounds the operations imported from one document.
	MaxOperations = 2000
	// MaxDepth bounds the nesting of one tool's input schema, references
	// inlined.
	MaxDepth = 64
	// MaxNodes bounds the values of one tool's input schema, references
	// inlined (a chain of references used twice each doubles at every
	// step).
	MaxNodes = 20000
)

// ErrDocument is wrapped by every error about the document as a whole.
var ErrDocument = errors.New("invalid OpenAPI document")

// Methods are the operations imported by default, in this order.
var Methods = []string{"get", "post", "put", "patch", "delete"}

// Options shape an import. The zero value imports every operation of
// Methods under its bare name, against the document's first server.
type Options struct {
	// Prefix starts every tool name, joined with "_" (the openapiSpecs
	// key).
	Prefix string
	// BaseURL replaces the document's first server URL.
	BaseURL string
	// Methods, when not empty, keeps only these methods (of Methods, in
	// any case).
	Methods []string
	// Tags, when not empty, keeps only operations with one of these tags.
	Tags []string
	// Headers go with every call (authentication); an operation's own
	// header parameter of the same name wins, as in the original.
	Headers map[string]string
}

// Entry is one openapiSpecs.NAME entry of the configuration.
type Entry struct {
	// Spec is the document's path (a relative one is the configuration
	// layer's, resolved by the loader). A URL is refused: documents are
	// never fetched.
	Spec           string            `json:"spec"`
	BaseURL        string            `json:"baseUrl"`
	Headers        map[string]string `json:"headers"`
	IncludeMethods []string          `json:"includeMethods"`
	TagFilter      []string          `json:"tagFilter"`
}

// ErrRemote is wrapped when an entry's spec is a URL.
var ErrRemote = errors.New("OpenAPI documents are read from local files only")

// Load imports the entry openapiSpecs.name: its tools are named
// name_OPERATION.
func Load(name string, e Entry) (Import, error) {
	spec := strings.TrimSpace(e.Spec)
	if spec == "" {
		return Import{}, fmt.Errorf("openapiSpecs.%s: %w: spec is required", name, ErrDocument)
	}
	if strings.Contains(spec, "://") {
		return Import{}, fmt.Errorf("openapiSpecs.%s: %w: %q; download it and name the file", name, ErrRemote, spec)
	}
	imp, err := Read(spec, Options{Prefix: name, BaseURL: e.BaseURL, Methods: e.IncludeMethods, Tags: e.TagFilter, Headers: e.Headers})
	if err != nil {
		return Import{}, fmt.Errorf("openapiSpecs.%s: %w", name, err)
	}
	return imp, nil
}

// Skip is an operation left out, and why.
type Skip struct {
	// Operation is "METHOD /path".
	Operation string
	Reason    string
}

// Import is what a document gave.
type Import struct {
	// Tools are the REST tools by name (the restTools key: the exposed
	// name is rest__NAME).
	Tools map[string]rest.Spec
	// Skipped lists the operations left out, by path.
	Skipped []Skip
}

// Read reads the document at path (a local file; at most MaxDocument
// bytes) and imports it.
func Read(path string, opts Options) (Import, error) {
	b, err := safefile.Read(path, MaxDocument)
	if err != nil {
		return Import{}, fmt.Errorf("read OpenAPI document %s: %w", path, err)
	}
	imp, err := Parse(b, opts)
	if err != nil {
		return Import{}, fmt.Errorf("%s: %w", path, err)
	}
	return imp, nil
}

// Parse imports a document given as JSON or YAML.
func Parse(data []byte, opts Options) (Import, error) {
	if len(data) > MaxDocument {
		return Import{}, fmt.Errorf("%w: larger than %d bytes", ErrDocument, MaxDocument)
	}
	root, err := decode(data)
	if err != nil {
		return Import{}, err
	}
	version, _ := root["openapi"].(string)
	if !strings.HasPrefix(version, "3.") {
		if _, ok := root["swagger"]; ok {
			return Import{}, fmt.Errorf("%w: a Swagger 2.0 document; convert it to OpenAPI 3", ErrDocument)
		}
		return Import{}, fmt.Errorf("%w: no \"openapi: 3.x\" version", ErrDocument)
	}
	base, err := baseURL(root, opts.BaseURL)
	if err != nil {
		return Import{}, err
	}
	methods, err := methodSet(opts.Methods)
	if err != nil {
		return Import{}, err
	}
	paths, _ := root["paths"].(map[string]any)
	imp := Import{Tools: map[string]rest.Spec{}}
	d := &doc{root: root}
	for _, p := range sortedKeys(paths) {
		item, ok := paths[p].(map[string]any)
		if !ok {
			continue
		}
		if _, ok := item["$ref"]; ok {
			imp.Skipped = append(imp.Skipped, Skip{Operation: p, Reason: "a path item given by $ref is not followed"})
			continue
		}
		for _, m := range Methods {
			op, ok := item[m].(map[string]any)
			if !ok || !methods[m] || !tagged(op, opts.Tags) {
				continue
			}
			name := toolName(opts.Prefix, m, p, op)
			where := strings.ToUpper(m) + " " + p
			if _, dup := imp.Tools[name]; dup {
				imp.Skipped = append(imp.Skipped, Skip{Operation: where, Reason: "its tool name " + name + " is taken by another operation"})
				continue
			}
			spec, err := d.operation(base, p, m, item, op, opts)
			if err != nil {
				imp.Skipped = append(imp.Skipped, Skip{Operation: where, Reason: err.Error()})
				continue
			}
			if len(imp.Tools) == MaxOperations {
				return Import{}, fmt.Errorf("%w: more than %d operations; narrow it with includeMethods or tagFilter", ErrDocument, MaxOperations)
			}
			if _, err := toolschema.Compile("rest__"+name, spec.ParametersSchema); err != nil {
				imp.Skipped = append(imp.Skipped, Skip{Operation: where, Reason: "its input schema does not compile: " + err.Error()})
				continue
			}
			imp.Tools[name] = spec
		}
	}
	return imp, nil
}

// decode reads JSON (a document starting with "{") or YAML into plain
// values: objects are map[string]any.
func decode(data []byte) (map[string]any, error) {
	var v any
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(t))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%w: JSON: %v", ErrDocument, err)
		}
	} else {
		if err := yaml.Unmarshal(data, &v); err != nil {
			return nil, fmt.Errorf("%w: YAML: %v", ErrDocument, err)
		}
		var err error
		if v, err = plain(v, 0); err != nil {
			return nil, err
		}
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: not an object", ErrDocument)
	}
	return root, nil
}

// plain turns YAML's maps with non-string keys into map[string]any.
func plain(v any, depth int) (any, error) {
	if depth > 512 {
		return nil, fmt.Errorf("%w: nested too deeply", ErrDocument)
	}
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			p, err := plain(c, depth+1)
			if err != nil {
				return nil, err
			}
			t[k] = p
		}
		return t, nil
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, c := range t {
			p, err := plain(c, depth+1)
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(k)] = p
		}
		return out, nil
	case []any:
		for i, c := range t {
			p, err := plain(c, depth+1)
			if err != nil {
				return nil, err
			}
			t[i] = p
		}
		return t, nil
	}
	return v, nil
}

// baseURL is override, else the first server's URL with its variables'
// defaults; it must be an absolute http or https URL.
func baseURL(root map[string]any, override string) (string, error) {
	base := strings.TrimSpace(override)
	if base == "" {
		servers, _ := root["servers"].([]any)
		if len(servers) > 0 {
			srv, _ := servers[0].(map[string]any)
			base, _ = srv["url"].(string)
			vars, _ := srv["variables"].(map[string]any)
			for k, v := range vars {
				vm, _ := v.(map[string]any)
				if def, ok := vm["default"].(string); ok {
					base = strings.ReplaceAll(base, "{"+k+"}", def)
				}
			}
		}
	}
	u, err := url.Parse(base)
	if base == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%w: the server URL %q is not an absolute http or https URL; set baseUrl", ErrDocument, base)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

func methodSet(list []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, m := range list {
		m = strings.ToLower(strings.TrimSpace(m))
		if !slices.Contains(Methods, m) {
			return nil, fmt.Errorf("%w: includeMethods: %q is not one of %s", ErrDocument, m, strings.Join(Methods, ", "))
		}
		out[m] = true
	}
	if len(out) == 0 {
		for _, m := range Methods {
			out[m] = true
		}
	}
	return out, nil
}

// tagged reports whether op has one of tags (or tags is empty).
func tagged(op map[string]any, tags []string) bool {
	if len(tags) == 0 {
		return true
	}
	list, _ := op["tags"].([]any)
	for _, t := range list {
		if s, ok := t.(string); ok && slices.Contains(tags, s) {
			return true
		}
	}
	return false
}

var nonWord = lazyre.New(`[^a-zA-Z0-9]+`)

// toolName is PREFIX_operationId, or PREFIX_method_path.
func toolName(prefix, method, path string, op map[string]any) string {
	base, _ := op["operationId"].(string)
	if strings.TrimSpace(base) == "" {
		p := strings.NewReplacer("{", "", "}", "").Replace(path)
		base = method + "_" + strings.ToLower(strings.Trim(nonWord.ReplaceAllString(p, "_"), "_"))
	}
	if prefix == "" {
		return base
	}
	return prefix + "_" + base
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
