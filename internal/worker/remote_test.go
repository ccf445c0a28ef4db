package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/salve-dev/salve/internal/gitremote"
	"github.com/salve-dev/salve/internal/service"
)

// trap is what a refused remote would have reached: remote helper
// programs on PATH that record being run, and an HTTP and an HTTPS server
// on 127.0.0.1 that count the connections they accept.
type trap struct {
	marker      string
	http, https *httptest.Server
	conns       atomic.Int64
}

func newTrap(t *testing.T) *trap {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	tr := &trap{marker: filepath.Join(t.TempDir(), "helper-ran")}
	bin := t.TempDir()
	for _, name := range []string{"git-remote-evil", "git-remote-testgit", "git-remote-transport"} {
		body := fmt.Sprintf("#!/bin/sh\necho \"$0\" >> '%s'\nexit 1\n", tr.marker)
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	count := func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			tr.conns.Add(1)
		}
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.NotFound(w, nil) })
	tr.http = httptest.NewUnstartedServer(h)
	tr.http.Config.ConnState = count
	tr.http.Start()
	t.Cleanup(tr.http.Close)
	tr.https = httptest.NewUnstartedServer(h)
	tr.https.Config.ConnState = count
	tr.https.StartTLS()
	t.Cleanup(tr.https.Close)
	return tr
}

// check fails the test when a helper ran or a server was reached.
func (tr *trap) check(t *testing.T) {
	t.Helper()
	if b, err := os.ReadFile(tr.marker); err == nil {
		t.Errorf("a remote helper ran: %s", b)
	}
	if n := tr.conns.Load(); n != 0 {
		t.Errorf("git opened %d connection(s) to a local server", n)
	}
}

// TestGitRefusesOtherTransports runs the worker's git on remotes outside
// its transports: every remote helper form and plain http. git refuses
// each before it starts a helper program or connects.
//
// On main before the fix, only ext:: and fd:: were refused: the worker's
// git ran git-remote-evil and git-remote-testgit from PATH, and connected
// to the plain-http server.
func TestGitRefusesOtherTransports(t *testing.T) {
	tr := newTrap(t)
	for _, remote := range []string{
		"evil::x",
		"testgit::" + t.TempDir(),
		"transport::x",
		"evil://host/x.git",
		tr.http.URL + "/x.git",
	} {
		t.Run(remote, func(t *testing.T) {
			if _, err := git(context.Background(), "", "ls-remote", "--", remote); err == nil {
				t.Fatalf("git ls-remote %s succeeded", remote)
			}
		})
	}
	tr.check(t)
}

// TestHealRefusesRemotes gives the worker jobs whose repository it must
// not reach: remote helpers, plain http, https to this machine (loopback,
// by address and by name) and a token in the URL. Each ends at once with
// a permanent error that names the policy, before git runs. With
// EnvAllowPrivateRemotes set, https to 127.0.0.1 is let through to git.
//
// On main before the fix, the helpers ran, and git connected to both local
// servers.
func TestHealRefusesRemotes(t *testing.T) {
	tr := newTrap(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(tr.https.URL, "https://"))
	w := &Worker{Getenv: func(string) string { return "" }}
	log := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		repo string
		want error
	}{
		{"evil::x", gitremote.ErrHelper},
		{"testgit::" + t.TempDir(), gitremote.ErrHelper},
		{"evil://host/x.git", gitremote.ErrScheme},
		{tr.http.URL + "/x.git", gitremote.ErrScheme},
		{tr.https.URL + "/x.git", gitremote.ErrPrivate},
		{"https://localhost:" + port + "/x.git", gitremote.ErrPrivate},
		{"https://[::ffff:127.0.0.1]:" + port + "/x.git", gitremote.ErrPrivate},
		{"https://ghp_0123456789abcdefghijABCDEFGHIJ012345@github.com/acme/api.git", gitremote.ErrCredentials},
	} {
		t.Run(tc.repo, func(t *testing.T) {
			msg := service.Message{ID: "0123456789abcdef", Request: service.Request{Repo: tc.repo, Ref: "main"}}
			_, _, _, err := w.heal(context.Background(), msg, log)
			var f *failure
			if !errors.Is(err, tc.want) || !errors.As(err, &f) || !f.permanent {
				t.Fatalf("heal: %v, want a permanent %v", err, tc.want)
			}
		})
	}
	tr.check(t)

	w.Getenv = func(k string) string { return map[string]string{EnvAllowPrivateRemotes: "1"}[k] }
	msg := service.Message{ID: "0123456789abcdef", Request: service.Request{Repo: tr.https.URL + "/x.git", Ref: "main"}}
	if _, _, _, err := w.heal(context.Background(), msg, log); err == nil || errors.Is(err, gitremote.ErrPrivate) {
		t.Fatalf("with %s=1: %v, want git's own failure (an unknown certificate)", EnvAllowPrivateRemotes, err)
	}
	if tr.conns.Load() == 0 {
		t.Fatalf("with %s=1 git never connected to %s", EnvAllowPrivateRemotes, tr.https.URL)
	}
}
