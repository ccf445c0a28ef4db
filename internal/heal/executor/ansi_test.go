package executor_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/executor"
)

// TestColoursStrippedEverywhere runs a build that prints in colour, with a
// sequence split across two writes, as test runners do on a terminal: no
// escape reaches BuildLog, the excerpt, the live stream or build.log, and
// the text between the escapes is all there.
func TestColoursStrippedEverywhere(t *testing.T) {
	cmd := `printf '\033[31m FAIL \033[39m tests/a.test.js\n'; printf '\033[1'; sleep 0.1; printf ';32m ok \033[0m | Total: 32\n'; printf '\033]8;;http://x\007link\033]8;;\007\n'; exit 1`
	for _, iso := range isolations(t) {
		t.Run(iso, func(t *testing.T) {
			var live bytes.Buffer
			ex := newExec(t, iso, executor.Options{SkipProbe: true, Live: &live})
			out, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: t.TempDir(), ResolvedBuildCommand: cmd})
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
			for name, text := range map[string]string{"build_log": out.BuildLog, "log_excerpt": out.LogExcerpt, "live": live.String(), "build.log": string(logFile), "output.json": string(outFile)} {
				if strings.ContainsRune(text, 0x1b) || strings.Contains(text, `\u001b`) {
					t.Errorf("%s holds an escape: %q", name, text)
				}
				if name != "output.json" && !strings.Contains(text, " FAIL  tests/a.test.js\n ok  | Total: 32\nlink\n") {
					t.Errorf("%s lost text: %q", name, text)
				}
			}
		})
	}
}
