// Command git_agent reads one JSON ActionRequest from stdin, runs the git
// action it names, writes one JSON ActionResponse to stdout and exits.
// Errors travel in the response: the exit status is 0 whenever a response
// was written, and 2 only when none could be. --version prints
// "git_agent VERSION" and --help the usage, both on stdout.
//
// Usage:
//
//	git_agent [-C DIR] [--git-dir DIR --work-tree DIR] [--registry-db PATH] [--no-register] [--timeout DUR] < request.json
//
// On start-up the agent registers itself in the SQLite tool_registry table
// at --registry-db, else $SALVE_REGISTRY_DB, else the per-user data
// directory. Logs are JSON records on stderr.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/salve-dev/salve/internal/buildinfo"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/salve-dev/salve/internal/gitagent/server"
	"github.com/salve-dev/salve/internal/registry"
)

// Exit statuses.
const (
	// exitOK: a response was written, success or error.
	exitOK = 0
	// exitNoResponse: no response could be written.
	exitNoResponse = 2
)

// version is set at link time with -ldflags "-X main.version=…".
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the command-line settings.
type options struct {
	dir        string
	registryDB string
	noRegister bool
	timeout    time.Duration
	version    bool
	gitDir     string
	workTree   string
	identity   string
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("git_agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.dir, "C", "", "run git in `DIR` (default: the working directory)")
	fs.StringVar(&o.dir, "repo", "", "same as -C")
	fs.StringVar(&o.registryDB, "registry-db", "", "tool registry SQLite `PATH` (default: $"+registry.EnvDB+", else the per-user data directory)")
	fs.BoolVar(&o.noRegister, "no-register", false, "do not register in the tool registry")
	fs.DurationVar(&o.timeout, "timeout", server.DefaultGitTimeout, "time limit of each git command")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	fs.StringVar(&o.gitDir, "git-dir", "", "pin git's directory to `DIR` (GIT_DIR; absolute; with --work-tree): the work tree's .git is never read")
	fs.StringVar(&o.workTree, "work-tree", "", "pin git's work tree to `DIR` (GIT_WORK_TREE; absolute; with --git-dir)")
	fs.StringVar(&o.identity, "default-identity", "", "commit as `\"NAME <EMAIL>\"` where git knows no identity (a configured one always wins)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: git_agent [flags] < request.json

Reads one ActionRequest (JSON) on stdin and writes one ActionResponse on stdout.

Example:
  echo '{"request_id":"f5e93cc3-5d6f-4e9e-88a2-2f10e1bf7a21","tool":"git_agent","action":"git_log","payload":{"command":{"type":"git_log","limit":5}}}' | git_agent -C ./repo

Exit status: 0 when a response was written, whether it reports success or
an error (read its status), 2 when no response could be written.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q: the request is read from stdin", fs.Arg(0))
	}
	if o.timeout <= 0 {
		return o, fmt.Errorf("--timeout: want a positive duration, got %s", o.timeout)
	}
	if o.gitDir != "" || o.workTree != "" {
		if err := (server.Pin{GitDir: o.gitDir, WorkTree: o.workTree}).Check(); err != nil {
			return o, err
		}
	}
	return o, nil
}

// run is the whole program; it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "git_agent: internal error: %v\n", r)
			code = exitNoResponse
		}
	}()
	// The usage text is printed only for -h, on stdout as for the other
	// binaries: a bad flag is reported in the error response (and the JSON
	// log), keeping both streams machine-readable.
	var usage bytes.Buffer
	opts, flagErr := parseFlags(args, &usage)
	if errors.Is(flagErr, flag.ErrHelp) {
		_, _ = stdout.Write(usage.Bytes())
		return exitOK
	}
	if flagErr == nil && opts.version {
		fmt.Fprintln(stdout, "git_agent", buildinfo.Version(version))
		return exitOK
	}
	runner := &server.Runner{Dir: opts.dir, Timeout: opts.timeout}
	if opts.gitDir != "" {
		runner.Pin = &server.Pin{GitDir: opts.gitDir, WorkTree: opts.workTree}
	}
	if id, ok := server.ParseIdentity(opts.identity); ok {
		runner.DefaultIdentity = &id
	} else if opts.identity != "" && flagErr == nil {
		flagErr = fmt.Errorf("--default-identity %q: want \"NAME <EMAIL>\"", opts.identity)
	}
	srv := &server.Server{Runner: runner, Log: stderr}
	if flagErr != nil {
		srv.Refuse = "git_agent: " + flagErr.Error()
	} else if !opts.noRegister {
		srv.Register = registerFunc(opts.registryDB)
	}
	if err := srv.Serve(ctx, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "git_agent: %v\n", err)
		return exitNoResponse
	}
	return exitOK
}

// registerFunc resolves the registry file and the executable, and returns
// the server's registration step.
func registerFunc(flagPath string) func(context.Context, *slog.Logger) {
	path, err := registry.ResolvePath(flagPath, os.Getenv)
	if err != nil {
		return func(_ context.Context, log *slog.Logger) {
			log.Warn("registry registration failed", "error", err.Error())
		}
	}
	exe, err := os.Executable()
	if err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
	}
	return server.RegisterFunc(path, server.ToolRow(buildinfo.Version(version), exe), 0)
}
