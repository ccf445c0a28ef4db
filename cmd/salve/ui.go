package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/salve-dev/salve/internal/httpguard"
	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/ui"
)

// uiOptions are the flags of "salve ui".
type uiOptions struct {
	Listen string
	Store  string
	Token  string
	// InsecureNoToken lets --listen go beyond loopback without a token.
	InsecureNoToken bool
}

// newUICmd builds "salve ui": the web run viewer over the local run store.
func newUICmd(s *streams) *cobra.Command {
	o := &uiOptions{}
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Serve the web run viewer over the run store (read-only)",
		Long: `ui serves a read-only web viewer of the run store: every heal, exec and tool
run, with its bugs, diffs, gate decisions, stages, LLM cost and logs. A
running heal updates live.

It listens on loopback by default and opens nothing by itself; there it
answers only requests whose Host names this machine, so a web page rebound
to 127.0.0.1 cannot read the logs. Listening on another address needs a
token (--token or $SALVE_UI_TOKEN), which browsers send once through
/login?token=… and scripts as a bearer token, unless --insecure-no-token is
given.`,
		Example: `  salve ui
  salve ui --listen 127.0.0.1:8088 --store ci-runs.db`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return uiRun(c.Context(), s, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Listen, "listen", "127.0.0.1:7878", "the address to listen on (loopback unless a token is set)")
	f.StringVar(&o.Store, "store", "", "the run store (default $SALVE_STORE or ~/.local/state/salve/runs.db)")
	f.StringVar(&o.Token, "token", "", "require this bearer token (default $SALVE_UI_TOKEN)")
	f.BoolVar(&o.InsecureNoToken, "insecure-no-token", false, "let --listen go beyond loopback without a token (anyone who reaches it reads every run)")
	return cmd
}

func uiRun(ctx context.Context, s *streams, o *uiOptions) error {
	s.server = true
	if o.Token == "" {
		o.Token = s.Getenv("SALVE_UI_TOKEN")
	}
	if _, _, err := net.SplitHostPort(o.Listen); err != nil {
		return exitWith(exitBadInput, fmt.Errorf("ui: --listen %q: %w", o.Listen, err))
	}
	warning, err := httpguard.Listen{Server: "salve ui", Flag: "--listen", Addr: o.Listen, Token: o.Token,
		TokenHint: "--token (or $SALVE_UI_TOKEN)", Risk: "read every run, its diffs and its build logs", Insecure: o.InsecureNoToken}.Check()
	if err != nil {
		return exitWith(exitBadInput, err)
	}
	if warning != "" {
		fmt.Fprintln(s.Stderr, warning)
	}
	path := o.Store
	if path == "" {
		p, err := store.DefaultPath(s.Getenv)
		if err != nil {
			return exitWith(exitFailure, fmt.Errorf("ui: %w", err))
		}
		path = p
	}
	// The viewer only reads: the store is opened read-only, never created
	// or migrated; a corrupt one, or one from a newer salve, is refused.
	st, err := store.OpenReadOnlyLive(ctx, path)
	if err != nil {
		code := exitFailure
		if errors.Is(err, store.ErrNoStore) {
			code = exitBadInput
		}
		return exitWith(code, fmt.Errorf("ui: open the run store: %w", err))
	}
	defer st.Close()
	srv, err := ui.New(st, o.Token, s.logger())
	if err != nil {
		return exitWith(exitFailure, err)
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return exitWith(exitFailure, fmt.Errorf("ui: %w", err))
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(s.Stderr, "salve ui: serving %s on http://%s/\n", st.Path(), ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		return nil
	case err := <-done:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return exitWith(exitFailure, fmt.Errorf("ui: %w", err))
	}
}
