package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// render is the canonical text of an import: each tool as indented JSON,
// by name, then the skipped operations.
func render(imp Import) string {
	var b strings.Builder
	names := make([]string, 0, len(imp.Tools))
	for n := range imp.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := imp.Tools[n]
		var schema any
		_ = json.Unmarshal(s.ParametersSchema, &schema)
		out, _ := json.MarshalIndent(map[string]any{
			"description": s.Description, "method": s.Method, "url": s.URL, "headers": s.Headers,
			"query": s.Query, "bodyTemplate": s.BodyTemplate, "parametersSchema": schema, "queue": s.Queue,
		}, "", "  ")
		fmt.Fprintf(&b, "== %s\n%s\n", n, out)
	}
	for _, s := range imp.Skipped {
		fmt.Fprintf(&b, "-- skipped %s: %s\n", s.Operation, s.Reason)
	}
	return b.String()
}

// TestImportGolden: the sample document's operations as tools, and the
// operations left out with their reasons.
func TestImportGolden(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		golden string
	}{
		{"all", Options{Prefix: "pets", Headers: map[string]string{"X-Api-Key": "k-1"}}, "pets.golden"},
		{"tags and methods", Options{Prefix: "p", Tags: []string{"admin"}, Methods: []string{"DELETE"}, BaseURL: "http://127.0.0.1:9/api/"}, "pets-admin.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imp, err := Read(filepath.Join("testdata", "pets.yaml"), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			got := render(imp)
			path := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if want, err := os.ReadFile(path); err != nil || got != string(want) {
				t.Errorf("import differs from %s (%v; go test -update rewrites it); got:\n%s", path, err, got)
			}
		})
	}
}

// TestDocumentErrors: a document that cannot be imported at all is an
// error wrapping ErrDocument, named.
func TestDocumentErrors(t *testing.T) {
	tests := []struct {
		name, doc string
		opts      Options
		want      string
	}{
		{"swagger 2", `{"swagger":"2.0","paths":{}}`, Options{}, "Swagger 2.0"},
		{"no version", `{"paths":{}}`, Options{}, "openapi: 3.x"},
		{"not an object", `[1,2]`, Options{}, "not an object"},
		{"bad JSON", `{"openapi":`, Options{}, "JSON"},
		{"bad YAML", "openapi: [3\n", Options{}, "YAML"},
		{"no server", `{"openapi":"3.0.0","paths":{}}`, Options{}, "not an absolute http or https URL"},
		{"relative server", `{"openapi":"3.0.0","servers":[{"url":"/v1"}],"paths":{}}`, Options{}, "set baseUrl"},
		{"file server", `{"openapi":"3.0.0","paths":{}}`, Options{BaseURL: "file:///etc"}, "not an absolute http"},
		{"unknown method", `{"openapi":"3.0.0","paths":{}}`, Options{BaseURL: "http://h", Methods: []string{"trace"}}, "includeMethods"},
		{"too large", `{"openapi":"3.0.0","x":"` + strings.Repeat("a", MaxDocument) + `"}`, Options{}, "larger than"},
		{"too many operations", manyOperations(MaxOperations + 1), Options{BaseURL: "http://h"}, "more than 2000 operations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc), tt.opts)
			if !errors.Is(err, ErrDocument) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one wrapping ErrDocument with %q", err, tt.want)
			}
		})
	}
}

func manyOperations(n int) string {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.1.0","paths":{`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"/p%d":{"get":{}}`, i)
	}
	b.WriteString(`}}`)
	return b.String()
}

// TestHostileOperations: what a single operation can do to the importer
// stays in that operation, which is left out with the reason; the others
// load.
func TestHostileOperations(t *testing.T) {
	// Each schema refers to the next twice: inlined, 2^18 values, within
	// the depth limit.
	var defs strings.Builder
	for i := range 18 {
		fmt.Fprintf(&defs, `"s%d":{"type":"object","properties":{"a":{"$ref":"#/components/schemas/s%d"},"b":{"$ref":"#/components/schemas/s%d"}}},`, i, i+1, i+1)
	}
	defs.WriteString(`"s18":{"type":"string"}`)
	deep := strings.Repeat(`{"type":"array","items":`, MaxDepth+1) + `{"type":"string"}` + strings.Repeat(`}`, MaxDepth+1)
	tests := []struct {
		name, op, components string
		want                 string
	}{
		{"exponential references", `{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/s0"}}}}}`,
			`{"schemas":{` + defs.String() + `}}`, "inlines into more than"},
		{"deep nesting", `{"requestBody":{"content":{"application/json":{"schema":` + deep + `}}}}`, `{}`, "nests deeper than"},
		{"a reference to itself", `{"parameters":[{"$ref":"#/components/parameters/p"}]}`, `{"parameters":{"p":{"$ref":"#/components/parameters/p"}}}`, "leads back to itself"},
		{"a recursive schema", `{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/t"}}}}}`,
			`{"schemas":{"t":{"type":"array","items":{"$ref":"#/components/schemas/t"}}}}`, "recursive"},
		{"a reference into an array out of range", `{"parameters":[{"$ref":"#/components/list/7"}]}`, `{"list":[{}]}`, "does not resolve"},
		{"an external reference", `{"parameters":[{"$ref":"other.yaml#/p"}]}`, `{}`, "points outside the document"},
		{"a name that breaks a placeholder", `{"parameters":[{"name":"a}b","in":"query"}]}`, `{}`, "cannot be sent"},
		{"a header name with a space", `{"parameters":[{"name":"X A","in":"header"}]}`, `{}`, "not a header name"},
		{"a required cookie", `{"parameters":[{"name":"c","in":"cookie","required":true}]}`, `{}`, "cookies are not sent"},
		{"a parameter in two places", `{"parameters":[{"name":"a","in":"query"},{"name":"a","in":"header"}]}`, `{}`, "declared twice"},
		{"a schema that does not compile", `{"parameters":[{"name":"a","in":"query","schema":{"type":"string","pattern":"(["}}]}`, `{}`, "does not compile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := `{"openapi":"3.0.0","servers":[{"url":"http://h"}],"components":` + tt.components +
				`,"paths":{"/bad":{"post":` + tt.op + `},"/good":{"get":{"operationId":"good"}}}}`
			start := time.Now()
			imp, err := Parse([]byte(doc), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := imp.Tools["good"]; !ok || len(imp.Tools) != 1 {
				t.Fatalf("tools %v, want good alone", render(imp))
			}
			if len(imp.Skipped) != 1 || imp.Skipped[0].Operation != "POST /bad" || !strings.Contains(imp.Skipped[0].Reason, tt.want) {
				t.Fatalf("skipped %+v, want POST /bad for %q", imp.Skipped, tt.want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Logf("took %s", d) // a hint when it regresses; benchmarks measure speed
			}
		})
	}
}

// TestLoad: an entry names a local file; a URL is refused.
func TestLoad(t *testing.T) {
	abs, _ := filepath.Abs(filepath.Join("testdata", "pets.yaml"))
	imp, err := Load("pets", Entry{Spec: abs, TagFilter: []string{"admin"}, IncludeMethods: []string{"post"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := imp.Tools["pets_createPet"]; !ok || len(imp.Tools) != 1 {
		t.Fatalf("tools %s", render(imp))
	}
	tests := []struct {
		name string
		e    Entry
		want error
	}{
		{"a URL", Entry{Spec: "https://example.com/openapi.json"}, ErrRemote},
		{"no spec", Entry{}, ErrDocument},
		{"a missing file", Entry{Spec: filepath.Join(t.TempDir(), "none.yaml")}, os.ErrNotExist},
	}
	for _, tt := range tests {
		if _, err := Load("x", tt.e); !errors.Is(err, tt.want) || !strings.Contains(err.Error(), "openapiSpecs.x") {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
}

// TestYAMLKeys: YAML mappings with keys that are not strings still load.
func TestYAMLKeys(t *testing.T) {
	doc := "openapi: 3.0.0\nservers: [{url: 'http://h'}]\npaths:\n  /codes:\n    get:\n      operationId: codes\n      responses:\n        200: {description: ok}\n"
	imp, err := Parse([]byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := imp.Tools["codes"]; !ok || s.URL != "http://h/codes" || s.Method != "GET" {
		t.Fatalf("tools %s", render(imp))
	}
}

// FuzzParse: no document makes the importer panic, and every tool it
// returns has a name, an absolute URL and an object schema that is JSON.
func FuzzParse(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "pets.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"openapi":"3.1.0","servers":[{"url":"http://h"}],"paths":{"/a/{b}":{"get":{"parameters":[{"$ref":"#/x"}]}}},"x":{"name":"b","in":"path"}}`))
	f.Add([]byte("openapi: 3.0.0\nservers: [{url: 'http://h'}]\npaths: {/x: {post: {requestBody: {content: {application/json: {schema: {$ref: '#/paths'}}}}}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		imp, err := Parse(data, Options{Prefix: "f"})
		if err != nil {
			if !errors.Is(err, ErrDocument) {
				t.Fatalf("error %v does not wrap ErrDocument", err)
			}
			return
		}
		for name, s := range imp.Tools {
			if !strings.HasPrefix(name, "f_") || !strings.HasPrefix(s.URL, "http") {
				t.Fatalf("tool %q: url %q", name, s.URL)
			}
			var schema map[string]any
			if err := json.Unmarshal(s.ParametersSchema, &schema); err != nil || schema["type"] != "object" {
				t.Fatalf("tool %q: schema %s", name, s.ParametersSchema)
			}
			if bytes.Contains(s.ParametersSchema, []byte(`"$ref"`)) && !bytes.Contains(data, []byte(`$ref`)) {
				t.Fatalf("tool %q: a $ref from nowhere", name)
			}
		}
	})
}

// BenchmarkParse imports the sample document (YAML), and a JSON one of 500
// operations.
func BenchmarkParse(b *testing.B) {
	pets, err := os.ReadFile(filepath.Join("testdata", "pets.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	docs := []struct {
		name string
		data []byte
		opts Options
	}{
		{"pets.yaml", pets, Options{Prefix: "pets"}},
		{"500 operations", []byte(manyOperations(500)), Options{BaseURL: "http://h"}},
	}
	for _, d := range docs {
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(d.data, d.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
