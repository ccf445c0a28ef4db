package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExecMasksPassedSecrets: "salve exec --env GITHUB_PAT --env
// GPG_PASSPHRASE" hands both to the build, and neither value reaches the
// streamed log, the stored run (its event and build.log artifact, or the
// database's raw bytes) or the run directory's build.log and output.json:
// each holds "[masked NAME]" where the build printed the value.
func TestExecMasksPassedSecrets(t *testing.T) {
	dbPath := tempStore(t)
	const pat, phrase = "ghp_e2eTestPat0123456789abcdef", "gpg e2e passphrase 42"
	t.Setenv("GITHUB_PAT", pat)
	t.Setenv("GPG_PASSPHRASE", phrase)
	t.Setenv("GIT_AUTHOR_NAME", "Jane Example-Author")
	runDir := t.TempDir()
	runID := "3f8a4c1e-0000-4000-8000-000000005ec7"
	code, stdout, stderr := runSalve(t, "exec", "--workspace", t.TempDir(), "--run-dir", runDir, "--isolation", "none",
		"--run-id", runID, "--env", "GITHUB_PAT", "--env", "GPG_PASSPHRASE", "--env", "GIT_AUTHOR_NAME",
		"--cmd", `echo "pat=$GITHUB_PAT"; echo "phrase=$GPG_PASSPHRASE" >&2; echo "author=$GIT_AUTHOR_NAME"`)
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	check := func(where, text string) {
		t.Helper()
		if strings.Contains(text, pat) || strings.Contains(text, phrase) {
			t.Errorf("%s holds a secret value:\n%s", where, text)
		}
	}
	wantMasked := func(where, text string) {
		t.Helper()
		check(where, text)
		for _, w := range []string{"pat=[masked GITHUB_PAT]", "phrase=[masked GPG_PASSPHRASE]", "author=Jane Example-Author"} {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q:\n%s", where, w, text)
			}
		}
	}
	wantMasked("stdout", stdout)
	check("stderr", stderr)
	for _, name := range []string{"build.log", "output.json"} {
		b, err := os.ReadFile(filepath.Join(runDir, name))
		if err != nil {
			t.Fatal(err)
		}
		check(name, string(b))
	}
	b, _ := os.ReadFile(filepath.Join(runDir, "build.log"))
	wantMasked("build.log", string(b))

	st := openStore(t, dbPath)
	v, err := st.View(context.Background(), runID)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	ev, _ := json.Marshal(v.Events)
	check("the stored events", string(ev))
	_, data, err := st.ArtifactData(context.Background(), runID, "build.log")
	if err != nil {
		t.Errorf("build.log artifact: %v", err)
	}
	wantMasked("the stored build.log", string(data))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if raw, err := os.ReadFile(dbPath + suffix); err == nil {
			if strings.Contains(string(raw), pat) || strings.Contains(string(raw), phrase) {
				t.Errorf("the run store file%s holds a secret value", suffix)
			}
		}
	}
}
