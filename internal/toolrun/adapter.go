package toolrun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/toolrun/pattern"
)

// Adapter runs external tools by profile. The zero value is ready to use:
// the default profile table, no run store, the system clock, UUIDv4 ids.
// An Adapter never panics and never returns a Go error for a tool failure:
// every outcome is a [contract.ToolRunResultV1].
type Adapter struct {
	// Profiles is the tool table; nil means DefaultProfiles().
	Profiles []Profile
	// Store, when set, receives the run, its events, the tool run, the
	// patches and the run record. Nil records nothing durable.
	Store *store.Store
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// NewID makes ids; nil means UUIDv4.
	NewID func() string
	// Env is the base environment of the child (KEY=VALUE) before the
	// request's env and the profile's forced env are merged over it. Nil
	// means salve's whole environment (docs/contracts/tool-adapter.md §4.2).
	// A caller that took secrets out of its process environment passes them
	// back here.
	Env []string
	// ScrubEnv gives every run the scrubbed environment (EnvScrubbed): of
	// the base, only sandbox.DefaultAllowEnv and the profile's own
	// variables.
	ScrubEnv bool
	// MaxOutput caps each captured stream; zero means sandbox.DefaultMaxOutput.
	MaxOutput int
	// Limits bound the snapshots; zero fields take the defaults.
	Limits Limits
	// Git is the git program used to render diffs; empty means "git".
	Git string
	// Logger receives diagnostics (store failures…); nil means slog.Default().
	Logger *slog.Logger

	// noPIDNamespace, set by a test, forces the subreaper fallback.
	noPIDNamespace bool

	// hook, when set by a test, is called at each stage; it lets a test
	// inject a panic to prove that none escapes.
	hook func(stage string)
}

// RunOptions are the parts of a run that are not in the request.
type RunOptions struct {
	// FileScope lists the files the tool may change, relative to Cwd. Nil
	// means the request context's "file_scope", or else the positional
	// arguments of the command (aider's files).
	FileScope []string
	// Pattern, when set, has its guardrails enforced before the run.
	Pattern *pattern.Pattern
	// ParentRunID links the run to the run that started it (a heal, a
	// router task).
	ParentRunID string
	// ScrubEnv gives this run the scrubbed environment (EnvScrubbed), as
	// the request context's "env_policy": "scrubbed" does.
	ScrubEnv bool
	// RunID and RequestID are chosen ids; empty means new ones.
	RunID, RequestID string
}

// Outcome is what one run produced: the contract result, the run record
// (with every event and patch), and the run id.
type Outcome struct {
	RunID  string
	Result contract.ToolRunResultV1
	Record contract.RunRecordV1
}

// RunAider runs one aider request with a zero [Adapter] (no store) and
// returns its result. It never panics and never fails: every failure is an
// exit code (docs/contracts/tool-adapter.md §3.2, plus -4 for a rejected
// request).
func RunAider(ctx context.Context, req contract.ToolRunRequestV1) contract.ToolRunResultV1 {
	res, _ := RunAiderRecord(ctx, req)
	return res
}

// RunAiderRecord is [RunAider] that also returns the run record.
func RunAiderRecord(ctx context.Context, req contract.ToolRunRequestV1) (contract.ToolRunResultV1, contract.RunRecordV1) {
	out := (&Adapter{}).RunAider(ctx, req, RunOptions{})
	return out.Result, out.Record
}

// RunAider runs req, which must be an aider request (tool_id "aider").
func (a *Adapter) RunAider(ctx context.Context, req contract.ToolRunRequestV1, opts RunOptions) Outcome {
	return a.run(ctx, req, opts, ToolAider)
}

// Run runs req with the profile its tool_id names.
func (a *Adapter) Run(ctx context.Context, req contract.ToolRunRequestV1, opts RunOptions) Outcome {
	return a.run(ctx, req, opts, "")
}

func (a *Adapter) run(ctx context.Context, req contract.ToolRunRequestV1, opts RunOptions, wantTool string) (out Outcome) {
	rs := &runState{a: a, req: req, opts: opts, wantTool: wantTool}
	defer func() {
		if r := recover(); r != nil {
			out = rs.panicked(ctx, r)
		}
		rs.removeHome()
	}()
	rs.begin()
	rs.execute(ctx)
	rs.finish(ctx)
	return rs.outcome()
}

func (a *Adapter) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

func (a *Adapter) newID() string {
	if a.NewID != nil {
		return a.NewID()
	}
	return uuid.NewString()
}

func (a *Adapter) logger() *slog.Logger {
	if a.Logger != nil {
		return a.Logger
	}
	return slog.Default()
}

func (a *Adapter) profiles() []Profile {
	if a.Profiles != nil {
		return a.Profiles
	}
	return DefaultProfiles()
}

func (a *Adapter) stage(name string) {
	if a.hook != nil {
		a.hook(name)
	}
}

// validate checks the request (docs/contracts/tool-adapter.md §4.2 step 1)
// and returns why it is refused, or "".
func (rs *runState) validate() string {
	req := rs.req
	if rs.wantTool != "" && req.ToolID != rs.wantTool {
		return fmt.Sprintf("tool_id is %q, want %q", req.ToolID, rs.wantTool)
	}
	p, ok := findProfile(rs.a.profiles(), req.ToolID)
	if !ok {
		return fmt.Sprintf("no profile for tool_id %q", req.ToolID)
	}
	rs.profile = p
	if len(req.Cmd) == 0 || req.Cmd[0] != p.Binary {
		return fmt.Sprintf("cmd[0] must be %q", p.Binary)
	}
	if req.Cwd == "" || !filepath.IsAbs(req.Cwd) {
		return fmt.Sprintf("cwd %q is not an absolute path", req.Cwd)
	}
	if !dirExists(req.Cwd) {
		return fmt.Sprintf("cwd %s does not exist or is not a folder", req.Cwd)
	}
	if req.TimeoutSeconds < 0 {
		return fmt.Sprintf("timeout_seconds %d is negative", req.TimeoutSeconds)
	}
	if msg := checkFlags(p, req.Cmd); msg != "" {
		return msg
	}
	scope, err := cleanScope(rs.scopeEntries())
	if err != nil {
		return err.Error()
	}
	if msg := confineScope(req.Cwd, scope); msg != "" {
		return msg
	}
	rs.scope = scope
	return ""
}

// checkFlags requires the profile's required flags and refuses its
// forbidden ones. A required flag is also met by a longer flag it
// abbreviates ("--yes" by "--yes-always"), and an abbreviation of a
// forbidden flag is forbidden too, as the tool's argparse would expand it.
func checkFlags(p Profile, cmd []string) string {
	args := cmd[1:]
	for i, a := range args {
		if a == "--" {
			args = args[:i]
			break
		}
	}
	for _, f := range p.RequiredFlags {
		found := false
		for _, a := range args {
			if a == f || strings.HasPrefix(a, f+"-") {
				found = true
				break
			}
		}
		if !found {
			return fmt.Sprintf("cmd lacks the required flag %s", f)
		}
	}
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		if !strings.HasPrefix(name, "--") || len(name) < 4 {
			continue
		}
		for _, f := range p.ForbiddenFlags {
			if strings.HasPrefix(f, name) {
				return fmt.Sprintf("cmd has the forbidden flag %s", a)
			}
		}
	}
	if msg := checkPinned(p, args); msg != "" {
		return msg
	}
	if msg := checkClosed(p, args); msg != "" {
		return msg
	}
	if p.PromptOnStdin {
		if pos := positionalArgs(p, cmd); len(pos) > 0 {
			return fmt.Sprintf("cmd has the argument %q: %s takes its prompt on stdin and no file on its command line", pos[0], p.ToolID)
		}
	}
	return ""
}

// checkPinned requires each of the profile's pinned flags, and refuses an
// occurrence of one with another value (args end before "--").
func checkPinned(p Profile, args []string) string {
	for _, pin := range p.PinnedFlags {
		found := false
		for i := 0; i < len(args); i++ {
			name, val, eq := strings.Cut(args[i], "=")
			if name != pin.Flag {
				continue
			}
			if !eq {
				val = ""
				if i+1 < len(args) {
					val = args[i+1]
				}
				i++
			}
			if val != pin.Value {
				return fmt.Sprintf("cmd has %s %q; %s runs only with %s %s", pin.Flag, val, p.ToolID, pin.Flag, pin.Value)
			}
			found = true
		}
		if !found {
			return fmt.Sprintf("cmd lacks the required flag %s %s", pin.Flag, pin.Value)
		}
	}
	return ""
}

// checkClosed refuses, for a profile with AllowedFlags, every flag the row
// does not name; the value of a flag that takes one is skipped.
func checkClosed(p Profile, args []string) string {
	if p.AllowedFlags == nil {
		return ""
	}
	known := map[string]bool{}
	for _, list := range [][]string{p.RequiredFlags, p.ExtraFlags, p.AllowedFlags} {
		for _, f := range list {
			known[f] = true
		}
	}
	for _, pin := range p.PinnedFlags {
		known[pin.Flag] = true
	}
	takesValue := map[string]bool{}
	for _, f := range p.ValueFlags {
		takesValue[f] = true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || len(a) < 2 {
			continue
		}
		name, _, eq := strings.Cut(a, "=")
		if !known[name] {
			return fmt.Sprintf("cmd has the flag %s, which the %s profile does not allow", a, p.ToolID)
		}
		if !eq && takesValue[name] {
			i++
		}
	}
	return ""
}

// scopeEntries picks the file scope: the options', the request context's,
// or the command's positional arguments.
func (rs *runState) scopeEntries() []string {
	if rs.opts.FileScope != nil {
		return rs.opts.FileScope
	}
	if v, ok := rs.req.Context[ContextFileScope]; ok {
		return stringList(v)
	}
	return positionalArgs(rs.profile, rs.req.Cmd)
}

// lookPath finds name in the PATH of the child's environment env (not
// salve's own), so the tool that runs is the one the child would find. A
// name with a slash is used as is. Empty PATH entries (the current folder)
// are skipped.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	var pathVar string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	for _, dir := range filepath.SplitList(pathVar) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %q is not in the tool's PATH", sandbox.ErrNotFound, name)
}

// stringList reads a []string, or the strings of a []any (JSON-decoded).
func stringList(v any) []string {
	switch t := v.(type) {
	case []string:
		return t
	case []any:
		out := []string{}
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return []string{}
}

// mapStartError maps a failure to start the tool
// (docs/contracts/tool-adapter.md §4.2 step 3).
func mapStartError(err error) (int, string) {
	if errors.Is(err, sandbox.ErrNotFound) {
		return contract.ExitNotFound, fmt.Sprintf("Executable not found: %v", err)
	}
	return contract.ExitExecError, fmt.Sprintf("Execution error: %v", err)
}

// TimeoutMessage is the stderr of a result whose run timed out.
func TimeoutMessage(seconds int) string {
	return fmt.Sprintf("Process timed out after %d seconds", seconds)
}

// confineScope refuses a scope entry that leads out of the tree once its
// links are followed (a link to a file or folder outside, or a folder of
// its path that is one). For a glob, the folders before its first
// wildcard are checked; the files it matches are checked after the run.
func confineScope(cwd string, scope []string) string {
	root, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return fmt.Sprintf("cannot resolve cwd: %v", err)
	}
	for _, e := range scope {
		static := e
		if i := strings.IndexAny(e, "*?[{"); i >= 0 {
			static = path.Dir(e[:i] + "x")
			if static == "." {
				continue
			}
		}
		if leadsOutside(root, static) {
			real, _ := resolveLenient(filepath.Join(root, filepath.FromSlash(static)))
			return fmt.Sprintf("file scope entry %q leads out of the work tree (to %s)", e, real)
		}
	}
	return ""
}
