package executor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/store"
)

// TestSecretsMaskedEverywhere runs a build that prints secrets it found in
// a file of its workspace and in a variable passed to it, and checks that
// none reaches BuildLog, the excerpt, the live stream, build.log,
// output.json or the run store, under each working backend.
func TestSecretsMaskedEverywhere(t *testing.T) {
	const (
		providerKey = "sk-provider-key-0123456789abcdef" // in salve's environment
		passedToken = "npm-token-abcdef0123456789"       // passed to the build by name
		headerValue = "hdr-value-0123456789"             // configured: Options.Secrets
	)
	t.Setenv("OPENAI_API_KEY", providerKey)
	t.Setenv("NPM_TOKEN", passedToken)
	for _, iso := range isolations(t) {
		t.Run(iso, func(t *testing.T) {
			dbPath := filepath.Join(t.TempDir(), "runs.db")
			st, err := store.Open(dbPath)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ws := t.TempDir()
			// A hostile repository that knows the key (a leaked .env, say)
			// prints it, split across writes, among enough lines to leave
			// the excerpt's head.
			if err := os.WriteFile(filepath.Join(ws, ".env"), []byte(providerKey+"\n"+headerValue+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := `cat .env; printf 'token=%s\n' "$NPM_TOKEN"; printf 'sk-provider-key-'; sleep 0.1; printf '0123456789abcdef\n' >&2; seq 1 300; cat .env; exit 1`
			runID := uuid.NewString()
			var live bytes.Buffer
			ex := newExec(t, iso, executor.Options{RunID: runID, SkipProbe: true, PassEnv: []string{"NPM_TOKEN"},
				Secrets: []string{headerValue}, Live: &live, Recorder: executor.StoreRecorder{Store: st}})
			out, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: ws, ResolvedBuildCommand: cmd})
			if err != nil {
				t.Fatal(err)
			}
			logFile, err := os.ReadFile(out.EnvironmentMetadata.LogPath)
			if err != nil {
				t.Fatal(err)
			}
			outFile, err := os.ReadFile(filepath.Join(filepath.Dir(out.EnvironmentMetadata.LogPath), executor.OutputFile))
			if err != nil {
				t.Fatal(err)
			}
			v, err := st.View(context.Background(), runID)
			if err != nil {
				t.Fatal(err)
			}
			view, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			// The raw database files too: the inline build.log artifact and
			// every event live there.
			var raw []byte
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			files, _ := filepath.Glob(dbPath + "*")
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				raw = append(raw, b...)
			}
			var stored strings.Builder
			stored.Write(view)
			stored.Write(raw)
			places := map[string]string{
				"build_log": out.BuildLog, "log_excerpt": out.LogExcerpt, "live": live.String(),
				"build.log": string(logFile), "output.json": string(outFile), "store": stored.String(),
			}
			for name, text := range places {
				for _, secret := range []string{providerKey, passedToken, headerValue} {
					if strings.Contains(text, secret) {
						t.Errorf("%s holds %q", name, secret)
					}
				}
			}
			for _, name := range []string{"build_log", "build.log", "live"} {
				if !strings.Contains(places[name], "[masked OPENAI_API_KEY]") || !strings.Contains(places[name], "token=[masked NPM_TOKEN]") ||
					!strings.Contains(places[name], "[masked]") {
					t.Errorf("%s lacks the masks:\n%s", name, places[name])
				}
			}
			if !strings.Contains(out.LogExcerpt, "[masked OPENAI_API_KEY]") {
				t.Errorf("the excerpt lacks the mask:\n%s", out.LogExcerpt)
			}
			if !bytes.Contains(raw, []byte("token=[masked NPM_TOKEN]")) {
				t.Errorf("the store holds no masked log (nothing checked?):\n%.2000s", stored.String())
			}
		})
	}
}
