package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/mattn/go-isatty"
	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/store"
	"github.com/spf13/cobra"
)

// execOptions are the flags of "salve exec".
type execOptions struct {
	Workspace   string
	Command     string
	ProjectType string
	Timeout     int
	Isolation   string
	JSON        bool
	Env         []string
	RunDir      string
	RunID       string
	Image       string
	ImageFor    []string
	MaxLog      int
	Store       string
	NoRecord    bool
}

// newExecCmd builds "salve exec": run a project's build and tests the way
// CI would (docs/contracts/heal-pipeline.md §Executor), and report.
func newExecCmd(s *streams) *cobra.Command {
	opts := &execOptions{}
	cmd := &cobra.Command{
		Use:   "exec",
		Short: "Run a project's build and tests in a sandbox and report (the Executor)",
		Long: `Run a project's build and tests the way CI would, observe them, and report.

The command is the one given with --cmd, or one resolved from the project's
marker files (go.mod, package.json, Cargo.toml, pyproject.toml, pom.xml,
build.gradle, CMakeLists.txt, Makefile). The environment is scrubbed to an
allow-list plus the variables named with --env or listed in $SALVE_EXEC_ENV.
The full log goes to build.log in the run directory, and the execution is
recorded in the run store.

Without --json the log streams to stdout as it is written, and a one-line
summary goes to stderr. With --json, stdout carries the ExecutorOutput object.
The exit status is the build's: 124 when the timeout killed it, 2 for bad
input.`,
		Example: `  salve exec
  salve exec --workspace ./api --isolation bwrap --timeout 600
  salve exec --cmd 'make check' --env NPM_TOKEN --json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return execRun(c.Context(), s, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Workspace, "workspace", ".", "the project directory")
	f.StringVar(&opts.Command, "cmd", "", "the build command (default: resolved from the project's markers)")
	f.StringVar(&opts.ProjectType, "project-type", "", "override the detected project type (go, rust, node, python, maven, gradle, cmake, make)")
	opts.Timeout = contract.DefaultExecutorTimeoutSeconds
	f.Var(secondsFlag{&opts.Timeout}, "timeout", "the time before the build is killed (90s, 5m, 1h30m, or seconds)")
	f.StringVar(&opts.Isolation, "isolation", "auto", "isolation backend: auto, none, bwrap, docker or podman")
	f.BoolVar(&opts.JSON, "json", false, "print the ExecutorOutput object instead of streaming the log")
	f.StringArrayVar(&opts.Env, "env", nil, "pass this environment variable to the build (repeatable)")
	f.StringVar(&opts.RunDir, "run-dir", "", "directory for build.log and output.json (default: a new directory under the salve state dir)")
	f.StringVar(&opts.RunID, "run-id", "", "the run id (default: a new UUID)")
	f.StringVar(&opts.Image, "image", "", "container image for the docker and podman backends (default: one per project type)")
	f.StringArrayVar(&opts.ImageFor, "image-for", nil, "container image for one project type, as TYPE=IMAGE (repeatable)")
	f.IntVar(&opts.MaxLog, "max-log", 0, "bytes of log kept in memory and in build_log (default 1 MiB; build.log on disk keeps up to 64 MiB, head and tail)")
	f.StringVar(&opts.Store, "store", "", "the run store file (default: $SALVE_STORE, else the salve state dir)")
	f.BoolVar(&opts.NoRecord, "no-record", false, "do not record the execution in the run store")
	return cmd
}

func execRun(ctx context.Context, s *streams, opts *execOptions) error {
	if err := opts.validate(); err != nil {
		return exitWith(exitBadInput, fmt.Errorf("exec: %w", err))
	}
	ws, err := filepath.Abs(opts.Workspace)
	if err != nil {
		return exitWith(exitBadInput, fmt.Errorf("exec: workspace: %w", err))
	}
	if opts.Timeout <= 0 {
		return exitWith(exitBadInput, fmt.Errorf("exec: --timeout must be positive, got %d", opts.Timeout))
	}
	in := contract.ExecutorInput{WorkspacePath: ws, ResolvedBuildCommand: opts.Command, TimeoutSeconds: opts.Timeout}
	if opts.ProjectType != "" {
		in.ProjectType = &opts.ProjectType
	}
	images := map[string]string{}
	for _, kv := range opts.ImageFor {
		typ, image, ok := strings.Cut(kv, "=")
		if !ok || typ == "" || image == "" {
			return exitWith(exitBadInput, fmt.Errorf("exec: --image-for %q: want TYPE=IMAGE", kv))
		}
		images[typ] = image
	}
	if opts.RunID == "" {
		opts.RunID = uuid.NewString()
	}
	rec, closeRec, err := openExecRecorder(ctx, s, opts)
	if err != nil {
		return exitWith(exitFailure, fmt.Errorf("exec: open run store: %w", err))
	}
	defer closeRec()
	xo := executor.Options{
		Isolation: opts.Isolation, PassEnv: append(executor.PassEnvFromEnv(s.Getenv), opts.Env...),
		RunID: opts.RunID, RunDir: opts.RunDir, Image: opts.Image, Images: images, MaxLog: opts.MaxLog, Recorder: rec,
		Logger: s.logger(),
		// The values of the secret variables passed with --env are masked
		// by the executor; those salve took out of its own environment are
		// masked too, should the build find one elsewhere.
		Secrets: s.secrets.values(),
	}
	var prog *progress
	if !opts.JSON {
		xo.Live = s.Stdout
		if isTerminal(s.Stdout) {
			prog = newProgress(s.Stdout, s.Stderr)
			xo.Live = prog
			go prog.tick(ctx)
		}
	}
	out, err := executor.New(xo).Run(ctx, in)
	if prog != nil {
		prog.stop()
	}
	switch {
	case errors.Is(err, executor.ErrBadInput):
		return exitWith(exitBadInput, fmt.Errorf("exec: %w", err))
	case errors.Is(err, executor.ErrRecord):
		fmt.Fprintf(s.Stderr, "salve: exec: warning: %v\n", err)
	case err != nil && out.EnvironmentMetadata.Isolation == "":
		return exitWith(exitFailure, fmt.Errorf("exec: %w", err))
	}
	if opts.JSON {
		enc := json.NewEncoder(s.Stdout)
		enc.SetEscapeHTML(false) // keep "&&" readable in resolved_command
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return exitWith(exitFailure, fmt.Errorf("exec: write output: %w", err))
		}
	} else {
		fmt.Fprintln(s.Stderr, summary(opts.RunID, out))
	}
	if out.ExitCode != 0 {
		return exitWith(out.ExitCode, nil)
	}
	return nil
}

// openExecRecorder opens the run store (--store, $SALVE_STORE, or the
// default path) and returns its recorder and a function that closes it.
// With --no-record it returns no recorder: the run directory alone keeps
// build.log and output.json.
func openExecRecorder(ctx context.Context, s *streams, opts *execOptions) (executor.Recorder, func(), error) {
	if opts.NoRecord {
		return nil, func() {}, nil
	}
	path := opts.Store
	if path == "" {
		var err error
		if path, err = store.DefaultPath(s.Getenv); err != nil {
			return nil, nil, err
		}
	}
	st, err := store.OpenContext(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	return executor.StoreRecorder{Store: st}, func() { _ = st.Close() }, nil
}

// summary is the one line that ends a streamed run: the executor's
// summary, and where the log is.
func summary(runID string, out contract.ExecutorOutput) string {
	m := out.EnvironmentMetadata
	return fmt.Sprintf("salve exec: %s · log %s (%d bytes)", executor.Summary(runID, out), m.LogPath, m.LogBytes)
}

// isTerminal reports whether w is a terminal (not merely a character
// device: /dev/null is one too).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

// progress passes the live log to the terminal and keeps a status line on
// stderr below it, redrawn every second and erased before each log chunk.
type progress struct {
	mu       sync.Mutex
	out, err io.Writer
	start    time.Time
	shown    bool
	atBOL    bool // the log so far ends at the start of a line
	done     chan struct{}
	once     sync.Once
}

func newProgress(out, err io.Writer) *progress {
	return &progress{out: out, err: err, start: time.Now(), atBOL: true, done: make(chan struct{})}
}

// Write erases the status line, writes the log chunk and redraws the line.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
	n, err := p.out.Write(b)
	if len(b) > 0 {
		p.atBOL = b[len(b)-1] == '\n'
	}
	p.draw()
	return n, err
}

func (p *progress) erase() {
	if p.shown {
		fmt.Fprint(p.err, "\r\033[K")
		p.shown = false
	}
}

func (p *progress) draw() {
	if p.atBOL {
		fmt.Fprintf(p.err, "\033[2m⏵ salve exec: running %ds\033[0m", int(time.Since(p.start).Seconds()))
		p.shown = true
	}
}

func (p *progress) tick(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.done:
			return
		case <-t.C:
			p.mu.Lock()
			p.erase()
			p.draw()
			p.mu.Unlock()
		}
	}
}

// stop ends the ticker and erases the status line.
func (p *progress) stop() {
	p.once.Do(func() { close(p.done) })
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
}
