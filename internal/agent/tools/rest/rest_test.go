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
