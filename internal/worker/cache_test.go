package worker

import (
	"testing"

	"github.com/salve-dev/salve/internal/service"
)

// TestCacheKey keys a job's build-cache layer by its repository however
// its URL is spelled, and a fork's by the repository it is proposed to,
// read only.
func TestCacheKey(t *testing.T) {
	tests := []struct {
		name      string
		req       service.Request
		identity  string
		untrusted bool
	}{
		{"a clone URL", service.Request{Repo: "https://github.com/acme/api.git"}, "https://github.com/acme/api", false},
		{"the same without .git", service.Request{Repo: "https://github.com/acme/api"}, "https://github.com/acme/api", false},
		{"a fork", service.Request{Repo: "https://github.com/mallory/api.git", Upstream: "https://github.com/acme/api.git", Untrusted: true},
			"https://github.com/acme/api", true},
		{"an upstream implies untrusted", service.Request{Repo: "https://github.com/mallory/api.git", Upstream: "https://github.com/acme/api.git"},
			"https://github.com/acme/api", true},
		{"untrusted by the API", service.Request{Repo: "https://github.com/acme/api.git", Untrusted: true}, "https://github.com/acme/api", true},
		{"a local path", service.Request{Repo: "/srv/git/api.git"}, "file:///srv/git/api", false},
	}
	for _, tt := range tests {
		id, untrusted := cacheKey(tt.req)
		if id != tt.identity || untrusted != tt.untrusted {
			t.Errorf("%s: %q, %v; want %q, %v", tt.name, id, untrusted, tt.identity, tt.untrusted)
		}
	}
}
