// Package rest provides REST tools (docs/contracts/ai-agent-cli.md §9.6):
// each restTools.NAME entry is exposed as the tool rest__NAME, whose call
// fills ${parameters.x} placeholders in the URL, headers and body template
// and returns the response body.
package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/salve-dev/salve/internal/agent/tools"
)

// Spec is one restTools.NAME entry.
type Spec struct {
	Description      string            `json:"description"`
	Method           string            `json:"method"`
	URL              string            `json:"url"`
	Headers          map[string]string `json:"headers"`
	BodyTemplate     any               `json:"bodyTemplate"`
	ParametersSchema json.RawMessage   `json:"parametersSchema"`
	Queue            string            `json:"queue"`
	// Query names the parameters that go in the query string when the
	// call's arguments have them (the OpenAPI import's query parameters;
	// not a restTools key): a scalar as NAME=VALUE, an array as NAME=V
	// once per item, an object as one KEY=VALUE per member (OpenAPI's
	// form style, exploded).
	Query []string `json:"-"`
}

// maxBody caps the response body read from a REST tool.
const maxBody = 16 << 20

// Provider is a tools.Provider over REST tool specs. Its zero value has no
// tools; build it with New.
type Provider struct {
	client *http.Client
	list   []tools.Tool
	specs  map[string]Spec
}

var _ tools.Provider = (*Provider)(nil)

// New validates the specs and builds the provider. A nil client uses
// http.DefaultClient; the engine's toolTimeout bounds every call.
func New(specs map[string]Spec, client *http.Client) (*Provider, error) {
	if client == nil {
		client = http.DefaultClient
	}
	p := &Provider{client: client, specs: map[string]Spec{}}
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := specs[n]
		s.Method = strings.ToUpper(strings.TrimSpace(s.Method))
		if s.Method == "" {
			s.Method = http.MethodGet
		}
		switch s.Method {
		case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		default:
			return nil, fmt.Errorf("rest tool %s: unsupported method %q", n, s.Method)
		}
		if s.URL == "" {
			return nil, fmt.Errorf("rest tool %s: url is required", n)
		}
		schema := s.ParametersSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		name := "rest__" + tools.SanitizeName(n)
		queue := s.Queue
		if queue == "" {
			queue = "default"
		}
		p.specs[name] = s
		p.list = append(p.list, tools.Tool{Name: name, LocalName: n, Server: "rest", Kind: tools.KindREST,
			Description: s.Description, InputSchema: schema, Queue: queue})
	}
	return p, nil
}

// Tools lists the rest__NAME tools.
func (p *Provider) Tools() []tools.Tool { return p.list }

// Close does nothing; it exists for tools.Provider.
func (p *Provider) Close() error { return nil }

// Call performs the request. A status of 400 or more fails the call with
// "HTTP <status>".
func (p *Provider) Call(ctx context.Context, name string, args json.RawMessage) (tools.Result, error) {
	s, ok := p.specs[name]
	if !ok {
		return tools.Result{}, fmt.Errorf("unknown rest tool %s", name)
	}
	var params map[string]any
	if err := json.Unmarshal(args, &params); err != nil {
		return tools.Result{}, fmt.Errorf("rest %s: arguments: %w", name, err)
	}
	u := addQuery(fillURL(s.URL, params), s.Query, params)
	var body io.Reader
	if s.BodyTemplate != nil {
		b, err := json.Marshal(fillValue(s.BodyTemplate, params))
		if err != nil {
			return tools.Result{}, fmt.Errorf("rest %s: body: %w", name, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, s.Method, u, body)
	if err != nil {
		return tools.Result{}, fmt.Errorf("rest %s: request: %w", name, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range s.Headers {
		if m := paramRE.FindStringSubmatch(v); m != nil && m[0] == v && params[m[1]] == nil {
			continue // an optional header parameter the call left out
		}
		req.Header.Set(k, fill(v, params, nil))
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return tools.Result{}, fmt.Errorf("rest %s: %w", name, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return tools.Result{}, fmt.Errorf("rest %s: read body: %w", name, err)
	}
	if resp.StatusCode >= 400 {
		return tools.Result{}, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return tools.Result{Text: string(out)}, nil
}

var paramRE = regexp.MustCompile(`\$\{parameters\.([^}]+)\}`)

// fill replaces ${parameters.x} in s, passing each value through escape
// when it is set. A missing parameter becomes "".
func fill(s string, params map[string]any, escape func(string) string) string {
	return paramRE.ReplaceAllStringFunc(s, func(m string) string {
		v := text(params[paramRE.FindStringSubmatch(m)[1]])
		if escape != nil {
			return escape(v)
		}
		return v
	})
}

// fillURL fills a URL template: a value in the path is escaped as one path
// segment (a "/" in it cannot reach another route), one in the query as a
// query value.
func fillURL(s string, params map[string]any) string {
	path, query, hasQuery := strings.Cut(s, "?")
	out := fill(path, params, url.PathEscape)
	if hasQuery {
		out += "?" + fill(query, params, url.QueryEscape)
	}
	return out
}

// addQuery appends the named parameters the arguments have to u's query
// string (see Spec.Query).
func addQuery(u string, names []string, params map[string]any) string {
	q := url.Values{}
	for _, n := range names {
		switch v := params[n].(type) {
		case nil:
		case []any:
			for _, item := range v {
				q.Add(n, text(item))
			}
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				q.Add(k, text(v[k]))
			}
		default:
			q.Add(n, text(v))
		}
	}
	if len(q) == 0 {
		return u
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + q.Encode()
}

func text(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	default:
		b, _ := json.Marshal(t)
		return string(b)
	}
}

// fillValue fills a body template; a string that is exactly one
// placeholder takes the parameter's JSON value.
func fillValue(v any, params map[string]any) any {
	switch t := v.(type) {
	case string:
		if m := paramRE.FindStringSubmatch(t); m != nil && m[0] == t {
			return params[m[1]]
		}
		return fill(t, params, nil)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, c := range t {
			out[k] = fillValue(c, params)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			out[i] = fillValue(c, params)
		}
		return out
	}
	return v
}
