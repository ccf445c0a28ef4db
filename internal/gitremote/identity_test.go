package gitremote

import (
	"strings"
	"testing"
)

func TestIdentity(t *testing.T) {
	tests := []struct {
		remote, want string
	}{
		{"https://github.com/acme/api.git", "https://github.com/acme/api"},
		{"https://GitHub.com/acme/api/", "https://github.com/acme/api"},
		{"https://user:secret@github.com/acme/api.git", "https://github.com/acme/api"},
		{"https://ghp_abcdefghijklmnopqrstuvwxyz@github.com/acme/api", "https://github.com/acme/api"},
		{"https://github.com/acme/api.git?x=1#frag", "https://github.com/acme/api"},
		{"https://github.com:8443/acme/./x/../api", "https://github.com:8443/acme/api"},
		{"ssh://git@github.com/acme/api.git", "ssh://github.com/acme/api"},
		{"git+ssh://git@github.com/acme/api", "ssh://github.com/acme/api"},
		{"git@github.com:acme/api.git", "ssh://github.com/acme/api"},
		{"github.com:acme/api", "ssh://github.com/acme/api"},
		{"https://[::1]:3000/a/b.git", "https://[::1]:3000/a/b"},
		{"file:///srv/git/api.git", "file:///srv/git/api"},
		{"/srv/git/api/.git", "file:///srv/git/api"},
		{"/srv/git/api/", "file:///srv/git/api"},
	}
	for _, tt := range tests {
		got, ok := Identity(tt.remote)
		if !ok || got != tt.want {
			t.Errorf("Identity(%q) = %q, %v; want %q", tt.remote, got, ok, tt.want)
		}
	}
	for _, bad := range []string{"", "origin", "https://github.com/", "https://github.com/.git", "ext::sh -c x", "http://h/x", "-x", "/", "file:///"} {
		if got, ok := Identity(bad); ok {
			t.Errorf("Identity(%q) = %q, want none", bad, got)
		}
	}
}

// FuzzIdentity checks that no remote makes Identity panic, and that an
// identity never carries user information or a forge token and is
// stable: the identity of an identity is itself.
func FuzzIdentity(f *testing.F) {
	for _, s := range []string{"https://u:p@h/a.git", "git@h:a/b", "/x/y/.git", "ssh://[::1]:22/x", "file:///a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, remote string) {
		id, ok := Identity(remote)
		if !ok {
			return
		}
		host := id[strings.Index(id, "://")+3:]
		if i := strings.IndexByte(host, '/'); i >= 0 {
			host = host[:i]
		}
		if strings.Contains(host, "@") || containsToken(id) && !containsToken(remote) {
			t.Errorf("Identity(%q) = %q keeps user information", remote, id)
		}
		if again, ok := Identity(id); !ok || again != id {
			t.Errorf("Identity(%q) = %q, but Identity of that = %q, %v", remote, id, again, ok)
		}
	})
}
