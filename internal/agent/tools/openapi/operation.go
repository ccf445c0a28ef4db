package openapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/salve-dev/salve/internal/agent/tools/rest"
	"github.com/salve-dev/salve/internal/lazyre"
)

// doc is a decoded document, for resolving its references.
type doc struct {
	root map[string]any
}

// param is one operation parameter, references resolved.
type param struct {
	name, in    string
	required    bool
	description string
	schema      any
}

// operation builds the REST tool of one operation.
func (d *doc) operation(base, path, method string, item, op map[string]any, opts Options) (rest.Spec, error) {
	params, err := d.params(item, op)
	if err != nil {
		return rest.Spec{}, err
	}
	props := map[string]any{}
	required := []string{}
	spec := rest.Spec{Method: strings.ToUpper(method), Headers: map[string]string{}}
	for k, v := range opts.Headers {
		spec.Headers[k] = v
	}
	add := func(p param) error {
		if _, dup := props[p.name]; dup {
			return fmt.Errorf("parameter %q is declared twice (in %s too)", p.name, p.in)
		}
		sch, err := d.schema(p.schema, p.description)
		if err != nil {
			return fmt.Errorf("parameter %q: %w", p.name, err)
		}
		props[p.name] = sch
		if p.required {
			required = append(required, p.name)
		}
		return nil
	}
	for _, p := range params {
		if err := add(p); err != nil {
			return rest.Spec{}, err
		}
		switch p.in {
		case "query":
			spec.Query = append(spec.Query, p.name)
		case "header":
			if !headerName.MatchString(p.name) {
				return rest.Spec{}, fmt.Errorf("header parameter %q is not a header name", p.name)
			}
			spec.Headers[p.name] = "${parameters." + p.name + "}"
		}
	}
	// A path template naming no declared parameter still gets one.
	for _, m := range pathVar.FindAllStringSubmatch(path, -1) {
		if _, ok := props[m[1]]; !ok {
			if err := add(param{name: m[1], in: "path", required: true}); err != nil {
				return rest.Spec{}, err
			}
		}
	}
	body, bodyRequired, err := d.body(op)
	if err != nil {
		return rest.Spec{}, err
	}
	if body != nil {
		if _, dup := props["body"]; dup {
			return rest.Spec{}, errors.New(`a parameter named "body" leaves no name for the request body`)
		}
		props["body"] = body
		if bodyRequired {
			required = append(required, "body")
		}
		spec.BodyTemplate = "${parameters.body}"
	}
	for n := range props {
		if !safeName.MatchString(n) {
			return rest.Spec{}, fmt.Errorf("parameter name %q cannot be sent", n)
		}
	}
	spec.URL = base + pathVar.ReplaceAllString(path, "$${parameters.$1}")
	if _, err := url.Parse(strings.NewReplacer("${", "", "}", "").Replace(spec.URL)); err != nil {
		return rest.Spec{}, fmt.Errorf("path %q does not make a URL", path)
	}
	if len(spec.Headers) == 0 {
		spec.Headers = nil
	}
	spec.Description = describe(method, path, op)
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return rest.Spec{}, fmt.Errorf("input schema: %w", err)
	}
	spec.ParametersSchema = raw
	return spec, nil
}

// pathVar is a {name} of a path template; safeName a parameter name that
// fits a ${parameters.NAME} placeholder, a JSON property and (for header
// parameters) an HTTP header name.
var (
	pathVar    = lazyre.New(`\{([^{}/]+)\}`)
	safeName   = lazyre.New(`^[A-Za-z0-9_.\-\[\]]{1,128}$`)
	headerName = lazyre.New(`^[A-Za-z0-9_.\-]+$`)
)

// params are the path item's parameters overridden by the operation's
// (by name and location), cookies and the headers HTTP owns left out.
func (d *doc) params(item, op map[string]any) ([]param, error) {
	var out []param
	index := map[string]int{}
	for _, list := range []any{item["parameters"], op["parameters"]} {
		arr, _ := list.([]any)
		for _, raw := range arr {
			obj, err := d.deref(raw)
			if err != nil {
				return nil, err
			}
			p := param{}
			p.name, _ = obj["name"].(string)
			p.in, _ = obj["in"].(string)
			p.required, _ = obj["required"].(bool)
			p.description, _ = obj["description"].(string)
			p.schema = obj["schema"]
			if p.schema == nil {
				if content, ok := obj["content"].(map[string]any); ok {
					p.schema = jsonSchemaOf(content)
				}
			}
			switch {
			case p.name == "":
				return nil, errors.New("a parameter has no name")
			case p.in == "path":
				p.required = true
			case p.in == "header" && ownedHeader(p.name):
				continue // OpenAPI: Accept, Content-Type and Authorization are not parameters
			case p.in == "cookie":
				if p.required {
					return nil, fmt.Errorf("cookie parameter %q is required, and cookies are not sent", p.name)
				}
				continue
			case p.in != "query" && p.in != "header":
				return nil, fmt.Errorf("parameter %q is in %q", p.name, p.in)
			}
			key := p.in + "\x00" + p.name
			if i, ok := index[key]; ok {
				out[i] = p
				continue
			}
			index[key] = len(out)
			out = append(out, p)
		}
	}
	return out, nil
}

func ownedHeader(name string) bool {
	switch strings.ToLower(name) {
	case "accept", "content-type", "authorization":
		return true
	}
	return false
}

// body is the JSON request body's schema, if the operation takes one. A
// required body that is not JSON leaves the operation out.
func (d *doc) body(op map[string]any) (any, bool, error) {
	if op["requestBody"] == nil {
		return nil, false, nil
	}
	rb, err := d.deref(op["requestBody"])
	if err != nil {
		return nil, false, err
	}
	required, _ := rb["required"].(bool)
	content, _ := rb["content"].(map[string]any)
	raw := jsonSchemaOf(content)
	if raw == nil {
		if required {
			return nil, false, fmt.Errorf("its request body is not JSON (%s)", strings.Join(sortedKeys(content), ", "))
		}
		return nil, false, nil
	}
	sch, err := d.schema(raw, "")
	if err != nil {
		return nil, false, fmt.Errorf("request body: %w", err)
	}
	if desc, ok := rb["description"].(string); ok && desc != "" {
		if m, ok := sch.(map[string]any); ok && m["description"] == nil {
			m["description"] = desc
		}
	}
	return sch, required, nil
}

// jsonSchemaOf returns the schema of the JSON media type of content
// (application/json, or any type ending in +json), or nil. An empty
// schema means any JSON value.
func jsonSchemaOf(content map[string]any) any {
	for _, mt := range sortedKeys(content) {
		base := strings.ToLower(strings.TrimSpace(strings.SplitN(mt, ";", 2)[0]))
		if base != "application/json" && !strings.HasSuffix(base, "+json") {
			continue
		}
		media, _ := content[mt].(map[string]any)
		if s, ok := media["schema"]; ok && s != nil {
			return s
		}
		return map[string]any{}
	}
	return nil
}

// deref returns the object v is, following local references.
func (d *doc) deref(v any) (map[string]any, error) {
	seen := map[string]bool{}
	for range 32 {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, errors.New("expected an object")
		}
		ref, ok := obj["$ref"].(string)
		if !ok {
			return obj, nil
		}
		if seen[ref] {
			return nil, fmt.Errorf("$ref %q leads back to itself", ref)
		}
		seen[ref] = true
		var err error
		if v, err = d.pointer(ref); err != nil {
			return nil, err
		}
	}
	return nil, errors.New("$ref chain too long")
}

// pointer resolves a local reference "#/a/b".
func (d *doc) pointer(ref string) (any, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("$ref %q points outside the document, which is not followed", ref)
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	var cur any = d.root
	if frag == "" {
		return cur, nil
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("$ref %q is not a JSON pointer", ref)
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("$ref %q does not resolve", ref)
			}
			cur = next
		case []any:
			i := -1
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(c) || fmt.Sprint(i) != tok {
				return nil, fmt.Errorf("$ref %q does not resolve", ref)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
	}
	return cur, nil
}

// describe is the tool's description: the summary, else the description
// (at most 1 KiB), else the operation id, else "METHOD /path".
func describe(method, path string, op map[string]any) string {
	for _, k := range []string{"summary", "description", "operationId"} {
		if s, ok := op[k].(string); ok && strings.TrimSpace(s) != "" {
			s = strings.TrimSpace(s)
			if len(s) > 1024 {
				s = strings.ToValidUTF8(s[:1024], "") + "…"
			}
			return s
		}
	}
	return strings.ToUpper(method) + " " + path
}
