// Package aiderfix is the Fix Agent's tiers that hand a fix to an external
// coding tool: aider, and the coding CLIs of the tool adapter's table
// (Claude Code). It hands one file's bug reports to the tool, only through
// the tool adapter (package toolrun), with file_scope set to that file.
// The adapter reverts anything the tool changes outside the scope; this
// tier then reads the file's new content, puts the original back, and
// returns the content as a FixResult, so the orchestrator's fix gate still
// decides what is applied, as it does for every other tier.
package aiderfix

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/llmfix"
	"github.com/salve-dev/salve/internal/toolrun"

	"github.com/salve-dev/salve/internal/safefile"
)

// Name is the aider tier's name in results and --fixers.
const Name = "aider"

// Claude is the Claude Code tier's name in results and --fixers: the tool
// id of its row in the tool adapter's table.
const Claude = toolrun.ToolClaude

// DefaultConfidence is the confidence given to an in-scope edit of the
// tool: none reports one, and the gate still checks the diff.
const DefaultConfidence = 0.75

// Fixer is the tier of one tool.
type Fixer struct {
	// Tool is the tool id: empty or Name for aider, or a coding CLI of the
	// tool adapter's table that takes its prompt on stdin (Claude).
	Tool string
	// Adapter runs the tool; nil means a zero toolrun.Adapter.
	Adapter *toolrun.Adapter
	// Model is the tool's model; empty means toolrun.DefaultAiderModel for
	// aider, and the CLI's own choice for a CLI.
	Model string
	// TimeoutSeconds bounds one run; zero means the contract default.
	TimeoutSeconds int
	// Confidence is the confidence of its fixes; zero means
	// DefaultConfidence.
	Confidence float64
	// ParentRunID links the tool runs to the heal run in the run store.
	ParentRunID string
}

var _ heal.Fixer = (*Fixer)(nil)

// Name returns the tool id: "aider" or the CLI's.
func (f *Fixer) Name() string {
	if f.Tool == "" {
		return Name
	}
	return f.Tool
}

// Message is the task a tool is given for in: the llm tier's prompt,
// with the one file to edit in place.
func Message(in heal.FixInput) string {
	return llmfix.SystemPrompt + "\n\n" + llmfix.UserPrompt(in) + "\nEdit " + in.Path + " in place; ignore the JSON reply format above.\n"
}

// Fix runs the tool on the file of in.
func (f *Fixer) Fix(ctx context.Context, in heal.FixInput) (contract.FixResult, error) {
	name := f.Name()
	abs := filepath.Join(in.Workspace, filepath.FromSlash(in.Path))
	ad := f.Adapter
	if ad == nil {
		ad = &toolrun.Adapter{}
	}
	opts := toolrun.RunOptions{FileScope: []string{in.Path}, ParentRunID: f.ParentRunID}
	var out toolrun.Outcome
	if name == Name {
		promptDir, err := os.MkdirTemp("", "salve-aider-")
		if err != nil {
			return contract.FixResult{}, fmt.Errorf("aider: prompt folder: %w", err)
		}
		defer os.RemoveAll(promptDir)
		prompt := filepath.Join(promptDir, "message.txt")
		if err := os.WriteFile(prompt, []byte(Message(in)), 0o600); err != nil {
			return contract.FixResult{}, fmt.Errorf("aider: write prompt: %w", err)
		}
		req, err := toolrun.BuildAiderToolRequest(toolrun.AiderOptions{
			Model: f.Model, PromptFile: prompt, FileScope: []string{in.Path},
			Workspace: contract.GitWorkspaceRefV1{RootPath: in.Workspace}, TimeoutSeconds: f.TimeoutSeconds,
		})
		if err != nil {
			return contract.FixResult{}, fmt.Errorf("aider: build request: %w", err)
		}
		out = ad.RunAider(ctx, req, opts)
	} else {
		req, err := toolrun.BuildCLIToolRequest(name, toolrun.CLIOptions{
			Model: f.Model, Prompt: Message(in), FileScope: []string{in.Path},
			Workspace: contract.GitWorkspaceRefV1{RootPath: in.Workspace}, TimeoutSeconds: f.TimeoutSeconds,
		})
		if err != nil {
			return contract.FixResult{}, fmt.Errorf("%s: build request: %w", name, err)
		}
		out = ad.Run(ctx, req, opts)
	}
	// Never through a link the tool left (the adapter also reverts one
	// that points out of the tree), never a FIFO, and bounded.
	after, rerr := safefile.ReadOpts(abs, safefile.MaxSource, safefile.Options{NoFollow: true})
	if werr := restoreFile(abs, in.Content); werr != nil {
		return contract.FixResult{}, fmt.Errorf("%s: restore %s: %w", name, in.Path, werr)
	}
	if out.Result.ExitCode != 0 {
		return contract.FixResult{}, fmt.Errorf("%s exited %d: %s: %w", name, out.Result.ExitCode, firstLine(out.Result.Stderr), results.ErrNoFix)
	}
	if rerr != nil || string(after) == in.Content {
		if v := out.Record.ScopeViolations; len(v) > 0 {
			return contract.FixResult{}, fmt.Errorf("%s changed only files outside its scope %s (%s), which were put back: %w",
				name, in.Path, strings.Join(v, ", "), results.ErrNoFix)
		}
		return contract.FixResult{}, fmt.Errorf("%s left %s unchanged: %w", name, in.Path, results.ErrNoFix)
	}
	conf := f.Confidence
	if conf == 0 {
		conf = DefaultConfidence
	}
	reason := name + "'s edit of the reported lines"
	if l := firstLine(out.Result.Stdout); l != "" {
		reason += ": " + l
	}
	if v := out.Record.ScopeViolations; len(v) > 0 {
		reason += fmt.Sprintf(" (its changes to %s, outside its scope, were put back)", strings.Join(v, ", "))
	}
	return contract.FixResult{PatchedContent: string(after), FixReason: reason, ConfidenceScore: conf, Fixer: name}, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s[:min(len(s), 200)]
}

// restoreFile puts the pre-fix content back as a regular file, replacing
// whatever the tool left at path (a link is removed, never written through).
func restoreFile(path, content string) error {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		if err := os.RemoveAll(path); err != nil {
			return err
		}
	}
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return err
	}
	_, err = fh.WriteString(content)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}
