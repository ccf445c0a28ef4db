package executor

import (
	"fmt"

	"github.com/salve-dev/salve/contract"
)

// Summary is the one line that says how a build ended: passed, failed or
// timed out, its exit code and time, the project type, the isolation and
// the run. salve exec ends a streamed run with it and the MCP exec tool
// opens its answer with it.
func Summary(runID string, out contract.ExecutorOutput) string {
	m := out.EnvironmentMetadata
	status := "passed"
	switch {
	case m.TimedOut:
		status = "timed out"
	case out.ExitCode != 0:
		status = "failed"
	}
	return fmt.Sprintf("build %s (exit %d) in %.1fs · %s · %s isolation · run %s",
		status, out.ExitCode, out.ExecutionTimeSeconds, m.ProjectType, m.Isolation, runID)
}
