// Package aiderfix is the Fix Agent's aider tier: it hands one file's bug
// reports to aider, only through the tool adapter (package toolrun), with
// file_scope set to that file. The adapter reverts anything aider changes
// outside the scope; this tier then reads the file's new content, puts the
// original back, and returns the content as a FixResult, so the
// orchestrator's fix gate still decides what is applied.
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

// Name is the tier's name in results and --fixers.
const Name = "aider"

// DefaultConfidence is the confidence given to an in-scope aider edit:
// aider reports none, and the gate still checks the diff.
const DefaultConfidence = 0.75

// Fixer is the aider tier.
type Fixer struct {
	// Adapter runs aider; nil means a zero toolrun.Adapter.
	Adapter *toolrun.Adapter
	// Model is aider's model; empty means toolrun.DefaultAiderModel.
	Model string
	// TimeoutSeconds bounds one aider run; zero means the contract default.
	TimeoutSeconds int
	// Confidence is the confidence of its fixes; zero means
	// DefaultConfidence.
	Confidence float64
	// ParentRunID links the tool runs to the heal run in the run store.
	ParentRunID string
}

var _ heal.Fixer = (*Fixer)(nil)

// Name returns "aider".
func (f *Fixer) Name() string { return Name }

// Fix runs aider on the file of in.
func (f *Fixer) Fix(ctx context.Context, in heal.FixInput) (contract.FixResult, error) {
	abs := filepath.Join(in.Workspace, filepath.FromSlash(in.Path))
	promptDir, err := os.MkdirTemp("", "salve-aider-")
	if err != nil {
		return contract.FixResult{}, fmt.Errorf("aider: prompt folder: %w", err)
	}
	defer os.RemoveAll(promptDir)
	prompt := filepath.Join(promptDir, "message.txt")
	msg := llmfix.SystemPrompt + "\n\n" + llmfix.UserPrompt(in) + "\nEdit " + in.Path + " in place; ignore the JSON reply format above.\n"
	if err := os.WriteFile(prompt, []byte(msg), 0o600); err != nil {
		return contract.FixResult{}, fmt.Errorf("aider: write prompt: %w", err)
	}
	req, err := toolrun.BuildAiderToolRequest(toolrun.AiderOptions{
		Model: f.Model, PromptFile: prompt, FileScope: []string{in.Path},
		Workspace: contract.GitWorkspaceRefV1{RootPath: in.Workspace}, TimeoutSeconds: f.TimeoutSeconds,
	})
	if err != nil {
		return contract.FixResult{}, fmt.Errorf("aider: build request: %w", err)
	}
	ad := f.Adapter
	if ad == nil {
		ad = &toolrun.Adapter{}
	}
	out := ad.RunAider(ctx, req, toolrun.RunOptions{FileScope: []string{in.Path}, ParentRunID: f.ParentRunID})
	// Never through a link the tool left (the adapter also reverts one
	// that points out of the tree), never a FIFO, and bounded.
	after, rerr := safefile.ReadOpts(abs, safefile.MaxSource, safefile.Options{NoFollow: true})
	if werr := restoreFile(abs, in.Content); werr != nil {
		return contract.FixResult{}, fmt.Errorf("aider: restore %s: %w", in.Path, werr)
	}
	if out.Result.ExitCode != 0 {
		return contract.FixResult{}, fmt.Errorf("aider exited %d: %s: %w", out.Result.ExitCode, firstLine(out.Result.Stderr), results.ErrNoFix)
	}
	if rerr != nil || string(after) == in.Content {
		return contract.FixResult{}, fmt.Errorf("aider left %s unchanged: %w", in.Path, results.ErrNoFix)
	}
	conf := f.Confidence
	if conf == 0 {
		conf = DefaultConfidence
	}
	reason := "aider's edit of the reported lines"
	if l := firstLine(out.Result.Stdout); l != "" {
		reason += ": " + l
	}
	return contract.FixResult{PatchedContent: string(after), FixReason: reason, ConfidenceScore: conf, Fixer: Name}, nil
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
