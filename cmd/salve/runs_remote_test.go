package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/service"
	"github.com/salve-dev/salve/internal/store"
)

// TestRunsFromServer reads runs from a server's run store over its API, as
// `salve runs --server URL` does, with and without the right token.
func TestRunsFromServer(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "runs.db"))
	defer st.Close()
	ctx := context.Background()
	r, err := st.CreateRun(ctx, store.Run{Kind: store.KindHeal, Title: "heal on the server"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, r.RunID, "green", map[string]any{"outcome": "green", "reason": "the build is green"}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer((&service.Server{Store: st, Token: "s3cr3t-9f"}).Handler(nil))
	defer srv.Close()
	salve := func(env map[string]string, args ...string) (int, string, string) {
		for _, k := range []string{"SALVE_SERVER_TOKEN", "SALVE_SERVER"} {
			t.Setenv(k, env[k])
		}
		var out, errb bytes.Buffer
		code := run(ctx, args, strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	good := map[string]string{"SALVE_SERVER_TOKEN": "s3cr3t-9f"}
	code, out, errOut := salve(good, "runs", "list", "--server", srv.URL)
	if code != exitOK || !strings.Contains(out, r.RunID) || !strings.Contains(out, "heal on the server") {
		t.Fatalf("list: %d %q %q", code, out, errOut)
	}
	code, out, _ = salve(map[string]string{"SALVE_SERVER_TOKEN": "s3cr3t-9f", "SALVE_SERVER": srv.URL}, "runs", "show", r.RunID[:8], "--json")
	var v store.RunView
	if code != exitOK || json.Unmarshal([]byte(out), &v) != nil || v.Run.RunID != r.RunID {
		t.Fatalf("show: %d %q", code, out)
	}
	for _, tc := range []struct {
		env  map[string]string
		args []string
		code int
		err  string
	}{
		{nil, []string{"runs", "list", "--server", srv.URL}, exitBadInput, "401"},
		{good, []string{"runs", "show", "nope", "--server", srv.URL}, exitBadInput, "404"},
		{good, []string{"runs", "patch", "latest", "--server", srv.URL}, exitBadInput, "local run store only"},
		{good, []string{"runs", "list", "--server", "ftp://x"}, exitBadInput, "http(s) URL"},
		{good, []string{"runs", "list", "--server", "http://u:p@host"}, exitBadInput, "without credentials"},
		{good, []string{"runs", "list", "--server", srv.URL, "--store", "x.db"}, exitBadInput, "two sources"},
	} {
		code, _, errOut := salve(tc.env, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.err) {
			t.Errorf("%v: exit %d, stderr %q; want %d with %q", tc.args, code, errOut, tc.code, tc.err)
		}
		if strings.Contains(errOut, "s3cr3t-9f") && tc.env != nil {
			t.Errorf("%v: the token appears on stderr", tc.args)
		}
	}
}
