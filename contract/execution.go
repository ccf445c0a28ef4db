package contract

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// DefaultExecutorTimeoutSeconds is the default build timeout
// (docs/contracts/heal-pipeline.md §Executor).
const DefaultExecutorTimeoutSeconds = 300

// ExecutorInput is what the Executor is given
// (docs/contracts/heal-pipeline.md §Executor).
type ExecutorInput struct {
	// WorkspacePath is the absolute path of the workspace on the host.
	WorkspacePath string `json:"workspace_path"`
	// ProjectType overrides detection when set ("go", "node", "python"…).
	ProjectType *string `json:"project_type"`
	// ResolvedBuildCommand is the shell command line to run.
	ResolvedBuildCommand string `json:"resolved_build_command"`
	// TimeoutSeconds bounds the run; zero means DefaultExecutorTimeoutSeconds.
	TimeoutSeconds int `json:"timeout_seconds"`
}

// ExecutorOutput is what the Executor reports
// (docs/contracts/heal-pipeline.md §Executor).
type ExecutorOutput struct {
	ExitCode int `json:"exit_code"`
	// BuildLog is the full combined stdout and stderr, in the order written
	// (capped in memory; EnvironmentMetadata.LogPath holds the whole log).
	BuildLog string `json:"build_log"`
	// LogExcerpt is the first and last sections of the log with a marker for
	// what was cut.
	LogExcerpt           string              `json:"log_excerpt"`
	ExecutionTimeSeconds float64             `json:"execution_time_seconds"`
	EnvironmentMetadata  EnvironmentMetadata `json:"environment_metadata"`
}

// EnvironmentMetadata describes where and how a build ran.
type EnvironmentMetadata struct {
	ProjectType     string `json:"project_type"`
	ResolvedCommand string `json:"resolved_command"`
	// CommandReason says why ResolvedCommand was chosen (the marker found, or
	// "given").
	CommandReason   string            `json:"command_reason"`
	RuntimeVersions map[string]string `json:"runtime_versions"`
	DetectedTools   []string          `json:"detected_tools"`
	// Isolation is the backend used: "none", "bwrap", "docker" or "podman".
	Isolation string `json:"isolation"`
	// Image is the container image, for the container backends.
	Image    string `json:"image,omitempty"`
	TimedOut bool   `json:"timed_out"`
	// LogPath is the file holding the log, when one was written: the whole
	// log, or, past its size cap, the head and the tail with a marker line
	// between them (see LogDroppedBytes).
	LogPath string `json:"log_path,omitempty"`
	// LogBytes is the size of the full log, as the build wrote it.
	LogBytes int64 `json:"log_bytes"`
	// LogTruncated is true when BuildLog holds less than the full log.
	LogTruncated bool `json:"log_truncated"`
	// LogDroppedBytes is how many bytes of the log the file at LogPath
	// left out to stay within its size cap; zero when it holds them all.
	LogDroppedBytes int64 `json:"log_dropped_bytes,omitempty"`
	// Warnings are what went wrong around the build without failing it,
	// for people: the git metadata the build changed and salve put back.
	Warnings []string `json:"warnings,omitempty"`
}

// ErrorType is one of the six bug types
// (docs/contracts/heal-pipeline.md §Bug types).
type ErrorType string

// The six allowed bug types (docs/contracts/heal-pipeline.md §Parser).
const (
	ErrSyntax      ErrorType = "SYNTAX"
	ErrIndentation ErrorType = "INDENTATION"
	ErrImport      ErrorType = "IMPORT"
	ErrTypeError   ErrorType = "TYPE_ERROR"
	ErrLinting     ErrorType = "LINTING"
	ErrLogic       ErrorType = "LOGIC"
)

// ErrorTypes lists the six bug types in a fixed order.
var ErrorTypes = []ErrorType{ErrSyntax, ErrIndentation, ErrImport, ErrTypeError, ErrLinting, ErrLogic}

// Valid reports whether t is one of the six bug types.
func (t ErrorType) Valid() bool {
	for _, v := range ErrorTypes {
		if t == v {
			return true
		}
	}
	return false
}

// BugReport is one located error found by the Parser
// (docs/contracts/heal-pipeline.md §Parser). The fields after
// ConfidenceScore are salve's additions.
type BugReport struct {
	// FilePath is repo-relative, with forward slashes.
	FilePath string `json:"file_path"`
	// LineNumber is >= 1.
	LineNumber int       `json:"line_number"`
	ErrorType  ErrorType `json:"error_type"`
	// Message is the raw error message.
	Message string `json:"message"`
	// TestName is the failing test, when the log names one.
	TestName *string `json:"test_name"`
	// ConfidenceScore is the parser's confidence in the extraction, 0 to 1.
	ConfidenceScore *float64 `json:"confidence_score"`

	Column   int    `json:"column,omitempty"`
	Tool     string `json:"tool,omitempty"`
	Rule     string `json:"rule,omitempty"`
	Severity string `json:"severity,omitempty"`
}

// String renders r as one stable line, used by goldens, logs and
// `salve parse --text`:
//
//	path:line:col: TYPE message [tool rule] (test NAME)
//
// The column is omitted when unknown, and so are empty brackets.
func (r BugReport) String() string {
	var b strings.Builder
	b.WriteString(r.FilePath)
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(r.LineNumber))
	if r.Column > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(r.Column))
	}
	fmt.Fprintf(&b, ": %s %s", r.ErrorType, firstLine(r.Message))
	if tag := strings.TrimSpace(r.Tool + " " + r.Rule); tag != "" {
		fmt.Fprintf(&b, " [%s]", tag)
	}
	if r.TestName != nil && *r.TestName != "" {
		fmt.Fprintf(&b, " (test %s)", *r.TestName)
	}
	return b.String()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// FixRequest is what the Fix Agent is given
// (docs/contracts/heal-pipeline.md §Fix Agent). Reports of one file are
// grouped: BugReport is the first, Related the rest.
type FixRequest struct {
	BugReport BugReport `json:"bug_report"`
	// FileSnippet is the source ±3 lines around the error.
	FileSnippet  string `json:"file_snippet"`
	ErrorMessage string `json:"error_message"`
	// PreviousAttemptInfo describes an earlier failed attempt, or is null.
	PreviousAttemptInfo map[string]any `json:"previous_attempt_info"`

	// Related holds the other reports of the same file (salve's addition).
	Related []BugReport `json:"related,omitempty"`
}

// FixResult is what the Fix Agent returns
// (docs/contracts/heal-pipeline.md §Fix Agent).
type FixResult struct {
	// PatchedContent is the full patched file content.
	PatchedContent string `json:"patched_content"`
	FixReason      string `json:"fix_reason"`
	// ConfidenceScore is the fixer's confidence, 0 to 1.
	ConfidenceScore float64 `json:"confidence_score"`

	// Fixer names the tier that produced the fix (salve's addition).
	Fixer string `json:"fixer,omitempty"`
}

// MarshalIndentJSON is a convenience for printing contract objects: two-space
// indentation and a final newline.
func MarshalIndentJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
