package gitguard

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRun runs the real git with Args(t, args...) and Env over a bare
// environment, plus extra, in dir.
func gitRun(t *testing.T, dir string, tr Transport, extra map[string]string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", Args(tr, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	for k, v := range Env() {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for k, v := range extra {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestRunRule runs real git under the rule: the remotes each Transport
// reaches and refuses, and the programs a hostile repository configures,
// which never run.
func TestRunRule(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(dir, "bare.git")
	work := filepath.Join(dir, "work")
	marker := filepath.Join(dir, "ran")
	if out, err := exec.Command("git", "init", "-q", "--bare", bare).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if out, err := exec.Command("git", "init", "-q", work).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// A hostile repository: a hook directory of its own and a file system
	// monitor, both writing the marker.
	script := "#!/bin/sh\ntouch " + marker + "\n"
	write(t, filepath.Join(work, "hooks", "pre-commit"), script, 0o755)
	write(t, filepath.Join(work, "hooks", "post-commit"), script, 0o755)
	write(t, filepath.Join(work, "monitor"), script, 0o755)
	for _, kv := range [][2]string{{"core.hooksPath", "hooks"}, {"core.fsmonitor", filepath.Join(work, "monitor")}} {
		if out, err := exec.Command("git", "-C", work, "config", kv[0], kv[1]).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	ext := "ext::sh -c touch% " + marker
	for _, tc := range []struct {
		name  string
		tr    Transport
		extra map[string]string
		dir   string
		args  []string
		ok    bool
		says  string
	}{
		{name: "remote reaches a local path", tr: Remote, args: []string{"ls-remote", "--", bare}, ok: true},
		{name: "remote reaches a file URL", tr: Remote, args: []string{"ls-remote", "--", "file://" + bare}, ok: true},
		{name: "remote refuses ext", tr: Remote, args: []string{"ls-remote", "--", ext}, says: "transport 'ext' not allowed"},
		{name: "remote refuses fd", tr: Remote, args: []string{"ls-remote", "--", "fd::3"}, says: "transport 'fd' not allowed"},
		{name: "remote refuses plain http", tr: Remote, args: []string{"ls-remote", "--", "http://127.0.0.1:9/x.git"}, says: "transport 'http' not allowed"},
		{name: "remote refuses a path git follows by itself", tr: Remote, extra: map[string]string{"GIT_PROTOCOL_FROM_USER": "0"},
			args: []string{"ls-remote", "--", bare}, says: "transport 'file' not allowed"},
		{name: "push to ext is refused", tr: Remote, dir: work, args: []string{"push", ext, "HEAD:refs/heads/x"}, says: "transport 'ext' not allowed"},
		{name: "offline refuses a local path", tr: Offline, args: []string{"ls-remote", "--", bare}, says: "transport 'file' not allowed"},
		{name: "offline refuses ext", tr: Offline, args: []string{"ls-remote", "--", ext}, says: "transport 'ext' not allowed"},
		{name: "commit runs no hook", tr: Offline, dir: work, args: []string{"commit", "-q", "--allow-empty", "-m", "x"}, ok: true},
		{name: "status runs no fsmonitor", tr: Offline, dir: work, args: []string{"status", "--porcelain"}, ok: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.dir
			if d == "" {
				d = dir
			}
			out, err := gitRun(t, d, tc.tr, tc.extra, tc.args...)
			if tc.ok && err != nil {
				t.Fatalf("git %v: %v: %s", tc.args, err, out)
			}
			if !tc.ok && (err == nil || !strings.Contains(out, tc.says)) {
				t.Fatalf("git %v: err %v, output %q; want a refusal saying %q", tc.args, err, out, tc.says)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("git ran a program the repository or the URL named")
			}
		})
	}
}

func TestArgsAndEnv(t *testing.T) {
	for _, tc := range []struct {
		tr         Transport
		has, lacks []string
	}{
		{tr: Offline, has: []string{"protocol.allow=never", "core.hooksPath=/dev/null", "credential.helper="}, lacks: []string{"protocol.https.allow=always"}},
		{tr: Remote, has: []string{"protocol.allow=never", "core.hooksPath=/dev/null", "protocol.https.allow=always", "protocol.file.allow=user"},
			lacks: []string{"credential.helper=", "protocol.ext.allow=always", "protocol.http.allow=always"}},
	} {
		args := Args(tc.tr, "status", "--short")
		if got := strings.Join(args[len(args)-2:], " "); got != "status --short" {
			t.Errorf("transport %d: the command is not last: %v", tc.tr, args)
		}
		settings := map[string]bool{}
		for i := 0; i+1 < len(args)-2; i += 2 {
			if args[i] != "-c" {
				t.Fatalf("transport %d: %q where -c belongs: %v", tc.tr, args[i], args)
			}
			settings[args[i+1]] = true
		}
		for _, kv := range tc.has {
			if !settings[kv] {
				t.Errorf("transport %d lacks %s", tc.tr, kv)
			}
		}
		for _, kv := range tc.lacks {
			if settings[kv] {
				t.Errorf("transport %d has %s", tc.tr, kv)
			}
		}
	}
	e := Env()
	e["GIT_TERMINAL_PROMPT"] = "1"
	if Env()["GIT_TERMINAL_PROMPT"] != "0" {
		t.Error("Env shares its map with a caller")
	}
	if _, ok := Env()["GIT_PROTOCOL_FROM_USER"]; ok {
		t.Error("Env sets GIT_PROTOCOL_FROM_USER, which would refuse the caller's own file remote")
	}
}
