package rest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRESTTool(t *testing.T) {
	var gotURL, gotBody, gotHeader string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotURL = r.URL.String()
		b, _ := io.ReadAll(r.Body)
		gotBody = string(b)
		gotHeader = r.Header.Get("X-City")
		if strings.Contains(r.URL.RawQuery, "fail") {
			w.WriteHeader(503)
			return
		}
		_, _ = io.WriteString(w, "sunny")
	}))
	defer srv.Close()
	p, err := New(map[string]Spec{
		"weather": {Method: "post", URL: srv.URL + "/w?city=${parameters.city}", Headers: map[string]string{"X-City": "${parameters.city}"},
			BodyTemplate: map[string]any{"days": "${parameters.days}", "note": "city ${parameters.city}"}},
	}, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	if tl := p.Tools(); len(tl) != 1 || tl[0].Name != "rest__weather" || tl[0].Server != "rest" || tl[0].Queue != "default" {
		t.Fatalf("tools = %+v", tl)
	}
	res, err := p.Call(context.Background(), "rest__weather", json.RawMessage(`{"city":"New York","days":3}`))
	if err != nil || res.Text != "sunny" {
		t.Fatalf("call = %+v, %v", res, err)
	}
	if gotURL != "/w?city=New+York" || gotHeader != "New York" || gotBody != `{"days":3,"note":"city New York"}` {
		t.Fatalf("request: url %s header %s body %s", gotURL, gotHeader, gotBody)
	}
	if _, err := p.Call(context.Background(), "rest__weather", json.RawMessage(`{"city":"fail"}`)); err == nil || err.Error() != "HTTP 503" {
		t.Fatalf("want HTTP 503, got %v", err)
	}
}

func TestRESTSpecErrors(t *testing.T) {
	for name, s := range map[string]Spec{"no url": {}, "bad method": {URL: "http://x", Method: "TRACE"}} {
		if _, err := New(map[string]Spec{"x": s}, nil); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

// TestRESTRequestShape: where each argument lands on the wire.
func TestRESTRequestShape(t *testing.T) {
	type seen struct{ path, query, header string }
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := "(absent)"
		if v, ok := r.Header["X-Trace"]; ok {
			h = v[0]
		}
		got <- seen{r.URL.EscapedPath(), r.URL.RawQuery, h}
	}))
	defer srv.Close()
	tests := []struct {
		name string
		spec Spec
		args string
		want seen
	}{
		{"a path value is one segment", Spec{URL: srv.URL + "/pets/${parameters.id}"}, `{"id":"a/b c"}`,
			seen{"/pets/a%2Fb%20c", "", "(absent)"}},
		{"a query value in the template", Spec{URL: srv.URL + "/find?q=${parameters.q}"}, `{"q":"a&b c"}`,
			seen{"/find", "q=a%26b+c", "(absent)"}},
		{"query parameters the call has", Spec{URL: srv.URL + "/pets", Query: []string{"limit", "tags", "missing", "filter"}},
			`{"limit":5,"tags":["x","y z"],"filter":{"b":"2","a":true}}`, seen{"/pets", "a=true&b=2&limit=5&tags=x&tags=y+z", "(absent)"}},
		{"query parameters after a template query", Spec{URL: srv.URL + "/pets?v=1", Query: []string{"limit"}}, `{"limit":2}`,
			seen{"/pets", "v=1&limit=2", "(absent)"}},
		{"an optional header the call left out", Spec{URL: srv.URL + "/h", Headers: map[string]string{"X-Trace": "${parameters.trace}"}}, `{}`,
			seen{"/h", "", "(absent)"}},
		{"a header the call gave", Spec{URL: srv.URL + "/h", Headers: map[string]string{"X-Trace": "${parameters.trace}"}}, `{"trace":"t-1"}`,
			seen{"/h", "", "t-1"}},
		{"a fixed header with an absent placeholder", Spec{URL: srv.URL + "/h", Headers: map[string]string{"X-Trace": "id-${parameters.trace}"}}, `{}`,
			seen{"/h", "", "id-"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(map[string]Spec{"t": tt.spec}, srv.Client())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Call(context.Background(), "rest__t", json.RawMessage(tt.args)); err != nil {
				t.Fatal(err)
			}
			if s := <-got; s != tt.want {
				t.Errorf("request %+v, want %+v", s, tt.want)
			}
		})
	}
}
