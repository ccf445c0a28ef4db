package wire

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/llm"
)

func TestBound(t *testing.T) {
	for _, tc := range []struct {
		name     string
		timeout  time.Duration
		deadline bool
	}{
		{"no timeout", 0, false},
		{"timeout", time.Hour, true},
	} {
		ctx, cancel := Endpoint{Timeout: tc.timeout}.Bound(context.Background())
		d, ok := ctx.Deadline()
		if ok != tc.deadline || (ok && time.Until(d) > tc.timeout) {
			t.Errorf("%s: deadline %v, %v", tc.name, d, ok)
		}
		cancel()
		if tc.deadline && ctx.Err() == nil {
			t.Errorf("%s: cancel did not end the context", tc.name)
		}
	}
}

func TestFunctionTools(t *testing.T) {
	for _, tc := range []struct {
		name string
		defs []llm.ToolDef
		want string
	}{
		{"none", nil, `null`},
		{"schema kept", []llm.ToolDef{{Name: "fs__read", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object","required":["path"]}`)}},
			`[{"type":"function","function":{"name":"fs__read","description":"Read a file","parameters":{"type":"object","required":["path"]}}}]`},
		{"no schema, no description", []llm.ToolDef{{Name: "agent__final_report"}},
			`[{"type":"function","function":{"name":"agent__final_report","parameters":{"type":"object","properties":{}}}}]`},
	} {
		got, err := json.Marshal(FunctionTools(tc.defs))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestPostMeters checks that the bytes sent and read reach the context's
// meter, for an answer and for an error answer alike, and that Classify
// replaces the status classification when set.
func TestPostMeters(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		classify func(int, http.Header, []byte) *llm.Error
		class    llm.Class
	}{
		{"ok", 200, `{"x":"yes"}`, nil, ""},
		{"error body", 429, `{"error":{"message":"slow down"}}`, nil, llm.ClassRateLimit},
		{"own classification", 429, `{"error":{"status":"X"}}`, func(status int, _ http.Header, body []byte) *llm.Error {
			return &llm.Error{Class: llm.ClassQuota, Status: status, Message: string(body)}
		}, llm.ClassQuota},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			var m llm.Meter
			ep := Endpoint{Provider: "p", Classify: tc.classify}
			resp, err := ep.Post(llm.WithMeter(context.Background(), &m), srv.URL, map[string]string{"q": "hello"}, false)
			if tc.class == "" {
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
			} else if e := llm.AsError(err); e == nil || e.Class != tc.class || e.Status != tc.status {
				t.Fatalf("err = %v, want %s", err, tc.class)
			}
			sent, received := m.Bytes()
			if sent != int64(len(`{"q":"hello"}`)) || received != int64(len(tc.body)) {
				t.Fatalf("meter %d/%d, want %d/%d", sent, received, len(`{"q":"hello"}`), len(tc.body))
			}
		})
	}
}

func TestObjectArgs(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1,  "b": [1, 2]}`: `{"a":1,"b":[1,2]}`,
		` {} `:                   `{}`,
		`{"a":`:                  `{}`,
		`[1]`:                    `{}`,
		`"text"`:                 `{}`,
		``:                       `{}`,
	} {
		if got := string(ObjectArgs(in)); got != want {
			t.Errorf("ObjectArgs(%q) = %s, want %s", in, got, want)
		}
	}
}
