package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/assemble"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/httpguard"
	"github.com/salve-dev/salve/internal/mcpserver"
	"github.com/salve-dev/salve/internal/store"
)

// mcpOptions are the flags of "salve mcp".
type mcpOptions struct {
	HTTP          int
	ListenAddress string
	Token         string
	StorePath     string
	NoStore       bool
	GitAgent      string
	Config        string
	Models        []string
	Isolation     string
	AllowRoots    []string
	AllowPush     bool
	MaxRunning    int
	// InsecureNoToken lets --http listen beyond loopback without a token.
	InsecureNoToken bool
}

// newMCPCmd builds "salve mcp": salve's tools as an MCP server.
func newMCPCmd(s *streams) *cobra.Command {
	o := &mcpOptions{}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve salve's tools (heal, parse, exec, runs) over the Model Context Protocol",
		Long: `Serve heal, parse, exec, runs_list and runs_show as MCP tools, on stdio (the
default) or over streamable HTTP with --http PORT (at /mcp, loopback unless
--listen-address says otherwise; a non-loopback address needs --token, or
--insecure-no-token). On loopback it answers only requests whose Host names
this machine, and no web page of another origin.

Workspaces are paths on this host; --allow-root confines them. A heal works in
its own worktree on a new branch, as salve heal does, and pushes only when the
server was started with --allow-push. Cancelling a call stops its work.
Stdout carries the protocol on stdio; logs go to stderr.`,
		Example: `  salve mcp
  salve mcp --http 8765 --allow-root ~/src
  salve mcp --http 8765 --listen-address 0.0.0.0 --token "$SALVE_MCP_TOKEN"`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return mcpRun(c.Context(), s, o, c.Flags().Changed("http"))
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.HTTP, "http", 0, "serve streamable HTTP on this port instead of stdio (0: any free port)")
	f.StringVar(&o.ListenAddress, "listen-address", "127.0.0.1", "the address --http binds")
	f.StringVar(&o.Token, "token", "", "the bearer token HTTP clients must send (default $SALVE_MCP_TOKEN)")
	f.StringVar(&o.StorePath, "store", "", "the run store (default $SALVE_STORE or ~/.local/state/salve)")
	f.BoolVar(&o.NoStore, "no-store", false, "record nothing and serve no runs")
	f.StringVar(&o.GitAgent, "git-agent", "", "the git_agent program (default: beside salve, then PATH)")
	f.StringVar(&o.Config, "config", "", "an .ai-agent.json with the llm providers of the llm fixer")
	f.StringSliceVar(&o.Models, "models", nil, "default llm targets of heal calls, provider/model,...")
	f.StringVar(&o.Isolation, "isolation", "auto", "the default build sandbox: auto, none, bwrap, docker or podman")
	f.StringArrayVar(&o.AllowRoots, "allow-root", nil, "only serve workspaces inside this directory (repeatable)")
	f.BoolVar(&o.AllowPush, "allow-push", false, "let heal calls push their branch")
	f.IntVar(&o.MaxRunning, "max-running", mcpserver.DefaultMaxRunning, "heal and exec calls running at once; more wait")
	f.BoolVar(&o.InsecureNoToken, "insecure-no-token", false, "let --listen-address go beyond loopback without a token (anyone who reaches it can run builds)")
	return cmd
}

func mcpRun(ctx context.Context, s *streams, o *mcpOptions, useHTTP bool) error {
	s.server = true
	logger := slog.New(slog.NewJSONHandler(s.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if o.Token == "" {
		o.Token = s.Getenv("SALVE_MCP_TOKEN")
	}
	if o.MaxRunning < 1 {
		return exitWith(exitBadInput, fmt.Errorf("mcp: --max-running must be at least 1, got %d", o.MaxRunning))
	}
	for _, r := range o.AllowRoots {
		if st, err := os.Stat(r); err != nil || !st.IsDir() {
			return exitWith(exitBadInput, fmt.Errorf("mcp: --allow-root %s is not a directory", r))
		}
	}
	storePath := ""
	if !o.NoStore {
		storePath = o.StorePath
		if storePath == "" {
			p, err := store.DefaultPath(s.Getenv)
			if err != nil {
				return exitWith(exitFailure, fmt.Errorf("mcp: the run store: %w (give --store or --no-store)", err))
			}
			storePath = p
		}
	}
	srv := mcpserver.New(mcpserver.Options{
		Version: version, Heal: mcpHealFunc(s, o, storePath, logger), StorePath: storePath, Isolation: o.Isolation,
		AllowedRoots: o.AllowRoots, AllowPush: o.AllowPush, MaxRunning: o.MaxRunning, Getenv: s.Getenv, Logger: logger, Token: o.Token,
	})
	if !useHTTP {
		in, ok := s.Stdin.(io.ReadCloser)
		if !ok {
			in = io.NopCloser(s.Stdin)
		}
		if err := srv.ServeStdio(ctx, in, nopWriteCloser{s.Stdout}); err != nil {
			return exitWith(exitFailure, fmt.Errorf("mcp: %w", err))
		}
		return nil
	}
	if o.HTTP < 0 || o.HTTP > 65535 {
		return exitWith(exitBadInput, fmt.Errorf("mcp: --http %d is not a port", o.HTTP))
	}
	warning, err := httpguard.Listen{Server: "salve mcp", Flag: "--listen-address", Addr: o.ListenAddress, Token: o.Token,
		TokenHint: "--token (or $SALVE_MCP_TOKEN)", Risk: "run exec and heal, which run commands on this host", Insecure: o.InsecureNoToken}.Check()
	if err != nil {
		return exitWith(exitBadInput, err)
	}
	if warning != "" {
		fmt.Fprintln(s.Stderr, warning)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(o.ListenAddress, strconv.Itoa(o.HTTP)))
	if err != nil {
		return exitWith(exitFailure, fmt.Errorf("mcp: %w", err))
	}
	fmt.Fprintf(s.Stderr, "salve mcp: serving streamable HTTP at http://%s/mcp\n", ln.Addr())
	if err := srv.ServeHTTP(ctx, ln); err != nil {
		return exitWith(exitFailure, err)
	}
	return nil
}

// mcpHealFunc runs a heal call through the same pipeline as salve heal.
func mcpHealFunc(s *streams, o *mcpOptions, storePath string, logger *slog.Logger) mcpserver.HealFunc {
	return func(ctx context.Context, in mcpserver.HealInput, progress heal.Progress) (*results.Results, error) {
		models := in.Models
		if len(models) == 0 {
			models = o.Models
		}
		remote := in.Remote
		if remote == "" {
			remote = "origin"
		}
		keep := heal.KeepAuto // a fresh worktree: removed
		if in.KeepWorktree {
			keep = heal.KeepAlways
		}
		ho := &healOptions{
			Workspace: in.Workspace, Command: in.Cmd, ProjectType: in.ProjectType, Fixers: strings.Join(in.Fixers, ","),
			MinConfidence: in.MinConfidence, MaxIterations: in.MaxIterations, Branch: in.Branch, Push: in.Push, Remote: remote,
			CI: "local", Models: models, Config: o.Config, Timeout: in.Timeout, Isolation: in.Isolation, KeepWorktree: keep,
			StorePath: storePath, NoStore: storePath == "", GitAgent: o.GitAgent,
		}
		// The pipeline must never write to stdout: on stdio it is the
		// protocol.
		ps := &streams{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: s.Stderr, Getenv: s.Getenv}
		runID := uuid.NewString()
		c := ho.config(ps, runID, logger)
		// A fresh worktree per call, removed at its end (cancelled too):
		// an MCP client's heals leave nothing in the repository.
		c.WorktreeDir = filepath.Join(os.TempDir(), "salve-heal-"+runID)
		c.Progress = progress
		// The caller's settings are the floor; the repository's
		// .salve.yml, from its base, may only tighten them.
		c.Rules = assemble.RulesFloor
		p, err := assemble.New(ctx, c)
		if err != nil {
			return nil, err
		}
		defer p.Close()
		for _, n := range p.Notes {
			logger.Info(n)
		}
		res, err := p.Run(ctx)
		if res != nil {
			if werr := res.WriteFile(filepath.Join(executor.DefaultRunDir(res.RunID), "results.json")); werr != nil {
				logger.Warn("could not write results.json", "error", werr)
			}
		}
		return res, err
	}
}

// nopWriteCloser keeps the server from closing the command's stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
