package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/registry"
)

// seedRegistry writes two tools into a fresh registry with a pinned clock.
func seedRegistry(t *testing.T, path string) {
	t.Helper()
	db := registry.NewDB(path)
	db.Now = func() time.Time { return time.Date(2026, 11, 23, 4, 5, 6, 789_000_000, time.UTC) }
	if err := db.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tool := range []registry.Tool{
		{Name: "git_agent", Version: "1.2.3", Description: "git", Actions: []string{"git_add", "git_status"}, ExecutablePath: "/opt/bin/git_agent"},
		{Name: "aider", Version: "0.9", Description: "aider adapter", Actions: []string{"run"}, ExecutablePath: "/opt/bin/aider"},
	} {
		if _, err := db.Register(context.Background(), tool); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRegistryList(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	seedRegistry(t, path)

	code, out, errOut := runSalve(t, "registry", "list", "--registry-db", path)
	want := strings.Join([]string{
		"NAME       VERSION  ACTIONS             REGISTRATIONS  UPDATED                   EXECUTABLE",
		"aider      0.9      run                 1              2026-11-23T04:05:06.789Z  /opt/bin/aider",
		"git_agent  1.2.3    git_add,git_status  1              2026-11-23T04:05:06.789Z  /opt/bin/git_agent",
		"",
	}, "\n")
	if code != exitOK || out != want {
		t.Errorf("code %d stderr %q\n got:\n%s\nwant:\n%s", code, errOut, out, want)
	}

	code, out, _ = runSalve(t, "registry", "list", "--registry-db", path, "--json")
	wantJSON := `[
  {
    "name": "aider",
    "version": "0.9",
    "description": "aider adapter",
    "actions": [
      "run"
    ],
    "executable_path": "/opt/bin/aider",
    "registration_count": 1,
    "created_at": "2026-11-23T04:05:06.789Z",
    "updated_at": "2026-11-23T04:05:06.789Z"
  },
  {
    "name": "git_agent",
    "version": "1.2.3",
    "description": "git",
    "actions": [
      "git_add",
      "git_status"
    ],
    "executable_path": "/opt/bin/git_agent",
    "registration_count": 1,
    "created_at": "2026-11-23T04:05:06.789Z",
    "updated_at": "2026-11-23T04:05:06.789Z"
  }
]
`
	if code != exitOK || out != wantJSON {
		t.Errorf("--json: code %d\n got:\n%s\nwant:\n%s", code, out, wantJSON)
	}
}

func TestRegistryListFromEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "env.db")
	seedRegistry(t, path)
	t.Setenv(registry.EnvDB, path)
	code, out, _ := runSalve(t, "registry", "list")
	if code != exitOK || !strings.Contains(out, "git_agent  1.2.3") {
		t.Errorf("code %d out %q", code, out)
	}
}

func TestRegistryListMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none", "registry.db")
	code, out, _ := runSalve(t, "registry", "list", "--registry-db", path, "--json")
	if code != exitOK || out != "[]\n" {
		t.Errorf("code %d out %q", code, out)
	}
	code, out, errOut := runSalve(t, "registry", "list", "--registry-db", path)
	if code != exitOK || out != "" || !strings.Contains(errOut, "no tools registered") {
		t.Errorf("code %d out %q stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("list created the registry file: %v", err)
	}
}

func TestRegistryListErrors(t *testing.T) {
	garbage := filepath.Join(t.TempDir(), "garbage.db")
	if err := os.WriteFile(garbage, bytes.Repeat([]byte("not sqlite "), 20), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runSalve(t, "registry", "list", "--registry-db", garbage)
	if code != exitFailure || !strings.Contains(errOut, "registry") {
		t.Errorf("garbage file: code %d stderr %q", code, errOut)
	}
	code, _, _ = runSalve(t, "registry", "list", "extra-arg")
	if code != exitBadInput {
		t.Errorf("extra argument: code %d, want %d", code, exitBadInput)
	}
}

func TestRegistryListFlags(t *testing.T) {
	var got *registryListOptions
	cmd := newRegistryListCmd(&streams{}, func(_ context.Context, o *registryListOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--registry-db", "../../data/memory.db", "--json"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.DBPath != "../../data/memory.db" || !got.JSON {
		t.Errorf("options %+v", got)
	}
}
