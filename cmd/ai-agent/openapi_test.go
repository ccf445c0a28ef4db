package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
)

// petsSpec is an OpenAPI document whose operations the local pet store
// below serves; {{URL}} is its address.
const petsSpec = `openapi: 3.0.3
info: {title: Pets, version: "1"}
servers:
  - url: "{{URL}}/v1"
paths:
  /pets/{petId}/visits:
    post:
      operationId: bookVisit
      summary: Books a visit for a pet
      parameters:
        - {name: petId, in: path, required: true, schema: {type: string}}
        - {name: notify, in: query, schema: {type: array, items: {type: string}}}
        - {$ref: "#/components/parameters/Trace"}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/Visit"}
  /pets/{petId}/photo:
    put:
      operationId: uploadPhoto
      requestBody:
        required: true
        content:
          image/png: {}
components:
  parameters:
    Trace: {name: X-Trace-Id, in: header, schema: {type: string}}
  schemas:
    Visit:
      type: object
      required: [day]
      properties:
        day: {type: string}
        note: {type: string, nullable: true}
`

// TestOpenAPISpecsSession: a session whose agent names "openapi:pets"
// offers the document's operations as REST tools, and the scripted model's
// call reaches the pet store as the document describes it: path, query,
// header, body and the entry's auth header.
func TestOpenAPISpecsSession(t *testing.T) {
	bin := aiAgentBinary(t)
	type hit struct {
		method, path, query, trace, key, body string
	}
	hits := make(chan hit, 4)
	store := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hits <- hit{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Get("X-Trace-Id"), r.Header.Get("X-Api-Key"), string(b)}
		_, _ = io.WriteString(w, `{"visit":"booked for Tuesday"}`)
	}))
	defer store.Close()

	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pets.yaml", strings.ReplaceAll(petsSpec, "{{URL}}", store.URL))
	write(".ai-agent.json", `{
  "providers": {"test": {"type": "test-llm", "scenarioFile": "s.json"}},
  "openapiSpecs": {"pets": {"spec": "pets.yaml", "headers": {"X-Api-Key": "${PETS_KEY}"}}}
}`)
	write("agent.ai", "---\nmodels: [test/book]\ntools: [\"openapi:pets\"]\n---\nYou book visits.\n")
	write("s.json", `[{"id": "book", "turns": [
  {"turn": 1, "response": {"kind": "tool-call", "toolCalls": [{"toolName": "rest__pets_bookVisit",
    "arguments": {"petId": "rex/1", "notify": ["sms", "mail"], "X-Trace-Id": "t-42", "body": {"day": "Tuesday", "note": null}}}]}},
  {"turn": 2, "response": {"kind": "final-report", "reportContent": "Booked."}}]}]`)

	result := filepath.Join(dir, "result.json")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--result-json", result, "--tooling-transport", "native", filepath.Join(dir, "agent.ai"), "book a visit")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "PETS_KEY=k-9", "AI_TELEMETRY_DISABLE=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ai-agent: %v\nstderr:\n%s", err, stderr.String())
	}
	select {
	case h := <-hits:
		want := hit{"POST", "/v1/pets/rex%2F1/visits", "notify=sms&notify=mail", "t-42", "k-9", `{"day":"Tuesday","note":null}`}
		if h != want {
			t.Errorf("the store got %+v, want %+v", h, want)
		}
	default:
		t.Fatal("the pet store got no request")
	}
	if !strings.Contains(stderr.String(), "PUT /pets/{petId}/photo") || !strings.Contains(stderr.String(), "not JSON (image/png)") {
		t.Errorf("stderr does not name the operation left out:\n%s", stderr.String())
	}
	b, err := os.ReadFile(result)
	if err != nil {
		t.Fatal(err)
	}
	var res contract.AIAgentResult
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	var toolText string
	for _, m := range res.Conversation {
		if m.Role == contract.RoleTool {
			toolText += m.Content
		}
	}
	if !res.Success || !strings.Contains(toolText, "booked for Tuesday") {
		t.Fatalf("success %v, tool results %q", res.Success, toolText)
	}
}

// TestOpenAPISpecsRefused: a document that cannot be imported, or an
// entry that is not there, stops the run before any model call.
func TestOpenAPISpecsRefused(t *testing.T) {
	bin := aiAgentBinary(t)
	tests := []struct {
		name, spec, tool string
		code             int
		want             string
	}{
		{"a URL", `"https://example.com/openapi.json"`, "openapi:pets", exitConfig, "local files only"},
		{"a Swagger 2.0 document", `"swagger.json"`, "openapi:pets", exitConfig, "Swagger 2.0"},
		{"no such entry", `"swagger.json"`, "openapi:nope", exitInit, `openapiSpecs has no entry "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"swagger.json":   `{"swagger":"2.0","paths":{}}`,
				".ai-agent.json": `{"providers":{"test":{"type":"test-llm","scenarioFile":"s.json"}},"openapiSpecs":{"pets":{"spec":` + tt.spec + `}}}`,
				"s.json":         `[{"id":"x","turns":[{"turn":1,"response":{"kind":"final-report","reportContent":"x"}}]}]`,
				"agent.ai":       "---\nmodels: [test/x]\ntools: [\"" + tt.tool + "\"]\n---\nx\n",
			}
			for n, c := range files {
				if err := os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(bin, filepath.Join(dir, "agent.ai"), "go")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+dir, "AI_TELEMETRY_DISABLE=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			_ = cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != tt.code || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("exit %d, want %d; stderr:\n%s\nwant %q", code, tt.code, stderr.String(), tt.want)
			}
		})
	}
}
