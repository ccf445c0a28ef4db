package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"github.com/salve-dev/salve/internal/heal/adapter"
	"github.com/salve-dev/salve/internal/httpguard"
	"github.com/salve-dev/salve/internal/service"
	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/ui"
)

// serveOptions are the flags of "salve serve".
type serveOptions struct {
	Listen     string
	Data       string
	NATSListen string
	NATS       string
	Workers    int
	AckWait    time.Duration
	MaxDeliver int
	Replicas   int
	StorePath  string
	Name       string
	Cluster    string
	ClusterAt  string
	Routes     []string
	TLSCert    string
	TLSKey     string
	NATSCA     string
	// InsecureNoToken lets the API listen beyond loopback without
	// $SALVE_SERVER_TOKEN.
	InsecureNoToken bool
	// AllowRepos, HealForks, MaxAttempts and Cooldown are the intake's
	// policy (service.Policy).
	AllowRepos  []string
	HealForks   bool
	MaxAttempts int
	Cooldown    time.Duration
	worker      workerOptions
}

// newServeCmd builds "salve serve".
func newServeCmd(s *streams) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run heal as a service: HTTP API, webhooks, a JetStream job queue and workers",
		Long: `Run heal as a service.

salve serve answers the jobs API (POST/GET /api/v1/heals) and CI webhooks
(POST /webhooks/github for workflow_run and check_suite failures, signed with
$SALVE_GITHUB_WEBHOOK_SECRET; POST /webhooks/gitlab for failed pipelines, with
$SALVE_GITLAB_WEBHOOK_TOKEN), queues each heal on a NATS JetStream work-queue
stream, and runs --workers in-process workers. It embeds a NATS server with
JetStream storage under --data, listening for "salve worker" processes on
--nats-listen; --nats uses an existing NATS server or cluster instead.
Finished heals are recorded in the run store. $SALVE_SERVER_TOKEN, when set,
is required as a bearer token on the jobs API and the run viewer (webhooks
keep their own secrets); a --listen beyond loopback needs it, unless
--insecure-no-token is given. On loopback, requests must name this machine
in their Host header and come from no web page but the server's own.
$SALVE_NATS_TOKEN, when set, is required of every NATS client (workers
present it from their own environment).

A webhook failure on one of salve's own branches (salve/…) or commits, or
whose commit message says [skip salve], is ignored; so is a fork's, unless
--heal-forks; so is a repository not matched by --allow-repo (the API
answers 403 for it). At most --max-attempts webhook jobs run per repository
and ref within --cooldown. Prometheus metrics are served at /metrics (behind
$SALVE_SERVER_TOKEN when it is set).`,
		Example: `  SALVE_SERVER_TOKEN=… salve serve --data /var/lib/salve --listen :8080 --workers 2
  salve serve --nats nats://nats-1:4222,nats://nats-2:4222 --workers 0 --replicas 3`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return serveRun(c.Context(), s, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Listen, "listen", "127.0.0.1:8080", "the HTTP address (beyond loopback: needs $SALVE_SERVER_TOKEN)")
	f.BoolVar(&o.InsecureNoToken, "insecure-no-token", false, "let --listen go beyond loopback without $SALVE_SERVER_TOKEN (anyone who reaches it can queue heals)")
	f.StringVar(&o.Data, "data", "salve-data", "the folder for JetStream's files and the run store")
	f.StringVar(&o.NATSListen, "nats-listen", "127.0.0.1:4222", "where the embedded NATS server listens for workers (port 0: any free port)")
	f.StringVar(&o.NATS, "nats", "", "use this NATS server or cluster instead of an embedded one")
	f.StringVar(&o.TLSCert, "nats-tls-cert", "", "a PEM certificate: the embedded NATS server then speaks TLS only (with --nats-tls-key)")
	f.StringVar(&o.TLSKey, "nats-tls-key", "", "the PEM private key of --nats-tls-cert")
	f.StringVar(&o.NATSCA, "nats-ca", "", "a PEM file of the certificates trusted for the NATS server's TLS (default: --nats-tls-cert, else the system's)")
	f.IntVar(&o.Workers, "workers", 1, "in-process workers (0 for none)")
	f.DurationVar(&o.AckWait, "ack-wait", service.DefaultAckWait, "how long a job may go without progress before it is redelivered")
	f.IntVar(&o.MaxDeliver, "max-deliver", service.DefaultMaxDeliver, "the most deliveries of a job before it ends in error")
	f.IntVar(&o.Replicas, "replicas", 1, "the stream's replicas on a JetStream cluster")
	f.StringVar(&o.StorePath, "store", "", "the run store (default <data>/runs.db)")
	f.StringVar(&o.Name, "node-name", "salve", "the embedded NATS server's name (unique in a cluster)")
	f.StringVar(&o.Cluster, "cluster-name", "salve", "the JetStream cluster the embedded server joins, with --cluster-listen")
	f.StringVar(&o.ClusterAt, "cluster-listen", "", "host:port for the embedded server's cluster routes (makes it a cluster node)")
	f.StringSliceVar(&o.Routes, "routes", nil, "the other cluster nodes' route URLs, nats://host:port,...")
	f.StringArrayVar(&o.AllowRepos, "allow-repo", nil, "heal only repositories whose owner/name matches this glob (repeatable: acme/api, acme/*, group/**); default: any")
	f.BoolVar(&o.HealForks, "heal-forks", false, "heal webhook failures from forks, on the fork's clone URL (a stranger's code then runs in your workers' sandbox, and the fix targets their branch)")
	f.IntVar(&o.MaxAttempts, "max-attempts", service.DefaultMaxAttempts, "the most webhook jobs per repository and ref within --cooldown")
	f.DurationVar(&o.Cooldown, "cooldown", service.DefaultCooldown, "the window of --max-attempts")
	o.worker.flags(f)
	return cmd
}

func serveRun(ctx context.Context, s *streams, o *serveOptions) error {
	s.server = true
	logger := s.logger()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	token := s.Getenv(serverTokenEnv)
	warning, err := httpguard.Listen{Server: "salve serve", Flag: "--listen", Addr: o.Listen, Token: token,
		TokenHint: "$" + serverTokenEnv, Risk: "queue heals, whose commands run on the workers", Insecure: o.InsecureNoToken}.Check()
	if err != nil {
		return exitWith(exitBadInput, err)
	}
	if warning != "" {
		fmt.Fprintln(s.Stderr, warning)
	}
	policy := service.Policy{AllowRepos: o.AllowRepos, HealForks: o.HealForks, MaxAttempts: o.MaxAttempts, Cooldown: o.Cooldown}
	if err := policy.CheckAllowRepos(); err != nil {
		return exitWith(exitBadInput, err)
	}
	if o.MaxAttempts < 1 || o.Cooldown <= 0 {
		return exitWith(exitBadInput, fmt.Errorf("--max-attempts must be at least 1 and --cooldown positive"))
	}
	if o.HealForks {
		logger.Warn("--heal-forks: failures from forks are healed: their code runs in the workers' sandbox and the fixes target the forks' branches")
	}
	if err := os.MkdirAll(o.Data, 0o700); err != nil {
		return exitWith(exitBadInput, fmt.Errorf("--data %s: %w", o.Data, err))
	}
	natsURL := o.NATS
	if natsURL == "" {
		eo := service.EmbeddedOptions{Listen: o.NATSListen, DataDir: o.Data, Name: o.Name, Token: s.Getenv(natsTokenEnv),
			TLSCert: o.TLSCert, TLSKey: o.TLSKey}
		if eo.Token == "" && !loopbackListen(o.NATSListen) {
			logger.Warn("the embedded NATS server listens beyond this machine with no token: anyone who can reach it can read and submit jobs; set " + natsTokenEnv)
		}
		if o.ClusterAt != "" {
			eo.ClusterName, eo.ClusterListen, eo.Routes = o.Cluster, o.ClusterAt, o.Routes
		}
		ns, err := service.StartEmbedded(eo)
		if errors.Is(err, service.ErrBadTLS) {
			return exitWith(exitBadInput, err)
		}
		if err != nil {
			return exitWith(exitEnvironment, err)
		}
		defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
		natsURL = ns.ClientURL()
		if o.TLSCert != "" {
			// Workers must connect with TLS: say so in the URL they copy,
			// and trust the server's own certificate here.
			if rest, ok := strings.CutPrefix(natsURL, "nats://"); ok {
				natsURL = "tls://" + rest
			}
			if o.NATSCA == "" {
				o.NATSCA = o.TLSCert
			}
		}
	}
	nc, err := nats.Connect(natsURL, natsOptions(s.Getenv, "salve serve", o.NATSCA)...)
	if err != nil {
		return exitWith(exitEnvironment, fmt.Errorf("connect to %s: %w", natsURL, err))
	}
	defer nc.Close()
	// A cluster answers JetStream requests once its nodes have met and
	// elected a leader: retry for a while.
	var q *service.Queue
	for deadline := time.Now().Add(2 * time.Minute); ; {
		actx, acancel := context.WithTimeout(ctx, 15*time.Second)
		q, err = service.SetupQueue(actx, nc, service.QueueConfig{AckWait: o.AckWait, MaxDeliver: o.MaxDeliver, Replicas: o.Replicas, Cooldown: o.Cooldown})
		acancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return exitWith(exitEnvironment, err)
		}
		logger.Warn("JetStream is not ready; retrying", "error", err)
		time.Sleep(time.Second)
	}
	storePath := o.StorePath
	if storePath == "" {
		storePath = filepath.Join(o.Data, "runs.db")
	}
	st, err := store.OpenContext(ctx, storePath)
	if err != nil {
		return exitWith(exitEnvironment, fmt.Errorf("run store %s: %w", storePath, err))
	}
	defer func() { _ = st.Close() }()
	labels, err := service.LabelsFromEnv(s.Getenv)
	if err != nil {
		return exitWith(exitBadInput, err)
	}
	srv := &service.Server{Queue: q, Token: token, Getenv: s.Getenv, Recorder: adapter.Recorder{Store: st}, Store: st, Logger: logger,
		Policy: policy, Metrics: service.NewMetrics(q), Labels: labels}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return exitWith(exitEnvironment, fmt.Errorf("--listen %s: %w", o.Listen, err))
	}
	hs := &http.Server{Handler: srv.Handler(viewerRoutes(st, srv.Token, logger)), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(s.Stderr, "salve serve: API on http://%s, NATS on %s\n", ln.Addr(), natsURL)

	var wg sync.WaitGroup
	wg.Go(func() {
		if err := srv.Watch(ctx); err != nil {
			logger.Error("watch", "error", err)
		}
	})
	if o.Workers > 0 {
		wo := o.worker
		wo.Concurrency = o.Workers
		wg.Go(func() { _ = runWorkers(ctx, s, &wo, nc, srv.Metrics.Registry(), logger) })
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	_ = hs.Shutdown(sctx)
	scancel()
	cancel()
	wg.Wait()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return exitWith(exitFailure, err)
	}
	return nil
}

// viewerRoutes mounts the web run viewer (package ui) at "/" over the
// server's run store, behind the server's token when one is set. The API
// and webhook routes are more specific and keep theirs.
func viewerRoutes(st *store.Store, token string, logger *slog.Logger) func(*http.ServeMux) {
	if st == nil {
		return nil
	}
	v, err := ui.New(st, token, logger)
	if err != nil {
		logger.Error("the run viewer is not served", "error", err)
		return nil
	}
	return func(mux *http.ServeMux) { mux.Handle("/", v) }
}

// serverTokenEnv holds the token of salve serve's API and viewer.
const serverTokenEnv = "SALVE_SERVER_TOKEN"

// loopbackListen reports whether host:port listens on loopback only.
func loopbackListen(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	return err == nil && httpguard.LoopbackHost(host)
}
