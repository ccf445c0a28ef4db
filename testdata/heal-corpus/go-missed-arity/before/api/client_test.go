package api

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestCurrent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/current" || r.URL.Query().Get("city") != "São Paulo" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"celsius": 21.5}`))
	}))
	defer srv.Close()
	c := NewClient(srv.URL + "/")
	got, err := c.Current("São Paulo")
	if err != nil || got != 21.5 {
		t.Fatalf("Current = %v, %v; want 21.5", got, err)
	}
	if _, err := c.Current("Atlantis"); err == nil {
		t.Error("no error for an unknown city")
	}
}
