package results

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// TestVerdictBuildNotWritten: the local CI verdict's build is the run's
// last build, already in Builds with its log file; results.json does not
// copy it, log and all.
func TestVerdictBuildNotWritten(t *testing.T) {
	r := Results{CI: &Verdict{Green: true, Source: "local", Detail: "build exited 0",
		Build: &contract.ExecutorOutput{BuildLog: strings.Repeat("ok\n", 1000), LogExcerpt: "ok"}}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); strings.Contains(s, "Build") || strings.Contains(s, "build_log") || !strings.Contains(s, `"Detail":"build exited 0"`) {
		t.Errorf("results.json's ci: %s", s)
	}
}
