package toolrun

import (
	"context"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/toolrun/pattern"
)

// Executor runs one routed task and maps its outcome to the executor-level
// result. It must not panic; the router recovers anyway.
type Executor func(ctx context.Context, r *Router, task contract.ExecutionRequestV1, p *pattern.Pattern) contract.ExecutionResultV1

// ExecutorRow is one row of the executor table: a name that patterns use
// in their "executor" key, and the operation kinds it serves.
type ExecutorRow struct {
	// Name is what PATTERN_INDEX.yaml's executor key says.
	Name string
	// Aliases are other accepted names (the contract's Python-style names).
	Aliases []string
	// Operations are the operation_kind values routed to this executor.
	Operations []string
	Run        Executor
}

// ExecutorAiderEdit is the name of the aider edit executor.
const ExecutorAiderEdit = "toolrun.aider_edit"

// DefaultExecutors returns the executor table. EXEC-AIDER-EDIT goes to the
// aider edit executor (docs/contracts/tool-adapter.md §5.2), which also
// answers to the contract's example name
// "MINI_PIPE_executor.execute_aider_refactor".
func DefaultExecutors() []ExecutorRow {
	return []ExecutorRow{{
		Name:       ExecutorAiderEdit,
		Aliases:    []string{"MINI_PIPE_executor.execute_aider_refactor", "MINI_PIPE_executor.execute_aider_edit"},
		Operations: []string{contract.OperationAiderEdit},
		Run:        executeAiderEdit,
	}}
}

// ExecutorNames lists every name and alias of rows, for [pattern.Load].
func ExecutorNames(rows []ExecutorRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Name)
		out = append(out, r.Aliases...)
	}
	return out
}

func (row ExecutorRow) answersTo(name string) bool {
	if row.Name == name {
		return true
	}
	for _, a := range row.Aliases {
		if a == name {
			return true
		}
	}
	return false
}

// Router sends tasks to executors by operation kind, enforcing the task's
// pattern. The zero value routes with a zero Adapter and no pattern index.
type Router struct {
	// Adapter runs the tools; nil means a zero Adapter.
	Adapter *Adapter
	// Index holds the patterns that tasks name; nil means tasks must not
	// name one.
	Index *pattern.Index
	// Executors is the executor table; nil means DefaultExecutors().
	Executors []ExecutorRow
	// ParentRunID is given to every tool run the router starts.
	ParentRunID string
}

// Execution statuses of [contract.ExecutionResultV1].
const (
	ExecCompleted = "completed"
	ExecFailed    = "failed"
	ExecTimedOut  = "timed_out"
	ExecRejected  = "rejected"
)

// Route runs one task (docs/contracts/tool-adapter.md §5.2). It never
// panics: a task that cannot be routed comes back with status "rejected" and
// exit code -4.
func (r *Router) Route(ctx context.Context, task contract.ExecutionRequestV1) (res contract.ExecutionResultV1) {
	defer func() {
		if p := recover(); p != nil {
			res = r.rejected(task, contract.ExitExecError, fmt.Sprintf("internal error: panic: %v", p))
			res.Status = ExecFailed
		}
	}()
	rows := r.Executors
	if rows == nil {
		rows = DefaultExecutors()
	}
	row, ok := executorFor(rows, task.OperationKind)
	if !ok {
		return r.rejected(task, contract.ExitRejected, fmt.Sprintf("no executor for operation_kind %q", task.OperationKind))
	}
	var pat *pattern.Pattern
	if task.PatternID != "" {
		if r.Index == nil {
			return r.rejected(task, contract.ExitRejected, fmt.Sprintf("task names pattern %q but no pattern index is loaded", task.PatternID))
		}
		p, err := r.Index.Get(task.PatternID)
		if err != nil {
			return r.rejected(task, contract.ExitRejected, err.Error())
		}
		if !row.answersTo(p.Executor) {
			return r.rejected(task, contract.ExitRejected, fmt.Sprintf("pattern %s uses executor %q, which does not serve %s", p.ID, p.Executor, task.OperationKind))
		}
		pat = p
	}
	return row.Run(ctx, r, task, pat)
}

func executorFor(rows []ExecutorRow, op string) (ExecutorRow, bool) {
	for _, row := range rows {
		for _, o := range row.Operations {
			if o == op {
				return row, true
			}
		}
	}
	return ExecutorRow{}, false
}

func (r *Router) adapter() *Adapter {
	if r.Adapter != nil {
		return r.Adapter
	}
	return &Adapter{}
}

// rejected is the result of a task refused before any tool ran.
func (r *Router) rejected(task contract.ExecutionRequestV1, code int, msg string) contract.ExecutionResultV1 {
	a := r.adapter()
	now := contractNow(a)
	return contract.ExecutionResultV1{
		TaskID: task.TaskID, Status: ExecRejected, ExitCode: code, Error: msg,
		FilesChanged: []string{}, Patches: []contract.PatchRecordV1{},
		ToolResult: contract.ToolRunResultV1{
			ToolID: toolOf(task), ExitCode: code, Stderr: "Request rejected: " + msg,
			StartedAt: now, CompletedAt: now,
		},
	}
}

func contractNow(a *Adapter) string { return contract.Timestamp(a.now()) }

func toolOf(task contract.ExecutionRequestV1) string {
	if task.OperationKind == contract.OperationAiderEdit {
		return ToolAider
	}
	return ""
}

// executeAiderEdit is the EXEC-AIDER-EDIT executor: it builds the aider
// request from the task's inputs (model, prompt_file, edit_format, read,
// timeout_seconds), runs it through the adapter with the task's file scope
// and pattern, and maps the outcome.
func executeAiderEdit(ctx context.Context, r *Router, task contract.ExecutionRequestV1, p *pattern.Pattern) contract.ExecutionResultV1 {
	in, err := aiderInputs(task)
	if err != nil {
		return r.rejected(task, contract.ExitRejected, err.Error())
	}
	c := map[string]any{}
	for k, v := range task.Context {
		c[k] = v
	}
	c["task_id"] = task.TaskID
	if p != nil {
		c["pattern_id"] = p.ID
	}
	in.FileScope, in.Workspace, in.Context = task.FileScope, task.Workspace, c
	req, err := BuildAiderToolRequest(in)
	if err != nil {
		return r.rejected(task, contract.ExitRejected, err.Error())
	}
	out := r.adapter().RunAider(ctx, req, RunOptions{FileScope: nonNil(scopeOf(req)), Pattern: p, ParentRunID: r.ParentRunID})
	return MapToolResult(task.TaskID, out)
}

// scopeOf returns the file scope BuildAiderToolRequest put in req.
func scopeOf(req contract.ToolRunRequestV1) []string {
	s, _ := req.Context[ContextFileScope].([]string)
	return s
}

// aiderInputs reads the aider inputs of a task.
func aiderInputs(task contract.ExecutionRequestV1) (AiderOptions, error) {
	var o AiderOptions
	var err error
	str := func(key string, required bool) string {
		v, ok := task.Inputs[key]
		if !ok || v == nil {
			if required && err == nil {
				err = fmt.Errorf("task %s: inputs.%s is required", task.TaskID, key)
			}
			return ""
		}
		s, isStr := v.(string)
		if !isStr && err == nil {
			err = fmt.Errorf("task %s: inputs.%s must be a string", task.TaskID, key)
		}
		return s
	}
	o.PromptFile = str("prompt_file", true)
	o.Model = str("model", false)
	o.EditFormat = str("edit_format", false)
	switch v := task.Inputs["read"].(type) {
	case nil:
	case []string:
		o.Read = v
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return o, fmt.Errorf("task %s: inputs.read must be a list of strings", task.TaskID)
			}
			o.Read = append(o.Read, s)
		}
	default:
		return o, fmt.Errorf("task %s: inputs.read must be a list of strings", task.TaskID)
	}
	switch v := task.Inputs["timeout_seconds"].(type) {
	case nil:
	case float64:
		o.TimeoutSeconds = int(v)
	case int:
		o.TimeoutSeconds = v
	default:
		return o, fmt.Errorf("task %s: inputs.timeout_seconds must be a number", task.TaskID)
	}
	return o, err
}

// MapToolResult maps a tool run to the executor-level result
// (map_tool_result_to_execution_result of
// docs/contracts/tool-adapter.md §5.2). A run is "completed" only when the
// tool exited 0 and changed nothing outside its scope.
func MapToolResult(taskID string, out Outcome) contract.ExecutionResultV1 {
	res := out.Result
	er := contract.ExecutionResultV1{
		TaskID: taskID, RunID: out.RunID, ExitCode: res.ExitCode, ToolResult: res,
		FilesChanged: FilesChanged(out.Record.Patches), Patches: nonNil(out.Record.Patches),
	}
	switch {
	case res.ExitCode == contract.ExitRejected:
		er.Status = ExecRejected
	case res.TimedOut:
		er.Status = ExecTimedOut
	case res.ExitCode == 0 && out.Record.Status == contract.RunSucceeded:
		er.Status = ExecCompleted
	default:
		er.Status = ExecFailed
	}
	er.Success = er.Status == ExecCompleted
	if !er.Success {
		er.Error = failureText(out)
	}
	return er
}

func failureText(out Outcome) string {
	if v := out.Record.ScopeViolations; len(v) > 0 && out.Result.ExitCode == 0 {
		return "scope violation: changes outside file_scope were reverted: " + strings.Join(v, ", ")
	}
	if v := out.Record.ScopeViolations; out.Result.ExitCode == ExitUnsafeChange {
		return clipLine("scope violation: unsafe changes (git directory, links out of the tree, dependencies, tool config) were reverted: "+strings.Join(v, ", "), 500)
	}
	msg := strings.TrimSpace(out.Result.Stderr)
	if msg == "" {
		msg = fmt.Sprintf("tool exited with code %d", out.Result.ExitCode)
	}
	return clipLine(msg, 500)
}
