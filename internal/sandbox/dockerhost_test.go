package sandbox

import (
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"
)

type fakeInfo struct{}

func (fakeInfo) Name() string       { return "docker.sock" }
func (fakeInfo) Size() int64        { return 0 }
func (fakeInfo) Mode() fs.FileMode  { return fs.ModeSocket }
func (fakeInfo) ModTime() time.Time { return time.Time{} }
func (fakeInfo) IsDir() bool        { return false }
func (fakeInfo) Sys() any           { return nil }

// TestDockerUnreachable: docker is judged unreachable without starting
// it only when its own rules lead to the default socket and there is none
// there; anything else is left to the CLI.
func TestDockerUnreachable(t *testing.T) {
	for _, tt := range []struct {
		name        string
		env         map[string]string
		config      string // "" none; "!" unreadable
		socket      bool
		unreachable bool
	}{
		{name: "nothing anywhere", env: map[string]string{"HOME": "/home/u"}, unreachable: true},
		{name: "default socket exists", env: map[string]string{"HOME": "/home/u"}, socket: true},
		{name: "DOCKER_HOST", env: map[string]string{"HOME": "/home/u", "DOCKER_HOST": "tcp://10.0.0.2:2376"}},
		{name: "DOCKER_CONTEXT", env: map[string]string{"HOME": "/home/u", "DOCKER_CONTEXT": "remote"}},
		{name: "a current context", env: map[string]string{"HOME": "/home/u"}, config: `{"currentContext": "desktop-linux"}`},
		{name: "the default context", env: map[string]string{"HOME": "/home/u"}, config: `{"currentContext": "default", "auths": {}}`, unreachable: true},
		{name: "a config without a context", env: map[string]string{"HOME": "/home/u"}, config: `{"auths": {}}`, unreachable: true},
		{name: "DOCKER_CONFIG is read", env: map[string]string{"HOME": "/home/u", "DOCKER_CONFIG": "/etc/dk"}, config: `{"currentContext": "rootless"}`},
		{name: "an unreadable config", env: map[string]string{"HOME": "/home/u"}, config: "!"},
		{name: "a config that is not JSON", env: map[string]string{"HOME": "/home/u"}, config: "{"},
		{name: "no home", env: map[string]string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.env["DOCKER_CONFIG"]
			if dir == "" {
				dir = tt.env["HOME"] + "/.docker"
			}
			read := func(path string) ([]byte, error) {
				switch {
				case path != dir+"/config.json" || tt.config == "":
					return nil, fs.ErrNotExist
				case tt.config == "!":
					return nil, fs.ErrPermission
				}
				return []byte(tt.config), nil
			}
			lstat := func(path string) (fs.FileInfo, error) {
				if path == DefaultDockerSocket && tt.socket {
					return fakeInfo{}, nil
				}
				return nil, &fs.PathError{Op: "lstat", Path: path, Err: fs.ErrNotExist}
			}
			why := dockerUnreachable(func(k string) string { return tt.env[k] }, lstat, read)
			if (why != "") != tt.unreachable {
				t.Errorf("dockerUnreachable = %q, want unreachable %v", why, tt.unreachable)
			}
		})
	}
}

// TestDockerProbeStartsNothingWithoutEngine: where docker's rules lead to
// no socket, the probe fails without starting the CLI.
func TestDockerProbeStartsNothingWithoutEngine(t *testing.T) {
	if _, err := os.Lstat(DefaultDockerSocket); err == nil {
		t.Skip("a docker socket exists here")
	}
	t.Setenv("DOCKER_HOST", "")
	t.Setenv("DOCKER_CONTEXT", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("DOCKER_CONFIG", "")
	c := Container{Engine: IsolationDocker, Path: "/nonexistent/docker-must-not-start"}
	err := c.Probe(t.Context(), "")
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("probe: %v; want the missing socket named", err)
	}
}
