package contract

import "encoding/json"

// ApiVersion is the protocol version of an [ActionRequest]
// (docs/contracts/git-agent.md §5).
type ApiVersion string

// APIVersionV1 is the only defined version. Decoders also accept "v1".
const APIVersionV1 ApiVersion = "V1"

// ToolGitAgent is the value of ActionRequest.Tool for the git agent.
const ToolGitAgent = "git_agent"

// The git agent's actions (docs/contracts/git-agent.md §1.2), and salve's
// documented v1 extensions after them.
const (
	ActionGitStatus = "git_status"
	ActionGitDiff   = "git_diff"
	ActionGitLog    = "git_log"
	ActionGitAdd    = "git_add"
	ActionGitCommit = "git_commit"

	// ActionGitBranch creates or switches a branch (extension).
	ActionGitBranch = "git_branch"
	// ActionGitRestore discards work-tree changes to files (extension).
	ActionGitRestore = "git_restore"
	// ActionGitPush pushes a branch to a remote (extension).
	ActionGitPush = "git_push"
	// ActionGitRevParse reports HEAD or the branch name (extension).
	ActionGitRevParse = "git_rev_parse"
)

// Response statuses and codes (docs/contracts/git-agent.md §3.1).
const (
	StatusSuccess = "success"
	StatusError   = "error"
	CodeSuccess   = 0
	CodeError     = 1
)

// Output types of [ActionResult] (docs/contracts/git-agent.md §3.2).
const (
	OutputText  = "text"
	OutputError = "error"
)

// ActionRequest is what an agent reads on stdin
// (docs/contracts/git-agent.md §1.2).
type ActionRequest struct {
	// RequestID is a UUID, unique per invocation.
	RequestID  string      `json:"request_id"`
	APIVersion *ApiVersion `json:"api_version"`
	// Tool must be ToolGitAgent for the git agent.
	Tool   string `json:"tool"`
	Action string `json:"action"`
	// Context is optional natural-language context, unused by the git agent.
	Context       string  `json:"context"`
	PlanID        *string `json:"plan_id"`
	TaskID        *string `json:"task_id"`
	CorrelationID *string `json:"correlation_id"`
	// Payload's shape depends on Action: a canonical GitAgentRequestV1 or a
	// legacy ad-hoc object (docs/contracts/git-agent.md §2).
	Payload json.RawMessage `json:"payload"`
}

// ActionResponse is what an agent writes on stdout
// (docs/contracts/git-agent.md §3.1). Every field is always present; absent
// options are null.
type ActionResponse struct {
	RequestID     string        `json:"request_id"`
	APIVersion    *ApiVersion   `json:"api_version"`
	Status        string        `json:"status"`
	Code          int           `json:"code"`
	Result        *ActionResult `json:"result"`
	Error         *string       `json:"error"`
	PlanID        *string       `json:"plan_id"`
	TaskID        *string       `json:"task_id"`
	CorrelationID *string       `json:"correlation_id"`
}

// ActionResult is the payload of an [ActionResponse]
// (docs/contracts/git-agent.md §3.2).
type ActionResult struct {
	// OutputType is OutputText on success and OutputError on failure.
	OutputType string `json:"output_type"`
	// Data is git's stdout on success, or stderr or the error text on failure.
	Data string `json:"data"`
	// Metadata may hold "exit_code" when git itself failed; otherwise null.
	Metadata map[string]any `json:"metadata"`
}

// GitAgentCommandV1 is the canonical command model
// (docs/contracts/git-agent.md §2): a tagged union on Type. Only the fields
// of the chosen variant are set.
type GitAgentCommandV1 struct {
	// Type is the action name, such as "git_log".
	Type string `json:"type"`
	// Files is used by git_diff, git_add and git_restore.
	Files []string `json:"files,omitempty"`
	// Limit is used by git_log; absent means 10.
	Limit *uint32 `json:"limit,omitempty"`
	// Message is used by git_commit.
	Message *string `json:"message,omitempty"`

	// Branch is used by git_branch and git_push.
	Branch string `json:"branch,omitempty"`
	// StartPoint is used by git_branch to create a branch at a commit.
	StartPoint string `json:"start_point,omitempty"`
	// Create makes git_branch create the branch rather than switch to it.
	Create bool `json:"create,omitempty"`
	// Remote is used by git_push; absent means "origin".
	Remote string `json:"remote,omitempty"`
	// ForceWithLease, for git_push (a salve v1 extension), is the full
	// commit hash the remote branch must be at for the push to replace
	// it: git push --force-with-lease=refs/heads/BRANCH:HASH. It lets a
	// re-run replace the branch of its own open pull request, and nothing
	// else.
	ForceWithLease string `json:"force_with_lease,omitempty"`
	// Ref is used by git_rev_parse: "HEAD" (the default) or "branch".
	Ref string `json:"ref,omitempty"`
}

// GitAgentRequestV1 is the canonical payload of a git agent request
// (docs/contracts/git-agent.md §2).
type GitAgentRequestV1 struct {
	Command GitAgentCommandV1 `json:"command"`
}

// DefaultGitLogLimit is the git_log limit when none is given
// (docs/contracts/git-agent.md §2.1).
const DefaultGitLogLimit = 10
