package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/store"
)

// Recorder records heal runs in the SQLite run store: the run (kind
// "heal", status green or red, the results as its summary), one event per
// bug with its formatted line, one patch per committed fix, every timed
// stage, the LLM accounting, and results.json as an artifact, so that
// `salve runs show` displays it.
type Recorder struct {
	Store *store.Store
}

var _ heal.Recorder = Recorder{}

// owner identifies the process that runs a heal, so a later start can
// tell a run whose process is gone (killed with SIGKILL) from a live one.
type owner struct {
	PID       int    `json:"pid"`
	Host      string `json:"host"`
	ProcStart string `json:"proc_start,omitempty"`
}

func thisOwner() owner {
	host, _ := os.Hostname()
	return owner{PID: os.Getpid(), Host: host, ProcStart: procStart(os.Getpid())}
}

// ownerGone reports whether the owner recorded in a running heal's summary is
// no longer alive on this host. A run of another host is left alone.
func ownerGone(summary json.RawMessage) bool {
	var sum struct {
		Owner *owner `json:"owner"`
	}
	if json.Unmarshal(summary, &sum) != nil || sum.Owner == nil {
		// A running heal without an owner was written before runs were
		// recorded live: only a finished heal records its summary, so it
		// cannot be running.
		return true
	}
	host, _ := os.Hostname()
	if sum.Owner.Host != host {
		return false
	}
	if !heal.ProcessAlive(sum.Owner.PID) {
		return true
	}
	return sum.Owner.ProcStart != "" && procStart(sum.Owner.PID) != sum.Owner.ProcStart
}

// liveSummary is the summary of a heal while it runs.
func liveSummary(r *results.Results, iteration int, stage string) map[string]any {
	return map[string]any{
		"run_id": r.RunID, "repo": r.Repo, "branch": r.Branch, "base_commit": r.BaseCommit,
		"outcome": "running", "stage": stage, "iteration": iteration, "commits": len(r.Commits),
		"owner": thisOwner(),
	}
}

// BeginHeal marks the heals left running by processes that are gone as
// interrupted, then creates r's run (status running) with its owner, so
// that a heal killed at any moment leaves a trace.
func (s Recorder) BeginHeal(ctx context.Context, r *results.Results) ([]string, error) {
	stale, err := s.Store.InterruptStale(ctx, store.KindHeal, ownerGone, "its process ended before the run finished (killed or crashed)")
	if err != nil {
		return nil, fmt.Errorf("heal: mark interrupted runs: %w", err)
	}
	sum, err := json.Marshal(liveSummary(r, 0, results.StageSetup))
	if err != nil {
		return stale, fmt.Errorf("heal: encode the run summary: %w", err)
	}
	if _, err := s.Store.CreateRun(ctx, store.Run{RunID: r.RunID, Kind: store.KindHeal, Title: healTitle(r), StartedAt: r.StartedAt, Summary: sum}); err != nil {
		return stale, fmt.Errorf("heal: record run: %w", err)
	}
	return stale, nil
}

// HealStage records that r entered stage.
func (s Recorder) HealStage(ctx context.Context, r *results.Results, iteration int, stage string) error {
	if err := s.Store.SetSummary(ctx, r.RunID, liveSummary(r, iteration, stage)); err != nil {
		return fmt.Errorf("heal: record stage %s: %w", stage, err)
	}
	return nil
}

func healTitle(r *results.Results) string { return fmt.Sprintf("heal %s → %s", r.Repo, r.Branch) }

// RecordHeal stores r, creating its run unless BeginHeal did, in one
// transaction: a reader sees the finished run whole or not at all, and the
// record costs one commit (one sync of the database file) where a commit
// per stage, event and artifact cost a dozen or more.
func (s Recorder) RecordHeal(ctx context.Context, r *results.Results) error {
	return s.Store.InTx(ctx, func(tx *store.Store) error { return Recorder{Store: tx}.recordHeal(ctx, r) })
}

// recordHeal is RecordHeal inside its transaction.
func (s Recorder) recordHeal(ctx context.Context, r *results.Results) error {
	id := r.RunID
	if _, err := s.Store.GetRun(ctx, id); errors.Is(err, store.ErrNotFound) {
		run, err := s.Store.CreateRun(ctx, store.Run{RunID: r.RunID, Kind: store.KindHeal, Title: healTitle(r), StartedAt: r.StartedAt})
		if err != nil {
			return fmt.Errorf("heal: record run: %w", err)
		}
		id = run.RunID
	} else if err != nil {
		return fmt.Errorf("heal: record run: %w", err)
	}
	for _, st := range r.Stages {
		start, _ := time.Parse(contract.TimeLayout, st.StartedAt)
		d := time.Duration(st.Seconds * float64(time.Second))
		if err := s.Store.AddStage(ctx, id, st.Stage, "ok", start, d, map[string]any{"iteration": st.Iteration}); err != nil {
			return fmt.Errorf("heal: record stage %s: %w", st.Stage, err)
		}
	}
	for _, b := range r.Bugs {
		level := "INFO"
		if b.Status != results.StatusFixed {
			level = "WARN"
		}
		ev := contract.LogEventV1{RunID: id, Level: level, Message: b.Line, Context: map[string]any{
			"status": b.Status, "iteration": b.Iteration, "file_path": b.Bug.FilePath, "line_number": b.Bug.LineNumber,
			"error_type": string(b.Bug.ErrorType), "fixer": b.Fixer, "reason": b.Reason, "commit": b.Commit,
		}}
		if _, err := s.Store.AddEvent(ctx, ev); err != nil {
			return fmt.Errorf("heal: record event: %w", err)
		}
	}
	if err := s.recordAgents(ctx, id, r); err != nil {
		return err
	}
	if err := s.recordPatches(ctx, id, r); err != nil {
		return err
	}
	for _, e := range r.LLM.Accounting {
		if err := s.Store.AddAccounting(ctx, id, e); err != nil {
			return fmt.Errorf("heal: record accounting: %w", err)
		}
	}
	for i, b := range r.Builds {
		if b.Log == "" {
			continue
		}
		name := fmt.Sprintf("build-%02d-%s.log", i+1, b.Stage)
		// A build log removed since is not worth losing the record for.
		_, _ = s.Store.PutArtifactFile(ctx, id, name, b.Log)
	}
	doc, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("heal: encode results: %w", err)
	}
	if _, err := s.Store.PutArtifact(ctx, id, "results.json", doc); err != nil {
		return fmt.Errorf("heal: record results.json: %w", err)
	}
	status := r.Outcome
	if status == "" {
		status = results.OutcomeError
	}
	if err := s.Store.FinishRun(ctx, id, status, json.RawMessage(doc)); err != nil {
		return fmt.Errorf("heal: finish run: %w", err)
	}
	return nil
}

// recordAgents stores an event per model turn and per tool call of each
// agent session of the run (its arguments, the size of its result, the
// gate's verdict and rule ids), once per session, after one that sums the
// session up.
func (s Recorder) recordAgents(ctx context.Context, id string, r *results.Results) error {
	seen := map[*results.AgentSession]bool{}
	for _, b := range r.Bugs {
		for _, a := range b.Attempts {
			if a.Agent == nil || seen[a.Agent] {
				continue
			}
			seen[a.Agent] = true
			bug := fmt.Sprintf("%s:%d", b.Bug.FilePath, b.Bug.LineNumber)
			evs := []contract.LogEventV1{{RunID: id, Level: contract.LevelInfo, Message: fmt.Sprintf("agent session on %s: %s: %s", bug, a.Outcome, a.Agent.Summary()),
				Context: map[string]any{"fixer": a.Fixer, "iteration": b.Iteration, "bug": bug, "outcome": a.Outcome, "turns": a.Agent.Turns,
					"tool_calls": a.Agent.ToolCalls, "input_tokens": a.Agent.InputTokens, "output_tokens": a.Agent.OutputTokens, "cost_usd": a.Agent.CostUSD,
					"budget": a.Agent.Budget}}}
			for _, st := range a.Agent.Steps {
				msg := fmt.Sprintf("agent turn %d: model", st.Turn)
				if st.Kind == results.StepTool {
					msg = fmt.Sprintf("agent turn %d: %s", st.Turn, st.Tool)
					if st.Verdict != "" {
						msg += " " + st.Verdict
					}
					if len(st.Rules) > 0 {
						msg += " (" + strings.Join(st.Rules, ", ") + ")"
					}
				}
				evs = append(evs, contract.LogEventV1{RunID: id, Level: contract.LevelDebug, Message: msg, Context: map[string]any{"fixer": a.Fixer, "bug": bug,
					"turn": st.Turn, "kind": st.Kind, "tool": st.Tool, "args": st.Args, "result_bytes": st.ResultBytes, "tokens": st.Tokens,
					"verdict": st.Verdict, "rules": st.Rules}})
			}
			for _, ev := range evs {
				if _, err := s.Store.AddEvent(ctx, ev); err != nil {
					return fmt.Errorf("heal: record the agent session: %w", err)
				}
			}
		}
	}
	return nil
}

// recordPatches stores one patch per committed fix (a unified diff with
// context that `git apply` accepts, so `salve runs patch` can replay it).
func (s Recorder) recordPatches(ctx context.Context, id string, r *results.Results) error {
	seen := map[string]bool{}
	for _, b := range r.Bugs {
		if b.Commit == "" || b.Diff == "" {
			continue
		}
		for _, f := range fileDiffs(b.Diff, b.Bug.FilePath) {
			if seen[b.Commit+f.path] {
				continue
			}
			seen[b.Commit+f.path] = true
			p := contract.PatchRecordV1{FilePath: f.path, Operation: contract.PatchEdit, Diff: f.diff, ToolID: "salve-heal/" + b.Fixer, RequestID: b.Commit, RunID: id, InScope: true}
			if _, err := s.Store.AddPatch(ctx, p); err != nil {
				return fmt.Errorf("heal: record patch of %s: %w", f.path, err)
			}
		}
	}
	return nil
}

// fileDiff is one file's part of a unified diff.
type fileDiff struct{ path, diff string }

// fileDiffs splits a fix's unified diff (heal.Patch's, one part per file,
// each opening with "--- a/PATH") into its files; a diff without those
// headers is one part, named fallback.
func fileDiffs(diff, fallback string) []fileDiff {
	var out []fileDiff
	for _, part := range strings.SplitAfter(diff, "\n") {
		if strings.HasPrefix(part, "--- a/") || len(out) == 0 {
			out = append(out, fileDiff{path: fallback})
		}
		cur := &out[len(out)-1]
		if p, ok := strings.CutPrefix(part, "+++ b/"); ok {
			cur.path = strings.TrimSpace(p)
		}
		cur.diff += part
	}
	return out
}

// Timings reads a recorded heal run's stages back from the store and sums
// their seconds per stage name (for benchmarks and `salve runs show`).
func Timings(ctx context.Context, st *store.Store, runID string) (map[string]float64, error) {
	stages, err := st.Stages(ctx, runID)
	if err != nil {
		return nil, fmt.Errorf("heal: read stages of %s: %w", runID, err)
	}
	out := map[string]float64{}
	for _, s := range stages {
		out[s.Name] += s.DurationSeconds
	}
	return out, nil
}

// procStart returns the start time of process pid (field 22 of
// /proc/PID/stat, in clock ticks since boot), or "" where there is no
// /proc. With the pid it tells a process from a later one that reused its
// number.
func procStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19]
}
