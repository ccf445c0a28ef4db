package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/assemble"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/httpguard"
	"github.com/salve-dev/salve/internal/service"
	"github.com/salve-dev/salve/internal/worker"
)

// workerOptions are the flags of "salve worker" (and the in-process
// workers of "salve serve").
type workerOptions struct {
	NATS        string
	NATSCA      string
	Concurrency int
	Name        string
	Isolation   string
	Timeout     int
	MaxIter     int
	GitAgent    string
	// AllowPrivateRemotes lets jobs clone from loopback and private
	// addresses (see worker.Worker.AllowPrivateRemotes).
	AllowPrivateRemotes bool
	// MetricsListen, when set, serves the worker's Prometheus metrics at
	// /metrics on this address (salve worker only).
	MetricsListen string
}

func (o *workerOptions) flags(f interface {
	StringVar(*string, string, string, string)
	IntVar(*int, string, int, string)
	BoolVar(*bool, string, bool, string)
	Var(pflag.Value, string, string)
}) {
	f.StringVar(&o.Isolation, "isolation", "auto", "the build sandbox of each heal: auto, none, bwrap, docker or podman")
	o.Timeout = contract.DefaultExecutorTimeoutSeconds
	f.Var(secondsFlag{&o.Timeout}, "timeout", "each build's time limit (90s, 5m, 1h30m, or seconds)")
	f.IntVar(&o.MaxIter, "max-iterations", heal.DefaultMaxIterations, "the most fix iterations of each heal")
	f.StringVar(&o.GitAgent, "git-agent", "", "the git_agent program (default: $SALVE_GIT_AGENT, beside salve, then PATH)")
	f.BoolVar(&o.AllowPrivateRemotes, "allow-private-remotes", false, "let jobs clone from loopback, private and link-local addresses (refused by default: a job must not reach services inside the worker's network)")
}

// newWorkerCmd builds "salve worker".
func newWorkerCmd(s *streams) *cobra.Command {
	o := &workerOptions{}
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Heal jobs from a salve server's JetStream queue",
		Long: `Pull heal jobs from the JetStream work queue of "salve serve" (or of the
JetStream cluster it uses), and heal each one as "salve heal" does: fetch the
job's branch into the clone the worker keeps of the repository (in salve's
data folder; the first job of a repository makes it), heal the ref on the
job's branch (salve/heal-job-<id>) in the job's own clone of it (kept for
the next job, and written again for each), push the branch, and record the
outcome on the job. A fork's branches are kept
apart from the repository's own, and the rules a heal reads (.salve.yml)
come from the repository's default branch, never the fork's. The kept
clones are trimmed after every job, as the build cache is (salve gc).

A job is acknowledged only when it is done; while it heals the worker signals
progress, so a job whose worker dies is healed again elsewhere after the ack
wait. Credentials come from this worker's own environment (git's credential
helpers, ssh keys, provider API keys, $SALVE_NATS_TOKEN for the queue, and
GITHUB_TOKEN or GITLAB_TOKEN for the pull or merge requests jobs ask for),
never from the job.`,
		Example: `  salve worker --nats nats://10.0.0.5:4222 --concurrency 2`,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			s.server = true
			logger := s.logger()
			nc, err := nats.Connect(o.NATS, natsOptions(s.Getenv, "salve worker", o.NATSCA)...)
			if err != nil {
				return exitWith(exitEnvironment, fmt.Errorf("connect to %s: %w", o.NATS, err))
			}
			defer nc.Close()
			var reg prometheus.Registerer // nil: no metrics
			if o.MetricsListen != "" {
				stop, r, err := serveWorkerMetrics(c.Context(), s, o.MetricsListen, logger)
				if err != nil {
					return err
				}
				defer stop()
				reg = r
			}
			return runWorkers(c.Context(), s, o, nc, reg, logger)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.NATS, "nats", nats.DefaultURL, "the NATS server (or cluster, comma-separated URLs); tls://host:port for TLS")
	f.StringVar(&o.NATSCA, "nats-ca", "", "a PEM file of the certificates trusted for the NATS server's TLS (default: the system's)")
	f.IntVar(&o.Concurrency, "concurrency", 1, "jobs healed at once")
	f.StringVar(&o.Name, "name", "", "this worker's name in the jobs' attempts (default host/pid)")
	f.StringVar(&o.MetricsListen, "metrics-listen", "", "serve Prometheus metrics at http://ADDR/metrics (beyond loopback: needs $SALVE_SERVER_TOKEN, then required as a bearer token); default off")
	o.flags(f)
	return cmd
}

// runWorkers binds to the queue (waiting for the server to create it) and
// heals jobs until ctx ends. reg, when set, receives the workers' metrics.
func runWorkers(ctx context.Context, s *streams, o *workerOptions, nc *nats.Conn, reg prometheus.Registerer, logger *slog.Logger) error {
	var q *service.Queue
	for {
		var err error
		if q, err = service.OpenQueue(ctx, nc); err == nil {
			break
		}
		logger.Warn("the job queue is not there yet; retrying", "error", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(2 * time.Second):
		}
	}
	// The jobs share the sandbox each isolation chose, for a while.
	backends := executor.NewBackends()
	w := &worker.Worker{Queue: q, Name: o.Name, Concurrency: o.Concurrency, Getenv: s.Getenv, Logger: logger, AllowPrivateRemotes: o.AllowPrivateRemotes,
		Heal: func(ctx context.Context, sp worker.Spec) (*results.Results, error) {
			return healJob(ctx, s, o, sp, backends)
		}}
	if reg != nil {
		m, err := worker.NewMetrics(reg)
		if err != nil {
			return fmt.Errorf("worker metrics: %w", err)
		}
		w.Metrics = m
	}
	fs, err := withApp(workerForges(s.Getenv), s.Getenv)
	if err != nil {
		return exitWith(exitBadInput, err)
	}
	w.Forges = fs
	logger.Info("worker started", "concurrency", o.Concurrency, "ack_wait", q.AckWait.String(), "max_deliver", q.MaxDeliver)
	return w.Run(ctx)
}

// healJob heals one job with the same pipeline as "salve heal": the run is
// recorded by the server (from the job's results), not by the worker.
func healJob(ctx context.Context, s *streams, o *workerOptions, sp worker.Spec, backends *executor.Backends) (*results.Results, error) {
	ho := &healOptions{Workspace: sp.Dir, Command: sp.Cmd, Fixers: sp.Fixers, Models: sp.Models, MinConfidence: heal.DefaultMinConfidence,
		MaxIterations: o.MaxIter, Branch: sp.Branch, Push: true, Remote: "origin", CI: "local", Timeout: o.Timeout,
		Isolation: o.Isolation, NoStore: true, GitAgent: o.GitAgent}
	c := ho.config(s, sp.RunID, sp.Logger)
	c.GitEnv = sp.PushEnv
	c.Backends = backends
	// Every job of a repository shares its build-cache layer (a fork's
	// only reads it); the worker trims the cache after each job.
	c.RepoIdentity, c.UntrustedChange, c.CacheBudget = sp.RepoIdentity, sp.Untrusted, -1
	// The worker says where the worktree goes: one of salve's persistent
	// worktrees of the job's clone, which stays in its job folder, or a
	// new one beside a clone made for this job alone.
	c.WorktreeDir = sp.WorktreeDir
	// A job heals a commit someone pushed: the repository's .salve.yml,
	// from its default branch, may tighten the worker's rules, never
	// loosen them.
	c.Rules, c.TargetBranch, c.BuildBranch = assemble.RulesFloor, sp.Target, sp.Ref
	p, err := assemble.New(ctx, c)
	var off *assemble.OffError
	if errors.As(err, &off) {
		return nil, fmt.Errorf("%w: %w", heal.ErrBadInput, err)
	}
	if err != nil {
		kind := heal.ErrBadInput
		if errors.Is(err, heal.ErrEnvironment) {
			kind = heal.ErrEnvironment
		}
		return nil, fmt.Errorf("%w: %w", kind, err)
	}
	defer p.Close()
	for _, n := range p.Notes {
		sp.Logger.Info(n)
	}
	return p.Run(ctx)
}

// workerForges reads the worker's forge tokens and API roots from its own
// environment: GITHUB_TOKEN or GH_TOKEN with GITHUB_API_URL, and
// GITLAB_TOKEN with GITLAB_API_URL or CI_API_V4_URL.
func workerForges(getenv func(string) string) *worker.Forges {
	return &worker.Forges{
		GitHubToken: firstEnv(getenv, "GITHUB_TOKEN", "GH_TOKEN"),
		GitHubAPI:   firstEnv(getenv, "GITHUB_API_URL"),
		GitLabToken: firstEnv(getenv, "GITLAB_TOKEN"),
		GitLabAPI:   firstEnv(getenv, "GITLAB_API_URL", "CI_API_V4_URL"),
	}
}

// firstEnv returns the first non-empty variable of names.
func firstEnv(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// natsTokenEnv names the variable holding the token of the job queue's
// NATS server: the embedded server requires it, and salve's own clients
// (the server's and the workers') present it.
const natsTokenEnv = "SALVE_NATS_TOKEN"

// natsOptions are the connection options of salve's NATS clients: a name,
// reconnection for ever, the token when one is set, and ca (a PEM file),
// when given, as the only certificates trusted for TLS.
func natsOptions(getenv func(string) string, name, ca string) []nats.Option {
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1)}
	if tok := getenv(natsTokenEnv); tok != "" {
		opts = append(opts, nats.Token(tok))
	}
	if ca != "" {
		opts = append(opts, nats.RootCAs(ca))
	}
	return opts
}

// serveWorkerMetrics serves a registry of the worker's own at
// http://addr/metrics, behind the same guard as salve serve (the token is
// $SALVE_SERVER_TOKEN from the worker's environment; beyond loopback it
// is required). stop shuts the listener down.
func serveWorkerMetrics(ctx context.Context, s *streams, addr string, logger *slog.Logger) (stop func(), reg *prometheus.Registry, err error) {
	token := s.Getenv(serverTokenEnv)
	if _, err := (httpguard.Listen{Server: "salve worker", Flag: "--metrics-listen", Addr: addr, Token: token,
		TokenHint: "$" + serverTokenEnv, Risk: "read the worker's metrics"}).Check(); err != nil {
		return nil, nil, exitWith(exitBadInput, err)
	}
	reg = prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, exitWith(exitEnvironment, fmt.Errorf("--metrics-listen %s: %w", addr, err))
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{MaxRequestsInFlight: 4, Timeout: 10 * time.Second}))
	g := httpguard.Guard{Token: httpguard.Token{Value: token}}
	hs := &http.Server{Handler: g.Handler(mux), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics listener", "error", err)
		}
	}()
	logger.Info("worker metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}, reg, nil
}
