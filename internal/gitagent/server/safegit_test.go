package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPushRefusesRemoteHelpers pushes to remotes whose configured URL
// names a transport the rule refuses: git refuses it before it starts a
// program, and the plain remotes still work (see the "push" case of
// TestActions).
func TestPushRefusesRemoteHelpers(t *testing.T) {
	for _, tc := range []struct{ name, url, says string }{
		{name: "ext", url: "ext::sh -c touch% %MARKER%", says: "transport 'ext' not allowed"},
		{name: "fd", url: "fd::7", says: "transport 'fd' not allowed"},
		{name: "http", url: "http://127.0.0.1:9/x.git", says: "transport 'http' not allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := newRepo(t)
			marker := filepath.Join(t.TempDir(), "ran")
			git(t, repo, "remote", "add", "evil", strings.ReplaceAll(tc.url, "%MARKER%", marker))
			req, rerr := Decode([]byte(request("git_push", `{"remote":"evil","branch":"main"}`)))
			if rerr != nil {
				t.Fatal(rerr)
			}
			res := (&Runner{Dir: repo}).Execute(context.Background(), req)
			wantFailure(t, res, KindGitFailed, 128)
			if !strings.Contains(res.Data, tc.says) {
				t.Errorf("data %q, want %q", res.Data, tc.says)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the push ran the remote helper's command")
			}
		})
	}
}
