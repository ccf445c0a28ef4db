package toolrun

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
)

// ExitUnsafeChange is the exit_code of a run whose tool changed something
// that could run code on the user's machine or reach outside the work
// tree: a git hook or config, a .git entry, a link leading out of the tree,
// a file outside the tree written through a link, a FIFO, socket or
// device, a hard link to a file outside the tree. Salve put back what it
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
	for dir, now := range rs.guard.heads() {
		if was, ok := rs.gitBefore.Heads[dir]; ok && was != now {
			rs.event(contract.LevelWarn, fmt.Sprintf("HEAD of %s moved (%s -> %s): the tool committed or switched branches; not reverted", rs.showPath(dir), was, now),
				map[string]any{"git_dir": rs.showPath(dir), "before": was, "after": now})
		}
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
	msg := fmt.Sprintf("salve: unsafe changes by the tool (git hooks or config, links out of the work tree, FIFOs or hard links): %s", strings.Join(rs.unsafe, ", "))
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

// runReaped runs the tool so that nothing it starts outlives it: in a new
// PID namespace where the kernel allows one (the namespace dies with the
// tool), else with salve as a child subreaper that kills the orphans of
// the run (by marker or session) once the tool has exited.
func (rs *runState) runReaped(ctx context.Context, cmd sandbox.Cmd, marker string) (sandbox.Result, error) {
	if !rs.a.noPIDNamespace {
		ns, err := sandbox.InPIDNamespace(cmd, cmd.Path)
		if err == nil {
			res, err := sandbox.Run(ctx, ns.Cmd)
			ferr := ns.Finish(&res)
			switch {
			case err == nil && ferr != nil:
				return sandbox.Result{}, ferr
			case err == nil:
				rs.reaper = "pid namespace"
				return res, nil
			case !sandbox.NamespaceDenied(err):
				return res, err
			}
			rs.event(contract.LevelWarn, "No PID namespace for the tool ("+err.Error()+"); salve reaps what it leaves running instead", nil)
		}
	}
	if cmd.Stdin != nil && rs.req.StdinData != nil {
		cmd.Stdin = strings.NewReader(*rs.req.StdinData)
	}
	serr := sandbox.BecomeSubreaper()
	reaper := serr == nil
	switch {
	case errors.Is(serr, sandbox.ErrNoPIDNamespace):
		// A system without subreapers (macOS): the process group is all
		// there is, and killing it is the documented fallback.
		rs.reaper = "process group"
	case !reaper:
		rs.event(contract.LevelWarn, "Cannot become a child subreaper: processes the tool leaves running in a new session may survive the run", nil)
	}
	res, err := sandbox.Run(ctx, cmd)
	if reaper {
		rs.reaper = "subreaper"
		if killed := sandbox.ReapOrphans(marker, 50); len(killed) > 0 {
			rs.event(contract.LevelWarn, fmt.Sprintf("Killed %d processes the tool left running", len(killed)), map[string]any{"pids": killed})
		}
	}
	return res, err
}
