package gitremote

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		remote string
		want   error // nil: accepted
	}{
		{"origin", nil},
		{"../up.git", nil},
		{"/srv/git/a.git", nil},
		{"./dir:with/colon", nil},
		{"file:///srv/git/a.git", nil},
		{"https://github.com/acme/api.git", nil},
		{"https://[::1]/x.git", nil}, // a URL, not a helper (CheckPublic refuses it)
		{"https://[2001:db8::1]:8443/x.git", nil},
		{"ssh://git@host:22/x.git", nil},
		{"git+ssh://host/x", nil},
		{"ssh+git://host/x", nil},
		{"git://host/x.git", nil},
		{"git@github.com:acme/api.git", nil},
		{"[git@host:22]:x.git", nil},
		{"", ErrInvalid},
		{strings.Repeat("a", MaxLen+1), ErrInvalid},
		{"--upload-pack=touch /tmp/x", ErrInvalid},
		{"-", ErrInvalid},
		{"https://host/x\n.git", ErrInvalid},
		{"a\x7fb", ErrInvalid},
		{"ext::sh -c touch% /tmp/x", ErrHelper},
		{"fd::3", ErrHelper},
		{"testgit::/tmp/x", ErrHelper},
		{"transport::x", ErrHelper},
		{"evil::https://host/x", ErrHelper},
		{"a b::c", ErrHelper},
		{"::x", ErrHelper},
		{"http://127.0.0.1:1/x.git", ErrScheme},
		{"http://github.com/acme/api.git", ErrScheme},
		{"HTTPS://github.com/x", ErrScheme},
		{"ftp://host/x", ErrScheme},
		{"evil://host/x", ErrScheme},
		{"git-remote-evil://x", ErrScheme},
	} {
		err := Check(tc.remote)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("Check(%.40q) = %v, want %v", tc.remote, err, tc.want)
		}
	}
}

func TestCheckCredentials(t *testing.T) {
	const tok = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	for _, tc := range []struct {
		remote string
		bad    bool
	}{
		{"https://github.com/acme/api.git", false},
		{"https://alice@github.com/acme/api.git", false},
		{"ssh://git@host/x.git", false},
		{"git@github.com:acme/api.git", false},
		{"/srv/git/user:pw@x", false},
		{"https://host/ghp_short/x.git", false},
		{"https://host/acme/repo@v1.git", false},
		{"https://user:secret@host/x.git", true},
		{"https://user:@host/x.git", true},
		{"https://x-access-token:abc@github.com/x.git", true},
		{"https://" + tok + "@github.com/x.git", true},
		{"https://" + strings.Replace(tok, "_", "%5F", 1) + "@github.com/x.git", true},
		{"https://glpat-abcdefghij0123456789@gitlab.com/x.git", true},
		{"https://0123456789abcdef0123456789abcdef01234567@host/x.git", true}, // a 40-hex token
		{"https://host/x.git?private_token=glpat-abcdefghij0123456789", true},
		{tok + "@github.com:acme/api.git", true},
		{"ssh://user:pw@host/x", true},
	} {
		err := CheckCredentials(tc.remote)
		if tc.bad != (err != nil) || err != nil && !errors.Is(err, ErrCredentials) {
			t.Errorf("CheckCredentials(%q) = %v, want refused %v", tc.remote, err, tc.bad)
		}
		if err != nil && (strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "0123456789")) {
			t.Errorf("CheckCredentials(%q): the error quotes the secret: %v", tc.remote, err)
		}
	}
}

func TestHost(t *testing.T) {
	for _, tc := range []struct {
		remote, host string
		ok           bool
	}{
		{"https://github.com/acme/api.git", "github.com", true},
		{"https://user@GitHub.COM.:443/x", "github.com", true},
		{"https://[::1]:8443/x", "::1", true},
		{"https://[fe80::1%25eth0]/x", "fe80::1", true},
		{"ssh://git@10.0.0.5:2222/x", "10.0.0.5", true},
		{"git://127.0.0.1/x", "127.0.0.1", true},
		{"http://localhost:8080/x", "localhost", true},
		{"git@host.example:acme/x.git", "host.example", true},
		{"user@[::1]:x.git", "::1", true},
		{"[git@host:22]:x.git", "host", true},
		{"file:///srv/x.git", "", false},
		{"/srv/x.git", "", false},
		{"./a:b", "", false},
		{"origin", "", false},
		{"fd::3", "", false},
	} {
		host, ok := Host(tc.remote)
		if host != tc.host || ok != tc.ok {
			t.Errorf("Host(%q) = %q, %v; want %q, %v", tc.remote, host, ok, tc.host, tc.ok)
		}
	}
}

func TestCheckPublic(t *testing.T) {
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "internal.example":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.1.2.3")}, nil
		case "public.example":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
		case "mapped.example":
			return []netip.Addr{netip.MustParseAddr("::ffff:127.0.0.1")}, nil
		}
		return nil, errors.New("no such host")
	}
	for _, tc := range []struct {
		remote  string
		private bool
	}{
		{"https://github.com/acme/api.git", false}, // lookup fails: git decides
		{"https://public.example/x.git", false},
		{"https://93.184.216.34/x.git", false},
		{"https://[2606:4700::1111]/x.git", false},
		{"/srv/git/x.git", false},
		{"file:///srv/git/x.git", false},
		{"origin", false},
		{"https://127.0.0.1:8443/x.git", true},
		{"https://127.9.9.9/x.git", true},
		{"https://localhost/x.git", true},
		{"https://LOCALHOST./x.git", true},
		{"https://svc.localhost/x.git", true},
		{"https://[::1]/x.git", true},
		{"https://[::ffff:127.0.0.1]/x.git", true},
		{"https://[fe80::1%25eth0]/x.git", true},
		{"https://169.254.169.254/latest/meta-data", true},
		{"https://10.0.0.1/x.git", true},
		{"https://172.16.5.4/x.git", true},
		{"https://192.168.1.1/x.git", true},
		{"https://100.64.0.1/x.git", true},
		{"https://0.0.0.0/x.git", true},
		{"https://[fd00::1]/x.git", true},
		{"https://2130706433/x.git", true},
		{"https://0x7f.1/x.git", true},
		{"https://127.1/x.git", true},
		{"https://0177.0.0.1/x.git", true},
		{"https://internal.example/x.git", true},
		{"https://mapped.example/x.git", true},
		{"ssh://git@127.0.0.1/x.git", true},
		{"git://10.0.0.1/x.git", true},
		{"git@192.168.0.2:x.git", true},
		{"user@[::1]:x.git", true},
		{"http://127.0.0.1:1/x.git", true},
	} {
		err := CheckPublic(context.Background(), tc.remote, lookup)
		if tc.private != (err != nil) || err != nil && !errors.Is(err, ErrPrivate) {
			t.Errorf("CheckPublic(%q) = %v, want private %v", tc.remote, err, tc.private)
		}
	}
}

// FuzzCheck: no remote makes the checks panic; an accepted remote is never
// option-like and never a helper; a remote whose credentials are refused
// never has them quoted in the error.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"origin", "https://u:p@h/x", "ext::sh", "git@h:x", "[u@h:22]:x", "user@[::1]:x",
		"https://[fe80::1%25e]/x", "0x7f.1", "-x", "a::b", "https://ghp_0123456789abcdefghij@h/x", "://", "[", "a:[b]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := Check(s)
		if err == nil {
			if s == "" || s[0] == '-' {
				t.Fatalf("Check accepted %q", s)
			}
			if _, helper := helperName(s); helper {
				t.Fatalf("Check accepted the helper form %q", s)
			}
		}
		if err := CheckCredentials(s); err != nil && len(s) > 8 && strings.Contains(err.Error(), s) {
			t.Fatalf("CheckCredentials quotes the remote: %v", err)
		}
		_, _ = Host(s)
		_ = CheckPublic(context.Background(), s, nil)
	})
}
