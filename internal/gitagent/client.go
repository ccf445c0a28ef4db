package gitagent

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/gitagent/server"
	"github.com/salve-dev/salve/internal/registry"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/schemacheck"
	"github.com/salve-dev/salve/internal/secret"
)

// DefaultClientTimeout bounds one request of a [Client]: the agent's start,
// its git command and its registration.
const DefaultClientTimeout = 10 * time.Minute

// Errors of a [Client] call, to test with errors.Is.
var (
	// ErrAgentUnavailable: the git_agent binary could not be started.
	ErrAgentUnavailable = errors.New("gitagent: git_agent could not be started")
	// ErrAgentFailed: git_agent ended without a response (non-zero exit,
	// killed, or timed out).
	ErrAgentFailed = errors.New("gitagent: git_agent wrote no response")
	// ErrTimeout: the request took longer than the client's Timeout. It is
	// returned together with ErrAgentFailed.
	ErrTimeout = errors.New("gitagent: git_agent timed out")
	// ErrInvalidResponse: stdout was not an ActionResponse that validates
	// against its JSON Schema, or it answered another request.
	ErrInvalidResponse = errors.New("gitagent: invalid response")
	// ErrActionFailed: the agent answered with an error response; the error
	// is an [*ActionError].
	ErrActionFailed = errors.New("gitagent: action failed")
	// ErrPathRefused: the agent refused a path that leaves the repository.
	// It is [server.ErrPathRefused], matched by an [*ActionError] of kind
	// path_refused.
	ErrPathRefused = server.ErrPathRefused
)

// Client runs git actions through the git_agent binary, one child process
// per request, and checks every response against the ActionResponse schema
// before using it. The zero value runs "git_agent" from PATH in the
// caller's working directory with [DefaultClientTimeout]. A Client holds no
// resources; copy it to change a field (say, the trace IDs) per task.
type Client struct {
	// Binary is the git_agent program; empty means "git_agent" from PATH.
	Binary string
	// Dir is the repository (or a directory inside it), passed as -C.
	// Empty means the caller's working directory.
	Dir string
	// GitDir and WorkTree, when set, are passed as --git-dir and
	// --work-tree: git_agent then pins git to them and never reads the
	// work tree's .git (salve heal's worktrees, see [server.Pin]).
	GitDir, WorkTree string
	// Timeout bounds one request; zero means [DefaultClientTimeout].
	Timeout time.Duration
	// RegistryDB is passed as --registry-db; empty lets the agent choose
	// ($SALVE_REGISTRY_DB, else its per-user default).
	RegistryDB string
	// NoRegister passes --no-register.
	NoRegister bool
	// Env is the agent's whole environment; nil means [ClientEnv].
	Env []string
	// ExtraEnv, when set, is called before each request with its action;
	// the KEY=VALUE entries it returns are added to the agent's
	// environment. It hands
	// git a credential that changes over time (a GitHub App's
	// installation token, as http.extraHeader configuration that
	// [server.ConfigEnv] passes on) without a URL or an argument ever
	// holding it. An error fails the request.
	ExtraEnv func(ctx context.Context, action string) ([]string, error)
	// DefaultIdentity, "NAME <EMAIL>", is who commits are made as where
	// git knows no identity (git_agent --default-identity); empty means
	// none, and such a commit fails.
	DefaultIdentity string
	// PlanID, TaskID and CorrelationID are sent with every request and
	// echoed in the agent's responses and logs; empty sends null.
	PlanID, TaskID, CorrelationID string
	// Stderr, when set, receives the agent's JSON log records as well.
	Stderr io.Writer
}

// ClientEnv returns the environment a Client gives git_agent: what the
// agent passes on to git ([server.PassEnv]), plus the registry settings.
func ClientEnv() []string {
	env := sandbox.AllowedEnv(append([]string{registry.EnvDB, "XDG_DATA_HOME"}, server.PassEnv...)...)
	return append(env, server.ConfigEnv(os.Environ())...)
}

// Response is a validated ActionResponse with what came with it.
type Response struct {
	contract.ActionResponse
	// Raw is the response exactly as git_agent wrote it.
	Raw []byte
	// Stderr holds the agent's log records (capped to head and tail).
	Stderr []byte
}

// ActionError is an error response. It wraps [ErrActionFailed], and also
// matches [ErrPathRefused] when the agent refused a path.
type ActionError struct {
	// Action is the request's action.
	Action string
	// Kind is metadata.error_kind, one of the server.Kind* constants.
	Kind string
	// ExitCode is git's exit status when git itself failed, else -1.
	ExitCode int
	// Data is result.data: git's stderr or the agent's message.
	Data string
	// Response is the whole response.
	Response *Response
}

// Error describes the failed action with git's message, long data cut to
// its head and tail.
func (e *ActionError) Error() string {
	data := strings.TrimSpace(e.Data)
	if len(data) > 2000 {
		data = data[:1000] + " … " + data[len(data)-1000:]
	}
	if e.ExitCode >= 0 {
		return fmt.Sprintf("gitagent: %s failed (%s, git exit %d): %s", e.Action, e.Kind, e.ExitCode, data)
	}
	return fmt.Sprintf("gitagent: %s failed (%s): %s", e.Action, e.Kind, data)
}

// Unwrap returns [ErrActionFailed].
func (e *ActionError) Unwrap() error { return ErrActionFailed }

// Is reports whether target is [ErrPathRefused] and the agent refused a path.
func (e *ActionError) Is(target error) bool {
	return target == ErrPathRefused && e.Kind == server.KindPathRefused
}

// Do sends cmd as a canonical GitAgentRequestV1 for action cmd.Type and
// returns the response. An error response gives both the response and an
// [*ActionError].
func (c *Client) Do(ctx context.Context, cmd contract.GitAgentCommandV1) (*Response, error) {
	payload, err := json.Marshal(contract.GitAgentRequestV1{Command: cmd})
	if err != nil {
		return nil, fmt.Errorf("gitagent: encode %s payload: %w", cmd.Type, err)
	}
	v1 := contract.APIVersionV1
	req := contract.ActionRequest{
		RequestID:     uuid.NewString(),
		APIVersion:    &v1,
		Tool:          contract.ToolGitAgent,
		Action:        cmd.Type,
		PlanID:        optional(c.PlanID),
		TaskID:        optional(c.TaskID),
		CorrelationID: optional(c.CorrelationID),
		Payload:       payload,
	}
	resp, err := c.Send(ctx, req)
	if err != nil {
		return resp, err
	}
	if resp.Status != contract.StatusSuccess {
		return resp, actionError(cmd.Type, resp)
	}
	return resp, nil
}

// Send writes req to a new git_agent process and returns its response once
// it has validated against the ActionResponse schema and echoes
// req.RequestID. It does not treat an error response as a Go error; [Do]
// does.
func (c *Client) Send(ctx context.Context, req contract.ActionRequest) (*Response, error) {
	in, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("gitagent: encode %s request: %w", req.Action, err)
	}
	cmd := sandbox.Cmd{
		Path:      c.Binary,
		Args:      c.args(),
		Env:       c.Env,
		Stdin:     bytes.NewReader(in),
		Timeout:   c.Timeout,
		MaxOutput: 2 * server.DefaultMaxOutput,
		Stderr:    c.Stderr,
	}
	if cmd.Path == "" {
		cmd.Path = contract.ToolGitAgent
	}
	if cmd.Env == nil {
		cmd.Env = ClientEnv()
	}
	if c.ExtraEnv != nil {
		extra, err := c.ExtraEnv(ctx, req.Action)
		if err != nil {
			return nil, fmt.Errorf("gitagent: %s: the agent's environment: %w", req.Action, err)
		}
		cmd.Env = mergeEnv(cmd.Env, extra)
		cmd.Mask = credentialMasker(extra)
	}
	if cmd.Timeout == 0 {
		cmd.Timeout = DefaultClientTimeout
	}
	res, err := sandbox.Run(ctx, cmd)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrAgentUnavailable, req.Action, err)
	}
	if res.TimedOut {
		return nil, fmt.Errorf("%w: %w: %s after %s", ErrAgentFailed, ErrTimeout, req.Action, cmd.Timeout)
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("%w: %s: exit status %d%s: %s", ErrAgentFailed, req.Action, res.ExitCode,
			signalNote(res.Signal), lastLine(res.Stderr))
	}
	resp, err := ParseResponse(res.Stdout)
	if err != nil {
		return nil, fmt.Errorf("gitagent: %s: %w", req.Action, err)
	}
	resp.Stderr = res.Stderr
	if resp.RequestID != req.RequestID {
		return resp, fmt.Errorf("%w: %s: answers request %q, sent %q", ErrInvalidResponse, req.Action, resp.RequestID, req.RequestID)
	}
	return resp, nil
}

func (c *Client) args() []string {
	var args []string
	if c.Dir != "" {
		args = append(args, "-C", c.Dir)
	}
	if c.GitDir != "" || c.WorkTree != "" {
		args = append(args, "--git-dir", c.GitDir, "--work-tree", c.WorkTree)
	}
	if c.RegistryDB != "" {
		args = append(args, "--registry-db", c.RegistryDB)
	}
	if c.NoRegister {
		args = append(args, "--no-register")
	}
	if c.DefaultIdentity != "" {
		args = append(args, "--default-identity", c.DefaultIdentity)
	}
	if c.Timeout > 0 {
		// git gets 90% of the budget, so a slow git command still comes
		// back as a "timeout" response before the client kills the agent.
		args = append(args, "--timeout", (c.Timeout * 9 / 10).String())
	}
	return args
}

// responseSchema is the compiled ActionResponse schema, built once.
var responseSchema = sync.OnceValues(func() (*schemacheck.Schema, error) {
	raw, err := contract.Schema("ActionResponse")
	if err != nil {
		return nil, err
	}
	return schemacheck.Compile(raw)
})

// ValidateResponse checks raw, one JSON document, against the ActionResponse
// JSON Schema. The error wraps [ErrInvalidResponse] and names the first
// violation and where it is.
func ValidateResponse(raw []byte) error {
	sch, err := responseSchema()
	if err != nil {
		return fmt.Errorf("gitagent: compile schema: %w", err)
	}
	inst, err := schemacheck.Decode(raw)
	if err != nil {
		return fmt.Errorf("%w: not JSON: %w", ErrInvalidResponse, err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidResponse, err)
	}
	return nil
}

// ParseResponse validates raw against the ActionResponse schema, then
// decodes it, and checks that status, code and output_type agree.
func ParseResponse(raw []byte) (*Response, error) {
	raw = bytes.TrimSpace(raw)
	if err := ValidateResponse(raw); err != nil {
		return nil, err
	}
	var resp contract.ActionResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidResponse, err)
	}
	if err := consistent(resp); err != nil {
		return nil, err
	}
	return &Response{ActionResponse: resp, Raw: raw}, nil
}

// consistent checks the rules of docs/contracts/git-agent.md §3 that the
// schema cannot say.
func consistent(r contract.ActionResponse) error {
	if r.Result == nil {
		return fmt.Errorf("%w: result is null", ErrInvalidResponse)
	}
	ok := r.Status == contract.StatusSuccess && r.Code == contract.CodeSuccess && r.Result.OutputType == contract.OutputText
	bad := r.Status == contract.StatusError && r.Code == contract.CodeError && r.Result.OutputType == contract.OutputError
	if !ok && !bad {
		return fmt.Errorf("%w: status %q, code %d and output_type %q disagree", ErrInvalidResponse, r.Status, r.Code, r.Result.OutputType)
	}
	return nil
}

func actionError(action string, resp *Response) *ActionError {
	e := &ActionError{Action: action, ExitCode: -1, Response: resp}
	if resp.Result != nil {
		e.Data = resp.Result.Data
		if k, ok := resp.Result.Metadata["error_kind"].(string); ok {
			e.Kind = k
		}
		if n, ok := resp.Result.Metadata["exit_code"].(float64); ok {
			e.ExitCode = int(n)
		}
	}
	if e.Kind == "" {
		e.Kind = server.KindGitFailed
	}
	return e
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

func signalNote(sig string) string {
	if sig == "" {
		return ""
	}
	return " (" + sig + ")"
}

// The git_worktree extension, re-exported from package agent for callers
// that build the command themselves (salve heal's worktrees).
const (
	ActionGitWorktree = server.ActionGitWorktree
	// ActionGitBranchPrune deletes merged branches of a prefix (salve gc).
	ActionGitBranchPrune = server.ActionGitBranchPrune
	// ActionGitCommitDiff shows a commit's change against its first
	// parent (salve heal's history tier).
	ActionGitCommitDiff = server.ActionGitCommitDiff
	// ActionGitShowFile prints one file as a commit holds it.
	ActionGitShowFile = server.ActionGitShowFile
	WorktreeAdd       = server.WorktreeAdd
	WorktreeRemove    = server.WorktreeRemove
	WorktreeList      = server.WorktreeList
	WorktreePrune     = server.WorktreePrune
	WorktreeGitDir    = server.WorktreeGitDir
	WorktreeReset     = server.WorktreeReset
	WorktreeClean     = server.WorktreeClean
	WorktreeUntracked = server.WorktreeUntracked
	WorktreeDetach    = server.WorktreeDetach
	WorktreeGitlinks  = server.WorktreeGitlinks
	// MetaGitDir is the metadata key of a worktree add's git directory.
	MetaGitDir = server.MetaGitDir
)

// mergeEnv returns env with the KEY=VALUE entries of extra added, each
// replacing an entry of env with the same key. When extra carries git
// configuration (GIT_CONFIG_*), env's is dropped: the two numberings
// cannot be mixed.
func mergeEnv(env, extra []string) []string {
	over := make(map[string]string, len(extra))
	config := false
	for _, kv := range extra {
		if k, v, ok := strings.Cut(kv, "="); ok {
			over[k] = v
			config = config || strings.HasPrefix(k, "GIT_CONFIG_")
		}
	}
	base := env
	if config {
		base = nil
		for _, kv := range env {
			if !strings.HasPrefix(kv, "GIT_CONFIG_") {
				base = append(base, kv)
			}
		}
	}
	return sandbox.MergeEnv(base, over)
}

// credentialMasker masks, in the agent's output, the values ExtraEnv
// handed it (but git configuration's keys and count): each whole value, its last word (the credential of an
// "Authorization: basic …" header), and the password inside that word
// when it is base64 of "user:password" (a GitHub App's installation
// token). git never prints an extra header; this keeps it so if a
// message ever quotes one.
func credentialMasker(extra []string) *secret.Masker {
	var vals []string
	for _, kv := range extra {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "GIT_CONFIG_COUNT" || strings.HasPrefix(k, "GIT_CONFIG_KEY_") {
			continue
		}
		vals = append(vals, v)
		f := strings.Fields(v)
		if len(f) < 2 {
			continue
		}
		last := f[len(f)-1]
		vals = append(vals, last)
		if b, err := base64.StdEncoding.DecodeString(last); err == nil {
			if _, pw, ok := strings.Cut(string(b), ":"); ok {
				vals = append(vals, pw)
			}
		}
	}
	return secret.NewMasker(vals...)
}
