package toolrun_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/toolrun"
)

// readEnvDump reads the fake's dump-env file into a map.
func readEnvDump(t *testing.T, path string) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, line := range strings.Split(readFile(t, path), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	return env
}

const testSecret = "sk-test-9f8e7d6c5b4a-secret"

// TestChildEnvironmentFollowsSeed: the tool gets salve's whole environment
// merged with the request's env, AIDER_NO_AUTO_COMMITS=1 forced last
// (docs/contracts/tool-adapter.md §4.2); known secrets never reach what is
// kept.
func TestChildEnvironmentFollowsSeed(t *testing.T) {
	root := newWorkTree(t)
	t.Setenv("PATH", fakePATH(t))
	t.Setenv("HTTPS_PROXY", "http://proxy.example.invalid:3128")
	t.Setenv("SALVE_TEST_PROVIDER_URL", "http://llm.example.invalid")
	t.Setenv("OPENAI_API_KEY", testSecret)
	t.Setenv("MY_SERVICE_TOKEN", testSecret+"-token")
	dump := filepath.Join(t.TempDir(), "env")
	req := aiderRequest(t, root, []string{"src/app.py"},
		"dump-env "+dump, "print-env OPENAI_API_KEY", "print-env MY_SERVICE_TOKEN",
		"write-env src/app.py OPENAI_API_KEY")
	req.Env["AIDER_NO_AUTO_COMMITS"] = "0"
	req.Env["SALVE_TEST_PROVIDER_URL"] = "http://override.example.invalid"
	dbPath := filepath.Join(t.TempDir(), "runs.db")
	st, err := store.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	out := (&toolrun.Adapter{Store: st}).RunAider(context.Background(), req, toolrun.RunOptions{})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if out.Result.ExitCode != 0 {
		t.Fatalf("result %+v", out.Result)
	}
	env := readEnvDump(t, dump)
	for k, want := range map[string]string{
		"HTTPS_PROXY": "http://proxy.example.invalid:3128", "SALVE_TEST_PROVIDER_URL": "http://override.example.invalid",
		"OPENAI_API_KEY": testSecret, "AIDER_NO_AUTO_COMMITS": "1", "AIDER_MODEL": "gpt-4", "HOME": os.Getenv("HOME"),
	} {
		if env[k] != want {
			t.Errorf("child %s = %q, want %q", k, env[k], want)
		}
	}
	// The file the tool wrote holds the key; nothing salve keeps does.
	if !strings.Contains(readFile(t, filepath.Join(root, "src/app.py")), testSecret) {
		t.Fatalf("the fake did not write the key")
	}
	if !strings.Contains(out.Result.Stdout, "OPENAI_API_KEY="+store.Redacted) {
		t.Errorf("stdout not masked: %q", out.Result.Stdout)
	}
	rec, _ := json.Marshal(out.Record)
	res, _ := json.Marshal(out.Result)
	for name, b := range map[string][]byte{"record": rec, "result": res} {
		if strings.Contains(string(b), testSecret) {
			t.Errorf("%s holds the secret", name)
		}
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(dbPath + suffix)
		if err == nil && strings.Contains(string(b), testSecret) {
			t.Errorf("the run store %s holds the secret", suffix)
		}
	}
	if len(out.Record.Patches) != 1 || !strings.Contains(out.Record.Patches[0].Diff, store.Redacted) {
		t.Errorf("patch not masked: %+v", out.Record.Patches)
	}
}

// TestScrubbedEnvironmentOnRequest: env_policy "scrubbed" (or
// RunOptions.ScrubEnv) gives only the allow-list and the profile's own
// variables.
func TestScrubbedEnvironmentOnRequest(t *testing.T) {
	root := newWorkTree(t)
	t.Setenv("PATH", fakePATH(t))
	t.Setenv("SALVE_TEST_UNRELATED_SECRET_X", "x")
	t.Setenv("OPENAI_API_KEY", testSecret)
	for _, how := range []string{"context", "option", "explicit base"} {
		t.Run(how, func(t *testing.T) {
			dump := filepath.Join(t.TempDir(), "env")
			req := aiderRequest(t, root, []string{"src/app.py"}, "dump-env "+dump)
			opts := toolrun.RunOptions{}
			a := &toolrun.Adapter{}
			switch how {
			case "context":
				req.Context[toolrun.ContextEnvPolicy] = toolrun.EnvScrubbed
			case "option":
				opts.ScrubEnv = true
			default:
				// A caller that keeps secrets out of its own environment
				// hands the base over; the policy filters it too.
				a.ScrubEnv = true
				a.Env = append(os.Environ(), "SALVE_TEST_UNRELATED_SECRET_Y=y")
			}
			out := a.RunAider(context.Background(), req, opts)
			if out.Result.ExitCode != 0 {
				t.Fatalf("result %+v", out.Result)
			}
			env := readEnvDump(t, dump)
			if _, ok := env["SALVE_TEST_UNRELATED_SECRET_Y"]; ok {
				t.Errorf("scrubbed env passed an unrelated variable of the explicit base")
			}
			if _, ok := env["SALVE_TEST_UNRELATED_SECRET_X"]; ok {
				t.Errorf("scrubbed env passed an unrelated variable")
			}
			if env["OPENAI_API_KEY"] != testSecret || env["AIDER_NO_AUTO_COMMITS"] != "1" || env["PATH"] == "" {
				t.Errorf("scrubbed env lacks the tool's own variables: %v", env)
			}
			if ev := out.Record.Events[0]; ev.Context["env_policy"] != toolrun.EnvScrubbed {
				t.Errorf("first event %+v", ev)
			}
		})
	}
}

// TestSetsidDaemonIsKilled: a daemon the tool starts in a new session
// (out of its process group) does not outlive the run.
func TestSetsidDaemonIsKilled(t *testing.T) {
	for _, tc := range []struct {
		name    string
		adapter func(*toolrun.Adapter) *toolrun.Adapter
		reaper  string
	}{
		{"pid namespace", func(a *toolrun.Adapter) *toolrun.Adapter { return a }, "pid namespace"},
		{"subreaper fallback", toolrun.WithoutPIDNamespace, "subreaper"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := newWorkTree(t)
			pidFile := filepath.Join(t.TempDir(), "daemon.pid")
			req := aiderRequest(t, root, []string{"src/app.py"}, "daemon "+pidFile+" 300", "write src/app.py x = 1")
			out := tc.adapter(newAdapter(t)).RunAider(context.Background(), req, toolrun.RunOptions{})
			if out.Result.ExitCode != 0 {
				t.Fatalf("result %+v", out.Result)
			}
			pid := strings.TrimSpace(readFile(t, pidFile))
			t.Cleanup(func() { killPID(pid) })
			if b, err := os.ReadFile("/proc/" + pid + "/cmdline"); err == nil && !strings.HasPrefix(string(b), "sleep\x00300") && len(b) > 0 {
				t.Fatalf("pid %s is not the daemon: %q", pid, b)
			}
			// The kernel (namespace) or the reaper kills it before RunAider
			// returns; allow a moment for the teardown.
			deadline := time.Now().Add(5 * time.Second)
			for !processGone(pid) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if !processGone(pid) {
				t.Fatalf("daemon %s survived the run", pid)
			}
			last := out.Record.Events[len(out.Record.Events)-1]
			if got := last.Context["process_tree"]; got != tc.reaper {
				t.Errorf("process_tree %v, want %s", got, tc.reaper)
			}
		})
	}
}
