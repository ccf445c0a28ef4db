// Package headend serves ai-agent agents to other programs (issue 18): the
// OpenAI chat completions API, the Anthropic messages API, an MCP server
// whose tools are the agents, and the original tool's REST surface. Each
// request runs one normal session through the Agent's Run function; the
// package owns the wire formats, admission (a concurrency bound with a
// bounded wait queue), bearer-token auth, body limits, slow-client
// timeouts, client-disconnect cancellation and graceful shutdown.
package headend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/httpguard"
)

// Headend kinds, as named on the command line.
const (
	KindOpenAI    = "openai-completions"
	KindAnthropic = "anthropic-completions"
	KindMCP       = "mcp"
	KindAPI       = "api"
	KindSlack     = "slack"
	KindEmbed     = "embed"
)

// Defaults of Options and Spec.
const (
	DefaultConcurrency   = 10
	DefaultQueueTimeout  = 30 * time.Second
	DefaultGrace         = 30 * time.Second
	DefaultMaxBodyBytes  = 4 << 20
	DefaultListenAddress = "127.0.0.1"
	// DefaultTokenEnv is the environment variable read for the bearer
	// token when no --headend-token is given.
	DefaultTokenEnv = "AI_AGENT_HEADEND_TOKEN"
)

// Errors; test with errors.Is.
var (
	// ErrSpec is a malformed headend flag value or option.
	ErrSpec = errors.New("invalid headend")
	// ErrBusy is returned when a headend is at capacity and its wait queue
	// is full.
	ErrBusy = errors.New("headend at capacity")
	// ErrQueueTimeout is returned when a request waited its queue timeout
	// without a free slot.
	ErrQueueTimeout = errors.New("headend queue wait timed out")
	// ErrShuttingDown is returned to requests that arrive during shutdown.
	ErrShuttingDown = errors.New("headend shutting down")
	// ErrCancelled marks a session cancelled by shutdown past the grace
	// period.
	ErrCancelled = errors.New("session cancelled by shutdown")
)

// Request is one session asked for by a headend.
type Request struct {
	// ID is the request id, made by the headend; it is the session's
	// transaction and origin id.
	ID string
	// Headend is the kind of the headend that received the request.
	Headend string
	// Prompt is the user prompt.
	Prompt string
	// History holds earlier user and assistant messages.
	History []contract.Message
	// Format is the requested output format; "" keeps the agent's own.
	Format string
	// Schema is the requested JSON output schema (format json).
	Schema json.RawMessage
	// Progress receives progress reports and streamed text while the
	// session runs; nil discards them. Writes may come from several
	// goroutines; the headend's writers are safe for that.
	Progress io.Writer
}

// RunFunc runs one session of an agent. An error is a failure to set the
// session up; a session that ran and failed is a result with Success
// false.
type RunFunc func(ctx context.Context, req Request) (contract.AIAgentResult, error)

// Agent is one registered agent.
type Agent struct {
	// Name is the agent's name: the model id of the completions headends,
	// the MCP tool name and the REST path segment.
	Name        string
	Description string
	// JSON reports that the agent answers JSON (frontmatter output.format
	// json); Schema is its output schema.
	JSON   bool
	Schema json.RawMessage
	Run    RunFunc
	// SessionsDir is the agent's sessions folder: the embed headend keeps
	// its clients' transcripts under it; "" keeps none.
	SessionsDir string
}

// Spec is one headend to start.
type Spec struct {
	Kind string
	// Port is the TCP port; 0 picks a free one (the bound address is
	// logged). Unused by MCP over stdio.
	Port int
	// Transport is the MCP transport: stdio, http, sse or ws.
	Transport string
	// Concurrency bounds the sessions running at once; 0 is
	// DefaultConcurrency.
	Concurrency int
	// Queue bounds the requests waiting for a slot; 0 is 4×Concurrency.
	Queue int
	// Profile names the embed profile (embed.<profile> in the config).
	Profile string
	// Slack configures the Slack headend; Embed the embed headend.
	Slack *SlackConfig
	Embed *EmbedConfig
}

// ParseSpec parses the value of a headend flag: a port for the HTTP
// headends, stdio|http:PORT|sse:PORT|ws:PORT for --mcp, NAME:PORT or PORT
// for --embed (the profile is "default" without a name); --slack takes
// none.
func ParseSpec(kind, value string) (Spec, error) {
	s := Spec{Kind: kind}
	value = strings.TrimSpace(value)
	switch kind {
	case KindSlack:
		return s, nil
	case KindEmbed:
		name, port, ok := strings.Cut(value, ":")
		if !ok {
			name, port = "default", value
		}
		if !validName(name) {
			return s, fmt.Errorf("%w: --embed %q: the profile name uses letters, digits, '.', '_' and '-'", ErrSpec, value)
		}
		p, err := parsePort(port)
		if err != nil {
			return s, fmt.Errorf("%w: --embed %q: expected NAME:PORT or PORT: %v", ErrSpec, value, err)
		}
		s.Profile, s.Port = name, p
		return s, nil
	case KindOpenAI, KindAnthropic, KindAPI:
		p, err := parsePort(value)
		if err != nil {
			return s, fmt.Errorf("%w: --%s %q: %v", ErrSpec, kind, value, err)
		}
		s.Port = p
		return s, nil
	case KindMCP:
		if value == "stdio" {
			s.Transport = "stdio"
			return s, nil
		}
		tr, port, ok := strings.Cut(value, ":")
		switch {
		case !ok:
			return s, fmt.Errorf("%w: --mcp %q: expected stdio, http:PORT, sse:PORT or ws:PORT", ErrSpec, value)
		case tr != "http" && tr != "sse" && tr != "ws":
			return s, fmt.Errorf("%w: --mcp %q: unknown transport %q", ErrSpec, value, tr)
		}
		p, err := parsePort(port)
		if err != nil {
			return s, fmt.Errorf("%w: --mcp %q: %v", ErrSpec, value, err)
		}
		s.Transport, s.Port = tr, p
		return s, nil
	}
	return s, fmt.Errorf("%w: unknown headend %q", ErrSpec, kind)
}

func parsePort(v string) (int, error) {
	p, err := strconv.Atoi(v)
	if err != nil || p < 0 || p > 65535 {
		return 0, fmt.Errorf("not a port number")
	}
	return p, nil
}

// Options configures Serve.
type Options struct {
	Agents []Agent
	// ListenAddress is the interface the HTTP headends bind; "" is
	// loopback.
	ListenAddress string
	// Token, when set, is the bearer token every request must carry
	// (Authorization: Bearer, or x-api-key on the Anthropic headend).
	// GET /health stays open.
	Token string
	// InsecureNoToken is the operator's explicit consent to listen
	// beyond loopback with no Token (see CheckListen).
	InsecureNoToken bool
	// MaxBodyBytes bounds a request body; 0 is DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// ReadHeaderTimeout and ReadTimeout bound slow clients; 0 is 10s and
	// 60s.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	// WriteTimeout bounds each write of a stream: a client that does not
	// take an event within it is treated as gone and its session is
	// cancelled. 0 is 30s.
	WriteTimeout time.Duration
	// QueueTimeout bounds a request's wait for a slot; 0 is
	// DefaultQueueTimeout.
	QueueTimeout time.Duration
	// Grace is how long running sessions may finish after shutdown
	// begins; past it they are cancelled. 0 is DefaultGrace.
	Grace time.Duration
	// KeepAlive is the interval of stream keep-alive comments; 0 is 15s.
	KeepAlive time.Duration
	// Stdin and Stdout carry MCP over stdio.
	Stdin  io.ReadCloser
	Stdout io.WriteCloser
	Logger *slog.Logger
	// Ready, when set, is called with each headend's bound address once
	// every headend listens.
	Ready func(kind, addr string)
	// Stopping, when set, is called once shutdown has begun: from then on
	// every new session is refused.
	Stopping func()
	// Version is reported by the MCP server.
	Version string
	// Now is the clock of token lifetimes, rate-limit windows and
	// transcript times; nil is time.Now.
	Now func() time.Time
}

func (o *Options) withDefaults() {
	if o.ListenAddress == "" {
		o.ListenAddress = DefaultListenAddress
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = 10 * time.Second
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = 60 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 30 * time.Second
	}
	if o.QueueTimeout <= 0 {
		o.QueueTimeout = DefaultQueueTimeout
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = 15 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// CheckAgents checks agents as Serve does: at least one, with unique
// names that are safe as URL path segments and MCP tool names.
func CheckAgents(agents []Agent) error {
	o := Options{Agents: agents}
	_, err := o.validate()
	return err
}

// validate checks the agents: at least one, unique names that are safe as
// URL path segments and MCP tool names.
func (o *Options) validate() (map[string]*Agent, error) {
	if len(o.Agents) == 0 {
		return nil, fmt.Errorf("%w: headend mode needs at least one --agent", ErrSpec)
	}
	byName := map[string]*Agent{}
	for i := range o.Agents {
		a := &o.Agents[i]
		if !validName(a.Name) {
			return nil, fmt.Errorf("%w: agent name %q: use letters, digits, '.', '_' and '-' (at most 64)", ErrSpec, a.Name)
		}
		if _, dup := byName[a.Name]; dup {
			return nil, fmt.Errorf("%w: two agents are named %q; rename one file", ErrSpec, a.Name)
		}
		if a.Run == nil {
			return nil, fmt.Errorf("%w: agent %q has no runner", ErrSpec, a.Name)
		}
		byName[a.Name] = a
	}
	return byName, nil
}

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
		default:
			return false
		}
	}
	return true
}

// CheckListen decides whether the HTTP headends of specs may start on
// o.ListenAddress: on loopback, or with a Token, they may; beyond loopback
// with no token they may not (an error wrapping ErrSpec and
// httpguard.ErrNoToken that names the token to give) unless
// InsecureNoToken is set, when warning is the text the caller must print.
// MCP over stdio and Slack listen on nothing and need no check. An embed
// headend is public (a page's widget cannot keep a secret): it does not
// take the bearer token, so unless its profile has its own secret it
// counts as tokenless.
func (o Options) CheckListen(specs []Spec) (warning string, err error) {
	listens := false
	token := o.Token
	for _, sp := range specs {
		listens = listens || !(sp.Kind == KindMCP && sp.Transport == "stdio") && sp.Kind != KindSlack
		if sp.Kind == KindEmbed && sp.Embed.token() == "" {
			token = ""
		}
	}
	addr := o.ListenAddress
	if addr == "" {
		addr = DefaultListenAddress
	}
	if !listens {
		return "", nil
	}
	l := httpguard.Listen{Server: "ai-agent headends", Flag: "--listen-address", Addr: addr, Token: token,
		TokenHint: "--headend-token (or $" + DefaultTokenEnv + ")", Risk: "run the agents' sessions and spend their LLM budget",
		Insecure: o.InsecureNoToken}
	warning, err = l.Check()
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrSpec, err)
	}
	return warning, nil
}

// listenAddr joins the listen address and a port.
func listenAddr(host string, port int) string {
	return net.JoinHostPort(host, strconv.Itoa(port))
}
