package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/gitremote"
)

// actionSpec is one row of the action table: the payload fields it reads,
// the checks on them, and the git command line it becomes.
type actionSpec struct {
	name string
	// doc is a one-line description, for the docs and the registry.
	doc string
	// fields are the payload fields read, keys of fieldTable.
	fields []string
	// check validates the decoded command and fills defaults.
	check func(*contract.GitAgentCommandV1) error
	// paths means Files are pathspecs, checked against the repository root
	// and passed after "--".
	paths bool
	// build returns git's arguments (after "git -C <dir>") and its stdin.
	build func(cmd contract.GitAgentCommandV1, paths []string) (args []string, stdin string)
}

// actionTable holds every supported action. The first five are the
// contract's (docs/contracts/git-agent.md §2.1); the rest are salve's
// documented v1 extensions.
var actionTable = map[string]actionSpec{
	contract.ActionGitStatus: {
		name: contract.ActionGitStatus, doc: "git status of the work tree",
		build: func(contract.GitAgentCommandV1, []string) ([]string, string) {
			return []string{"status", "--ignore-submodules=" + submoduleIgnore}, ""
		},
	},
	contract.ActionGitDiff: {
		name: contract.ActionGitDiff, doc: "unstaged diff, optionally of some files",
		fields: []string{"files"}, paths: true,
		build: func(_ contract.GitAgentCommandV1, paths []string) ([]string, string) {
			return append([]string{"diff", "--no-color", "--no-ext-diff", "--no-textconv",
				"--ignore-submodules=" + submoduleIgnore, "--submodule=short", "--"}, paths...), ""
		},
	},
	contract.ActionGitLog: {
		name: contract.ActionGitLog, doc: "the last `limit` commits (default 10)",
		fields: []string{"limit"}, check: checkLog,
		build: func(cmd contract.GitAgentCommandV1, _ []string) ([]string, string) {
			return []string{"log", "--no-color", "--max-count=" + strconv.FormatUint(uint64(*cmd.Limit), 10)}, ""
		},
	},
	contract.ActionGitAdd: {
		name: contract.ActionGitAdd, doc: "stage the listed files",
		fields: []string{"files"}, check: needFiles, paths: true,
		build: func(_ contract.GitAgentCommandV1, paths []string) ([]string, string) {
			return append([]string{"add", "--"}, paths...), ""
		},
	},
	contract.ActionGitCommit: {
		name: contract.ActionGitCommit, doc: "commit the staged changes with `message`",
		fields: []string{"message"}, check: checkCommit,
		build: func(cmd contract.GitAgentCommandV1, _ []string) ([]string, string) {
			return []string{"commit", "--file=-"}, *cmd.Message
		},
	},
	contract.ActionGitBranch: {
		name: contract.ActionGitBranch, doc: "switch to `branch`, or create it (`create`) at `start_point`",
		fields: []string{"branch", "start_point", "create"}, check: checkBranch,
		build: buildBranch,
	},
	contract.ActionGitRestore: {
		name: contract.ActionGitRestore, doc: "restore the listed files, index and work tree, to HEAD",
		fields: []string{"files"}, check: needFiles, paths: true,
		build: func(_ contract.GitAgentCommandV1, paths []string) ([]string, string) {
			return append([]string{"restore", "--source=HEAD", "--staged", "--worktree", "--"}, paths...), ""
		},
	},
	contract.ActionGitPush: {
		name: contract.ActionGitPush, doc: "push `branch` (default the current one) to `remote` (default origin)",
		fields: []string{"remote", "branch", "force_with_lease"}, check: checkPush,
		build: func(cmd contract.GitAgentCommandV1, _ []string) ([]string, string) {
			ref := cmd.Branch
			if ref == "" {
				ref = "HEAD"
			}
			if cmd.ForceWithLease != "" {
				return []string{"push", "--porcelain", "--force-with-lease=refs/heads/" + cmd.Branch + ":" + cmd.ForceWithLease,
					"--end-of-options", cmd.Remote, "refs/heads/" + cmd.Branch + ":refs/heads/" + cmd.Branch}, ""
			}
			return []string{"push", "--porcelain", "--end-of-options", cmd.Remote, ref}, ""
		},
	},
	ActionGitWorktree:    worktreeSpec,    // salve heal's worktrees, see worktree.go
	ActionGitBranchPrune: branchPruneSpec, // salve gc's branch pruning, see prune.go
	ActionGitCommitDiff:  commitDiffSpec,  // salve heal's history tier, see commitdiff.go
	ActionGitShowFile:    showFileSpec,    // salve heal's repository configuration, see showfile.go
	contract.ActionGitRevParse: {
		name: contract.ActionGitRevParse, doc: "the commit of `ref` (default HEAD), or the current branch name for ref \"branch\"",
		fields: []string{"ref"}, check: checkRevParse,
		build: func(cmd contract.GitAgentCommandV1, _ []string) ([]string, string) {
			if cmd.Ref == RefBranch {
				return []string{"rev-parse", "--abbrev-ref", "HEAD"}, ""
			}
			return []string{"rev-parse", "--verify", "--end-of-options", cmd.Ref + "^{commit}"}, ""
		},
	},
}

// RefBranch is the git_rev_parse ref that asks for the current branch name.
const RefBranch = "branch"

// DefaultRemote is the git_push remote when none is given.
const DefaultRemote = "origin"

// Actions returns the supported action names, sorted.
func Actions() []string {
	names := make([]string, 0, len(actionTable))
	for n := range actionTable {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ActionDoc returns the one-line description of action, or "" if unknown.
func ActionDoc(action string) string { return actionTable[action].doc }

func buildBranch(cmd contract.GitAgentCommandV1, _ []string) ([]string, string) {
	// --quiet: a switch that reports the local changes left behind diffs
	// every submodule's work tree, running the submodule's own filters
	// (see submoduleIgnore).
	if !cmd.Create {
		return []string{"switch", "--quiet", "--end-of-options", cmd.Branch}, ""
	}
	args := []string{"switch", "--quiet", "--create=" + cmd.Branch}
	if cmd.StartPoint != "" {
		args = append(args, "--end-of-options", cmd.StartPoint)
	}
	return args, ""
}

// fieldDecoder reads one payload field into the command. legacy relaxes
// the type where docs/contracts/git-agent.md §2.2 did (limit as a string).
type fieldDecoder func(obj map[string]json.RawMessage, cmd *contract.GitAgentCommandV1, legacy bool) error

var fieldTable = map[string]fieldDecoder{
	"files":            decodeFiles,
	"limit":            decodeLimit,
	"message":          decodeMessage,
	"branch":           stringField("branch", func(c *contract.GitAgentCommandV1) *string { return &c.Branch }),
	"start_point":      stringField("start_point", func(c *contract.GitAgentCommandV1) *string { return &c.StartPoint }),
	"remote":           stringField("remote", func(c *contract.GitAgentCommandV1) *string { return &c.Remote }),
	"ref":              stringField("ref", func(c *contract.GitAgentCommandV1) *string { return &c.Ref }),
	"force_with_lease": stringField("force_with_lease", func(c *contract.GitAgentCommandV1) *string { return &c.ForceWithLease }),
	"create":           decodeCreate,
}

func decodeFiles(obj map[string]json.RawMessage, cmd *contract.GitAgentCommandV1, _ bool) error {
	raw, ok := obj["files"]
	if !ok || isNull(raw) {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return fmt.Errorf("files: want an array of strings, got %s", jsonKind(raw))
	}
	files := make([]string, 0, len(items))
	for i, it := range items {
		var s string
		if err := json.Unmarshal(it, &s); err != nil {
			return fmt.Errorf("files[%d]: want a string, got %s", i, jsonKind(it))
		}
		files = append(files, s)
	}
	cmd.Files = files
	return nil
}

func decodeLimit(obj map[string]json.RawMessage, cmd *contract.GitAgentCommandV1, legacy bool) error {
	raw, ok := obj["limit"]
	if !ok || isNull(raw) {
		return nil
	}
	var text string
	switch {
	case json.Unmarshal(raw, &text) == nil:
		if !legacy {
			return errors.New("limit: want a non-negative integer, got a string (strings are accepted only in the legacy payload)")
		}
	case jsonKind(raw) == "a number":
		text = strings.TrimSpace(string(raw))
	default:
		return fmt.Errorf("limit: want a non-negative integer, got %s", jsonKind(raw))
	}
	n, err := strconv.ParseUint(text, 10, 32)
	if err != nil {
		return fmt.Errorf("limit: want an integer from 0 to 4294967295, got %q", text)
	}
	limit := uint32(n)
	cmd.Limit = &limit
	return nil
}

func decodeMessage(obj map[string]json.RawMessage, cmd *contract.GitAgentCommandV1, _ bool) error {
	s, err := optString(obj, "message")
	if err != nil {
		return err
	}
	cmd.Message = s
	return nil
}

func decodeCreate(obj map[string]json.RawMessage, cmd *contract.GitAgentCommandV1, _ bool) error {
	raw, ok := obj["create"]
	if !ok || isNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, &cmd.Create); err != nil {
		return fmt.Errorf("create: want a boolean, got %s", jsonKind(raw))
	}
	return nil
}

func stringField(key string, dst func(*contract.GitAgentCommandV1) *string) fieldDecoder {
	return func(obj map[string]json.RawMessage, cmd *contract.GitAgentCommandV1, _ bool) error {
		s, err := optString(obj, key)
		if err != nil {
			return err
		}
		if s != nil {
			*dst(cmd) = *s
		}
		return nil
	}
}

func checkLog(cmd *contract.GitAgentCommandV1) error {
	if cmd.Limit == nil {
		limit := uint32(contract.DefaultGitLogLimit)
		cmd.Limit = &limit
	}
	return nil
}

func needFiles(cmd *contract.GitAgentCommandV1) error {
	if len(cmd.Files) == 0 {
		return errors.New("files: must list at least one file")
	}
	return nil
}

func checkCommit(cmd *contract.GitAgentCommandV1) error {
	if cmd.Message == nil {
		return errors.New("message: required")
	}
	if strings.TrimSpace(*cmd.Message) == "" {
		return errors.New("message: must not be empty")
	}
	if strings.ContainsRune(*cmd.Message, 0) {
		return errors.New("message: must not contain NUL")
	}
	return nil
}

func checkBranch(cmd *contract.GitAgentCommandV1) error {
	if cmd.Branch == "" {
		return errors.New("branch: required")
	}
	if err := checkRefName(cmd.Branch); err != nil {
		return fmt.Errorf("branch: %w", err)
	}
	if cmd.StartPoint != "" {
		if err := checkRev(cmd.StartPoint); err != nil {
			return fmt.Errorf("start_point: %w", err)
		}
	}
	return nil
}

func checkPush(cmd *contract.GitAgentCommandV1) error {
	if cmd.Remote == "" {
		cmd.Remote = DefaultRemote
	}
	if err := checkRemote(cmd.Remote); err != nil {
		return fmt.Errorf("remote: %w", err)
	}
	if cmd.Branch != "" {
		if err := checkRefName(cmd.Branch); err != nil {
			return fmt.Errorf("branch: %w", err)
		}
	}
	if cmd.ForceWithLease != "" {
		if cmd.Branch == "" {
			return errors.New("force_with_lease: needs branch")
		}
		if !isHash(cmd.ForceWithLease) {
			return fmt.Errorf("force_with_lease: %q is not a full commit hash", cmd.ForceWithLease)
		}
	}
	return nil
}

// isHash accepts a full SHA-1 or SHA-256 commit hash in lower-case hex.
func isHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func checkRevParse(cmd *contract.GitAgentCommandV1) error {
	if cmd.Ref == "" {
		cmd.Ref = "HEAD"
	}
	if cmd.Ref == RefBranch {
		return nil
	}
	if err := checkRev(cmd.Ref); err != nil {
		return fmt.Errorf("ref: %w", err)
	}
	return nil
}

// checkArg accepts an argument (a remote, a revision, a branch) that git cannot
// mistake for an option: not empty, no leading "-", no control characters.
func checkArg(s string) error {
	switch {
	case s == "":
		return errors.New("must not be empty")
	case len(s) > 4096:
		return errors.New("too long")
	case s[0] == '-':
		return fmt.Errorf("%q must not start with '-'", s)
	}
	for _, r := range s {
		if r < ' ' || r == 0x7f {
			return fmt.Errorf("%q must not contain control characters", s)
		}
	}
	return nil
}

// checkRemote accepts what git_push may push to: a configured remote's
// name, a local path, an scp-like "[user@]host:path", or a URL whose scheme
// is https, ssh, git or file ([gitremote.Check], the policy the service
// worker follows too). Remote helpers ("transport::address", such as fd::3
// or ext::cmd) and every other scheme are refused before git starts. A
// configured remote's own URL is checked by git (protocol.allow, see
// safegit.go).
func checkRemote(s string) error {
	if err := checkArg(s); err != nil {
		return err
	}
	if err := gitremote.Check(s); err != nil {
		return fmt.Errorf("%q: %w", s, err)
	}
	return nil
}

// checkRev accepts a revision: what checkArg accepts, without spaces.
func checkRev(s string) error {
	if err := checkArg(s); err != nil {
		return err
	}
	if strings.ContainsRune(s, ' ') {
		return fmt.Errorf("%q must not contain spaces", s)
	}
	return nil
}

// checkRefName applies git's branch-name rules (git check-ref-format), and
// also refuses a leading '+' (a forced push refspec) and ':' (a refspec).
func checkRefName(s string) error {
	if err := checkRev(s); err != nil {
		return err
	}
	bad := func(why string) error { return fmt.Errorf("%q is not a valid branch name: %s", s, why) }
	switch {
	case s == "@" || s == "HEAD":
		return bad("reserved name")
	case s[0] == '+':
		return bad("must not start with '+'")
	case strings.ContainsAny(s, "~^:?*[\\"):
		return bad(`must not contain any of ~ ^ : ? * [ \`)
	case strings.Contains(s, "..") || strings.Contains(s, "@{") || strings.Contains(s, "//"):
		return bad(`must not contain "..", "@{" or "//"`)
	case strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") || strings.HasSuffix(s, "."):
		return bad("must not start or end with '/' or end with '.'")
	}
	for _, part := range strings.Split(s, "/") {
		if strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return bad("no component may start with '.' or end with \".lock\"")
		}
	}
	return nil
}
