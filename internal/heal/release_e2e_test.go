package heal_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/salve-dev/salve/internal/sandbox"
)

// releaseVersion is the tag the release test packs and installs.
const releaseVersion = "v0.0.0-release-test"

// serveRelease packs make dist's archives for this machine and serves
// them the way GitHub serves a release: /latest redirects to
// /tag/<version>, and /download/<version>/<file> is the file.
func serveRelease(t *testing.T) *httptest.Server {
	t.Helper()
	need(t, "go", "git", "bash", "curl", "tar", "sha256sum", "gzip")
	if runtime.GOOS != "linux" {
		t.Skip("the release install steps run on linux runners")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	dist := filepath.Join(t.TempDir(), "dist")
	env := sandbox.MergeEnv(sandbox.AllowedEnv("GOCACHE", "GOPATH", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GONOSUMDB", "GOTOOLCHAIN", "HOME"),
		map[string]string{"VERSION": releaseVersion, "PLATFORMS": "linux/" + runtime.GOARCH})
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "bash", Args: []string{"scripts/dist.sh", dist}, Dir: root, Env: env, Timeout: 10 * time.Minute})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("make dist: exit %d (%v)\n%s\n%s", res.ExitCode, err, res.Stdout, res.Stderr)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /latest", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/tag/"+releaseVersion, http.StatusFound)
	})
	mux.HandleFunc("GET /tag/{tag}", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("GET /download/{tag}/{file}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("tag") != releaseVersion {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, filepath.Join(dist, filepath.Base(r.PathValue("file"))))
	})
	mux.HandleFunc("GET /latest/download/{file}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/download/"+releaseVersion+"/"+r.PathValue("file"), http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// checkInstalled runs the installed salve and checks it is the release.
func checkInstalled(t *testing.T, bin string, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if st, err := os.Stat(filepath.Join(bin, p)); err != nil || st.Mode()&0o111 == 0 {
			t.Errorf("%s was not installed into %s: %v", p, bin, err)
		}
	}
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: filepath.Join(bin, "salve"), Args: []string{"--version"}, Timeout: time.Minute})
	if err != nil || !strings.Contains(string(res.Stdout), releaseVersion) {
		t.Errorf("salve --version: %v %q %q", err, res.Stdout, res.Stderr)
	}
}

// TestReleaseInstall installs salve from make dist's archives, served
// locally as a release, with the GitHub Action's install step and with
// the GitLab template's install script: the names the steps download are
// the names make dist writes, and the checksums they verify are its own.
func TestReleaseInstall(t *testing.T) {
	srv := serveRelease(t)
	base := sandbox.AllowedEnv()
	t.Run("github action", func(t *testing.T) {
		for _, version := range []string{"latest", releaseVersion} {
			runner := t.TempDir()
			bin := filepath.Join(runner, "salve-bin")
			env := sandbox.MergeEnv(base, map[string]string{"SALVE_VERSION": version, "SALVE_RELEASES_URL": srv.URL,
				"RUNNER_TEMP": runner, "GITHUB_PATH": filepath.Join(runner, "path"), "SALVE_BIN_DIR": bin})
			root, _ := filepath.Abs(filepath.Join("..", ".."))
			res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "bash", Args: []string{filepath.Join(root, "scripts", "ci", "action.sh"), "install"},
				Dir: runner, Env: env, Timeout: 5 * time.Minute})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("%s: action.sh install: exit %d (%v)\n%s\n%s", version, res.ExitCode, err, res.Stdout, res.Stderr)
			}
			checkInstalled(t, bin, "salve", "git_agent", "ai-agent", "ai-agent-telemetry")
		}
	})
	t.Run("gitlab template", func(t *testing.T) {
		raw, err := os.ReadFile(filepath.Join("..", "..", "ci", "salve.gitlab-ci.yml"))
		if err != nil {
			t.Fatal(err)
		}
		var tmpl map[string]struct {
			Script []string `yaml:"script"`
		}
		if err := yaml.Unmarshal(raw, &tmpl); err != nil || len(tmpl[".salve-heal"].Script) == 0 {
			t.Fatalf("template: %v", err)
		}
		install := tmpl[".salve-heal"].Script[0]
		for _, version := range []string{"latest", releaseVersion} {
			bin := filepath.Join(t.TempDir(), "bin")
			env := sandbox.MergeEnv(base, map[string]string{"SALVE_VERSION": version, "SALVE_RELEASES_URL": srv.URL, "SALVE_BIN_DIR": bin})
			res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "bash", Args: []string{"-e", "-c", install}, Dir: t.TempDir(), Env: env, Timeout: 5 * time.Minute})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("%s: install script: exit %d (%v)\n%s\n%s", version, res.ExitCode, err, res.Stdout, res.Stderr)
			}
			checkInstalled(t, bin, "salve", "git_agent")
		}
	})
}
