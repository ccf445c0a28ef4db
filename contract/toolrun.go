package contract

import "encoding/json"

// ContractVersionAider names the version of the aider integration contract
// (docs/contracts/tool-adapter.md) that this package implements.
const ContractVersionAider = "AIDER_CONTRACT_V1"

// Exit codes of [ToolRunResultV1] that the adapter sets itself
// (docs/contracts/tool-adapter.md §3.2). Codes 0 to 255 are the tool's own.
const (
	// ExitTimeout means the process was killed after its timeout.
	ExitTimeout = -1
	// ExitNotFound means the tool's executable was not found.
	ExitNotFound = -2
	// ExitExecError means an OS-level failure (permissions and the like).
	ExitExecError = -3
	// ExitRejected means the request was refused before the tool ran:
	// validation or a guardrail failed. It is salve's one extension of the
	// seed's exit-code table.
	ExitRejected = -4
)

// DefaultToolTimeoutSeconds is the default timeout of a tool run
// (docs/contracts/tool-adapter.md §1.4).
const DefaultToolTimeoutSeconds = 1800

// ToolRunRequestV1 asks the adapter to run one external tool
// (docs/contracts/tool-adapter.md §2).
type ToolRunRequestV1 struct {
	// ToolID names the tool profile, such as "aider".
	ToolID string `json:"tool_id"`
	// Cmd is the full command with resolved arguments; Cmd[0] is the program.
	Cmd []string `json:"cmd"`
	// Cwd is the absolute path of the work tree root the tool runs in.
	Cwd string `json:"cwd"`
	// Env holds variables merged over the inherited environment.
	Env map[string]string `json:"env"`
	// TimeoutSeconds bounds the run; zero means DefaultToolTimeoutSeconds.
	TimeoutSeconds int `json:"timeout_seconds"`
	// StdinData, when set, is written to the tool's standard input.
	StdinData *string `json:"stdin_data"`
	// Context carries ids for logging (run_id, ws_id, task_id, pattern_id…).
	Context map[string]any `json:"context"`
}

// ToolRunResultV1 is the outcome of a tool run
// (docs/contracts/tool-adapter.md §3). The adapter always returns one;
// failures are encoded in ExitCode, never raised.
type ToolRunResultV1 struct {
	ToolID   string `json:"tool_id"`
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	// DurationSeconds is the wall-clock duration of the run.
	DurationSeconds float64 `json:"duration_seconds"`
	TimedOut        bool    `json:"timed_out"`
	StartedAt       string  `json:"started_at"`
	CompletedAt     string  `json:"completed_at"`
	// Success mirrors ExitCode == 0. It is derived when the result is
	// encoded, so a stale value never reaches a reader; see [ToolRunResultV1.Succeeded].
	Success bool `json:"success"`
}

// Succeeded reports whether the run succeeded: ExitCode == 0.
func (r ToolRunResultV1) Succeeded() bool { return r.ExitCode == 0 }

// MarshalJSON encodes r with Success derived from ExitCode.
func (r ToolRunResultV1) MarshalJSON() ([]byte, error) {
	type plain ToolRunResultV1
	p := plain(r)
	p.Success = r.ExitCode == 0
	return json.Marshal(p)
}

// UnmarshalJSON decodes r and derives Success from ExitCode, whatever the
// document said.
func (r *ToolRunResultV1) UnmarshalJSON(b []byte) error {
	type plain ToolRunResultV1
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = ToolRunResultV1(p)
	r.Success = r.ExitCode == 0
	return nil
}

// Log levels of [LogEventV1].
const (
	LevelDebug = "DEBUG"
	LevelInfo  = "INFO"
	LevelWarn  = "WARN"
	LevelError = "ERROR"
)

// LogEventV1 is one event of the audit trail
// (docs/contracts/tool-adapter.md §6).
type LogEventV1 struct {
	EventID string `json:"event_id"`
	RunID   string `json:"run_id,omitempty"`
	// TS is when the event happened, in [TimeLayout].
	TS      string         `json:"ts"`
	Level   string         `json:"level"`
	Message string         `json:"message"`
	Context map[string]any `json:"context"`
}

// Patch operations of [PatchRecordV1].
const (
	PatchCreate = "create"
	PatchEdit   = "edit"
	PatchDelete = "delete"
)

// PatchRecordV1 records one file changed by a tool run
// (docs/contracts/tool-adapter.md §6).
type PatchRecordV1 struct {
	PatchID string `json:"patch_id"`
	// FilePath is relative to the work tree root, with forward slashes.
	FilePath string `json:"file_path"`
	// Operation is PatchCreate, PatchEdit or PatchDelete.
	Operation string `json:"operation"`
	// Diff is a unified diff that `git apply` accepts.
	Diff      string `json:"diff"`
	ToolID    string `json:"tool_id"`
	RequestID string `json:"request_id"`
	RunID     string `json:"run_id,omitempty"`
	// InScope is false for a change outside the request's file scope.
	InScope bool `json:"in_scope"`
	// Reverted is true when the change was undone because it was out of scope.
	Reverted bool `json:"reverted"`
}

// Run statuses of [RunRecordV1].
const (
	RunSucceeded     = "succeeded"
	RunFailed        = "failed"
	RunRejected      = "rejected"
	RunScopeViolated = "scope_violation"
)

// RunRecordV1 is the complete record of one tool run
// (docs/contracts/tool-adapter.md §6).
type RunRecordV1 struct {
	RunID     string `json:"run_id"`
	RequestID string `json:"request_id"`
	ToolID    string `json:"tool_id"`
	PatternID string `json:"pattern_id,omitempty"`
	// Status is one of the Run* constants.
	Status      string           `json:"status"`
	Request     ToolRunRequestV1 `json:"request"`
	Result      ToolRunResultV1  `json:"result"`
	Events      []LogEventV1     `json:"events"`
	Patches     []PatchRecordV1  `json:"patches"`
	FileScope   []string         `json:"file_scope"`
	StartedAt   string           `json:"started_at"`
	CompletedAt string           `json:"completed_at"`
	// ScopeViolations lists the files changed outside FileScope, all reverted.
	ScopeViolations []string `json:"scope_violations,omitempty"`
}

// GitWorkspaceRefV1 names the work tree a task runs in
// (docs/contracts/tool-adapter.md §1.4).
type GitWorkspaceRefV1 struct {
	WsID string `json:"ws_id"`
	// RootPath is the absolute path of the work tree root.
	RootPath   string `json:"root_path"`
	Branch     string `json:"branch,omitempty"`
	BaseCommit string `json:"base_commit,omitempty"`
}

// OperationAiderEdit is the operation kind that the router sends to aider
// (docs/contracts/tool-adapter.md §5.2).
const OperationAiderEdit = "EXEC-AIDER-EDIT"

// ExecutionRequestV1 is one task for the router
// (docs/contracts/tool-adapter.md §1.4 and §5.2).
type ExecutionRequestV1 struct {
	TaskID        string `json:"task_id"`
	OperationKind string `json:"operation_kind"`
	PatternID     string `json:"pattern_id,omitempty"`
	// FileScope lists the only files the task may edit, relative to the root.
	FileScope []string          `json:"file_scope"`
	Inputs    map[string]any    `json:"inputs"`
	Workspace GitWorkspaceRefV1 `json:"workspace"`
	Context   map[string]any    `json:"context"`
}

// ExecutionResultV1 is the executor-level result the router returns for a
// task (docs/contracts/tool-adapter.md §5.2,
// map_tool_result_to_execution_result).
type ExecutionResultV1 struct {
	TaskID  string `json:"task_id"`
	RunID   string `json:"run_id"`
	Success bool   `json:"success"`
	// Status is "completed", "failed", "timed_out" or "rejected".
	Status       string          `json:"status"`
	ExitCode     int             `json:"exit_code"`
	Error        string          `json:"error,omitempty"`
	FilesChanged []string        `json:"files_changed"`
	ToolResult   ToolRunResultV1 `json:"tool_result"`
	Patches      []PatchRecordV1 `json:"patches"`
}
