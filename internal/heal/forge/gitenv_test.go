package forge_test

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
)

// TestAppGitEnv: the git environment of an App carries the installation
// token only as a basic Authorization header scoped to the GitHub
// server, after a reset of that server's headers; near its expiry a new
// token is minted; a server root that is not https is refused.
func TestAppGitEnv(t *testing.T) {
	srv, app, _, clk := appKit(t, forge.AppConfig{})
	ctx := context.Background()
	tokenOf := func(env []string) string {
		t.Helper()
		i := slices.IndexFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "GIT_CONFIG_VALUE_1=") })
		if i < 0 {
			t.Fatalf("no header in %q", env)
		}
		v := strings.TrimPrefix(env[i], "GIT_CONFIG_VALUE_1=AUTHORIZATION: basic ")
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			t.Fatalf("header %q: %v", env[i], err)
		}
		tok, ok := strings.CutPrefix(string(b), "x-access-token:")
		if !ok {
			t.Fatalf("header user %q", b)
		}
		return tok
	}
	for _, tc := range []struct{ server, key string }{
		{"", "http.https://github.com/.extraheader"},
		{"https://ghe.corp.example/", "http.https://ghe.corp.example/.extraheader"},
	} {
		env, err := app.GitEnv(ctx, tc.server)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=" + tc.key, "GIT_CONFIG_VALUE_0=", "GIT_CONFIG_KEY_1=" + tc.key}
		if !slices.Equal(env[:4], want) {
			t.Errorf("GitEnv(%q) = %q, want it to start %q", tc.server, env, want)
		}
		if tok := tokenOf(env); tok != lastMint(t, srv).Token {
			t.Errorf("the header carries %q, not the minted token", tok)
		}
	}
	first := lastMint(t, srv).Token
	clk.Add(time.Hour - forge.TokenRefreshMargin + time.Second)
	env, err := app.GitEnv(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if tok := tokenOf(env); tok == first || tok != lastMint(t, srv).Token {
		t.Errorf("near its expiry the token was not replaced: %q", tok)
	}
	for _, bad := range []string{"http://github.com", "https://user:pw@github.com", "file:///tmp", "https://a b"} {
		if _, err := app.GitEnv(ctx, bad); err == nil {
			t.Errorf("GitEnv(%q) succeeded", bad)
		}
	}
}

func lastMint(t *testing.T, srv *forgetest.Server) forgetest.Mint {
	t.Helper()
	m := srv.Minted()
	if len(m) == 0 {
		t.Fatal("no token minted")
	}
	return m[len(m)-1]
}
