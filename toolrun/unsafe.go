package toolrun

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// ExitUnsafeChange is the exit_code of a run whose tool changed something
// that could run code on the user's machine or reach outside the work
// tree: a git hook or config, a .git entry, a link leading out of the tree,
// a file outside the tree written through a link. Salve put back what it
// could (ERROR events say what), and the result is not a success whatever
// the tool's own exit status was (kept in an event). It is salve's second
// extension of the seed's exit-code table, after -4.
const ExitUnsafeChange = -5

// checkGit puts back every guarded git path the tool changed and records
// each as an ERROR event.
func (rs *runState) checkGit() {
	rs.gitDone = true
	quarantine := ".salve-quarantine-" + shortID(rs.runID)
	for _, c := range rs.guard.restore(rs.gitBefore, quarantine) {
		shown := rs.showPath(c.Path)
		ctx := map[string]any{"path": shown, "change": c.What, "reverted": c.Reverted}
		if c.Err != nil {
			rs.event(contract.LevelError, fmt.Sprintf("The tool changed %s (%s), which git could use to run a program; NOT reverted: %v", shown, c.What, c.Err), ctx)
		} else {
			rs.event(contract.LevelError, fmt.Sprintf("The tool changed %s (%s), which git could use to run a program; reverted", shown, c.What), ctx)
		}
		rs.unsafe = append(rs.unsafe, shown)
	}
}

// showPath names p relative to the work tree when it is inside it.
func (rs *runState) showPath(p string) string {
	if rel, err := filepath.Rel(rs.root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return filepath.ToSlash(rel)
	}
	return p
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// markUnsafe turns a run with unsafe changes into a failure: exit_code
// ExitUnsafeChange (unless the run already failed on its own), a line on
// stderr, and the paths among the scope violations.
func (rs *runState) markUnsafe() {
	if len(rs.unsafe) == 0 || rs.unsafeMarked {
		return
	}
	rs.unsafeMarked = true
	seen := map[string]bool{}
	for _, v := range rs.violated {
		seen[v] = true
	}
	for _, u := range rs.unsafe {
		if !seen[u] {
			seen[u] = true
			rs.violated = append(rs.violated, u)
		}
	}
	msg := fmt.Sprintf("salve: unsafe changes by the tool (git hooks or config, links out of the work tree): %s", strings.Join(rs.unsafe, ", "))
	if rs.result.ExitCode >= 0 {
		rs.event(contract.LevelError, fmt.Sprintf("Run failed: unsafe changes; the tool's own exit code was %d", rs.result.ExitCode),
			map[string]any{"tool_exit_code": rs.result.ExitCode, "paths": rs.unsafe})
		rs.result.ExitCode = ExitUnsafeChange
	}
	if rs.result.Stderr != "" && !strings.HasSuffix(rs.result.Stderr, "\n") {
		rs.result.Stderr += "\n"
	}
	rs.result.Stderr += msg
	if rs.status == "" || rs.status == contract.RunSucceeded {
		rs.status = contract.RunScopeViolated
	}
}

// EnvRunMarker is set in the tool's environment to the run id, so that
// processes the tool leaves behind can be found and killed.
const EnvRunMarker = "SALVE_TOOL_RUN_ID"
