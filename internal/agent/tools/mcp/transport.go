package mcp

import (
	"net/http"
	"os"
	"os/exec"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/salve-dev/salve/internal/agent/tools/mcp/mcpws"
	"github.com/salve-dev/salve/internal/sandbox"
)

// InheritedEnv lists the variables a stdio server inherits from the parent
// (docs/contracts/ai-agent-cli.md §9.5); everything else comes from its
// configured `env`.
var InheritedEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}

// childEnv builds a stdio server's whole environment.
func childEnv(cfg ServerConfig, opts Options) []string {
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var base []string
	for _, k := range InheritedEnv {
		if v, ok := lookup(k); ok {
			base = append(base, k+"="+v)
		}
	}
	return sandbox.MergeEnv(base, expandAll(cfg.Env, opts.Expand))
}

func expandAll(m map[string]string, expand func(string) string) map[string]string {
	if expand == nil || len(m) == 0 {
		return m
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = expand(v)
	}
	return out
}

// stdioCommand builds the child process of a stdio server: no shell, its own
// process group (so Close can kill everything it started), an explicit
// environment, stderr kept (head and tail) for error messages.
func stdioCommand(cfg ServerConfig, opts Options, stderr *sandbox.Capture) *exec.Cmd {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = childEnv(cfg, opts)
	cmd.Dir = cfg.Dir
	ownGroup(cmd)
	cmd.Stderr = stderr
	if opts.Stderr != nil {
		cmd.Stderr = &prefixWriter{w: opts.Stderr, capture: stderr}
	}
	cmd.WaitDelay = sandbox.DefaultWaitDelay
	return cmd
}

// prefixWriter tees a child's stderr to the capture and to a live writer.
type prefixWriter struct {
	w       interface{ Write([]byte) (int, error) }
	capture *sandbox.Capture
}

// Write implements io.Writer; it never fails.
func (p *prefixWriter) Write(b []byte) (int, error) {
	_, _ = p.capture.Write(b)
	_, _ = p.w.Write(b)
	return len(b), nil
}

// headerTransport adds fixed headers to every request and shows every
// response body to the schema tap.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
	tap     *schemaTap
}

// RoundTrip implements http.RoundTripper.
func (h *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range h.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := h.base.RoundTrip(req)
	if err == nil && resp.Body != nil && h.tap != nil {
		resp.Body = &tapBody{tapReader: newTapReader(resp.Body, h.tap), c: resp.Body}
	}
	return resp, err
}

// httpClient returns the client of an http or sse server. Without
// Options.HTTPTransport each server gets its own connection pool, which
// Close empties.
func httpClient(cfg ServerConfig, opts Options, tap *schemaTap) *http.Client {
	base := opts.HTTPTransport
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	return &http.Client{Transport: &headerTransport{base: base, headers: expandAll(cfg.Headers, opts.Expand), tap: tap}}
}

// closeIdle closes the idle connections of a client made by httpClient.
func closeIdle(c *http.Client) {
	if c == nil {
		return
	}
	if h, ok := c.Transport.(*headerTransport); ok {
		if ci, ok := h.base.(interface{ CloseIdleConnections() }); ok {
			ci.CloseIdleConnections()
		}
	}
}

// transportFor builds the SDK transport of cfg. For stdio it starts the
// child (an error then means it could not be spawned); for http and sse it
// returns the HTTP client to empty at Close; websocket dials in Connect.
func transportFor(kind string, cfg ServerConfig, opts Options, stderr *sandbox.Capture, tap *schemaTap) (sdk.Transport, *child, *http.Client, error) {
	switch kind {
	case TypeStdio:
		c, err := startChild(stdioCommand(cfg, opts, stderr), tap, opts.terminateDuration())
		if err != nil {
			return nil, nil, nil, err
		}
		return &sdk.IOTransport{Reader: c.reader(), Writer: c}, c, nil, nil
	case TypeSSE:
		client := httpClient(cfg, opts, tap)
		return &sdk.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: client}, nil, client, nil
	case TypeWebSocket:
		return wsTransport(cfg, opts, tap), nil, nil, nil
	default:
		client := httpClient(cfg, opts, tap)
		return &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, DisableStandaloneSSE: true}, nil, client, nil
	}
}

// wsTransport is the transport of a websocket server: the headers go with
// the opening handshake, and every frame is shown to the schema tap.
func wsTransport(cfg ServerConfig, opts Options, tap *schemaTap) *mcpws.Client {
	header := http.Header{}
	for k, v := range expandAll(cfg.Headers, opts.Expand) {
		header.Set(k, v)
	}
	var client *http.Client
	if opts.HTTPTransport != nil {
		client = &http.Client{Transport: opts.HTTPTransport}
	}
	return &mcpws.Client{URL: cfg.URL, Header: header, HTTPClient: client, OnFrame: func(frame []byte) {
		if len(frame) <= maxTapLine {
			tap.record(frame)
		}
	}}
}

// DefaultTerminateDuration is how long Close waits for a stdio server to
// exit after its stdin is closed, before the process group is killed.
const DefaultTerminateDuration = 2 * time.Second

func (o Options) terminateDuration() time.Duration {
	if o.TerminateDuration > 0 {
		return o.TerminateDuration
	}
	return DefaultTerminateDuration
}
