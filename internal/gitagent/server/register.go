package server

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/registry"
)

// ToolDescription is git_agent's description in the tool registry.
const ToolDescription = "Runs git actions (status, diff, log, add, commit, and the v1 extensions branch, restore, push, rev_parse, worktree) from one JSON ActionRequest on stdin, answering one ActionResponse on stdout"

// DefaultRegisterTimeout bounds one registration, lock waits included.
const DefaultRegisterTimeout = 30 * time.Second

// ToolRow returns the tool_registry row of git_agent
// (docs/contracts/git-agent.md §4).
func ToolRow(version, executable string) registry.Tool {
	return registry.Tool{
		Name:           contract.ToolGitAgent,
		Version:        version,
		Description:    ToolDescription,
		Actions:        Actions(),
		ExecutablePath: executable,
	}
}

// Register upserts tool into the registry file at path.
func Register(ctx context.Context, path string, tool registry.Tool) (registry.Tool, error) {
	db := registry.NewDB(path)
	if err := db.Open(ctx); err != nil {
		return registry.Tool{}, fmt.Errorf("gitagent: register %s: %w", tool.Name, err)
	}
	defer db.Close()
	row, err := db.Register(ctx, tool)
	if err != nil {
		return registry.Tool{}, fmt.Errorf("gitagent: register %s: %w", tool.Name, err)
	}
	if err := db.Close(); err != nil {
		return registry.Tool{}, fmt.Errorf("gitagent: register %s: %w", tool.Name, err)
	}
	return row, nil
}

// RegisterFunc returns a [Server.Register] that upserts tool into the
// registry at path within timeout (zero means [DefaultRegisterTimeout]),
// logging the outcome; a failure is a warning, never an error response.
func RegisterFunc(path string, tool registry.Tool, timeout time.Duration) func(context.Context, *slog.Logger) {
	if timeout == 0 {
		timeout = DefaultRegisterTimeout
	}
	return func(ctx context.Context, log *slog.Logger) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		row, err := Register(ctx, path, tool)
		if err != nil {
			log.Warn("registry registration failed", slog.String("registry_db", path), slog.String("error", err.Error()))
			return
		}
		log.Info("registered in tool registry", slog.String("registry_db", path),
			slog.String("tool", row.Name), slog.Int64("registration_count", row.RegistrationCount))
	}
}
