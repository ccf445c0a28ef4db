package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/registry"
)

// newRegistryCmd builds "salve registry", the tool registry's commands.
func newRegistryCmd(s *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "registry",
		Short: "Inspect the tool registry (the SQLite tool_registry table)",
	}
	cmd.AddCommand(newRegistryListCmd(s, nil))
	return cmd
}

// registryListOptions are the settings of "salve registry list".
type registryListOptions struct {
	Streams *streams
	// DBPath is --registry-db; empty falls back to $SALVE_REGISTRY_DB, then
	// the per-user data directory.
	DBPath string
	// JSON prints a JSON array instead of a table.
	JSON bool
}

// newRegistryListCmd builds "salve registry list". runF, when not nil,
// replaces the run function (for flag tests).
func newRegistryListCmd(s *streams, runF func(context.Context, *registryListOptions) error) *cobra.Command {
	opts := &registryListOptions{Streams: s}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the registered tools",
		Long: "List the tools that registered themselves in the tool registry, such as git_agent.\n\n" +
			"The registry file is --registry-db, else $" + registry.EnvDB + ", else the per-user data directory\n" +
			"($XDG_DATA_HOME/salve/registry.db or ~/.local/share/salve/registry.db). A missing file lists nothing\n" +
			"and is not created.",
		Example: "  salve registry list\n  salve registry list --registry-db ../../data/memory.db --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return registryListRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.DBPath, "registry-db", "", "tool registry SQLite `PATH`")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array")
	return cmd
}

// registryToolJSON is one tool in the --json output.
type registryToolJSON struct {
	Name              string   `json:"name"`
	Version           string   `json:"version"`
	Description       string   `json:"description"`
	Actions           []string `json:"actions"`
	ExecutablePath    string   `json:"executable_path"`
	RegistrationCount int64    `json:"registration_count"`
	CreatedAt         string   `json:"created_at"`
	UpdatedAt         string   `json:"updated_at"`
}

func registryListRun(ctx context.Context, opts *registryListOptions) error {
	s := opts.Streams
	path, err := registry.ResolvePath(opts.DBPath, s.Getenv)
	if err != nil {
		return exitWith(exitFailure, err)
	}
	tools, err := listTools(ctx, path)
	if err != nil {
		return exitWith(exitFailure, err)
	}
	if opts.JSON {
		out := make([]registryToolJSON, 0, len(tools))
		for _, t := range tools {
			out = append(out, registryToolJSON{
				Name: t.Name, Version: t.Version, Description: t.Description, Actions: t.Actions,
				ExecutablePath: t.ExecutablePath, RegistrationCount: t.RegistrationCount,
				CreatedAt: contract.Timestamp(t.CreatedAt), UpdatedAt: contract.Timestamp(t.UpdatedAt),
			})
		}
		enc := json.NewEncoder(s.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return exitWith(exitFailure, fmt.Errorf("registry list: write: %w", err))
		}
		return nil
	}
	if len(tools) == 0 {
		fmt.Fprintf(s.Stderr, "no tools registered in %s\n", path)
		return nil
	}
	tw := tabwriter.NewWriter(s.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tACTIONS\tREGISTRATIONS\tUPDATED\tEXECUTABLE")
	for _, t := range tools {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", t.Name, t.Version, strings.Join(t.Actions, ","),
			t.RegistrationCount, contract.Timestamp(t.UpdatedAt), t.ExecutablePath)
	}
	if err := tw.Flush(); err != nil {
		return exitWith(exitFailure, fmt.Errorf("registry list: write: %w", err))
	}
	return nil
}

// listTools reads the registry at path, read-only; a file that does not
// exist holds no tools and is not created.
func listTools(ctx context.Context, path string) ([]registry.Tool, error) {
	db, err := registry.OpenReadOnly(ctx, path)
	if errors.Is(err, registry.ErrNoRegistry) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return db.List(ctx)
}
