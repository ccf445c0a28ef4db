// Package mcp connects the agent runtime to MCP servers with the official Go
// SDK (github.com/modelcontextprotocol/go-sdk) over stdio, streamable HTTP,
// SSE and WebSocket (docs/contracts/ai-agent-cli.md §9.5, §11; WebSocket
// through [mcpws]). Each started server is
// a [Server], a tools.Provider whose tools are exposed as SERVER__TOOL.
//
// # Start-up
//
// [Start] spawns or connects, initialise, list the tools, apply
// toolsAllowed/toolsDenied and compile every input schema. A failure there is
// a *[StartError] naming the server (errors.Is(err, [ErrStart]); the CLI
// exits 3); a schema that cannot compile is a *toolschema.CompileError
// (exit 5).
//
// # Stdio children
//
// A stdio server runs in its own process group with exactly HOME, LOGNAME,
// PATH, SHELL, TERM and USER from the parent plus its configured `env`.
// [Server.Close] closes its stdin, waits briefly, then kills the whole group,
// so nothing it started outlives the session.
//
// # Failures mid-session
//
// A server that exits or drops its connection turns every later call into
// an error ("MCP server is not running: MCP server 'NAME': …"), which the
// engine renders as "(tool failed: <reason>)"; the session goes on.
//
// # Supervision
//
// With Options.Supervise (a headend's shared servers, which live as long
// as the process) a server that goes down is restarted, as the original's
// shared servers are: at once, then after 1, 2, 5, 10 and 30 seconds, then
// every minute until an attempt succeeds ([DefaultBackoff]). A call that
// times out (the engine's toolTimeout or the server's `requestTimeoutMs`)
// or fails without the server's own answer makes the server probe its
// health with a ping (or tools/list, `healthProbe: listTools`) bounded by
// 3 seconds; no answer kills the connection and restarts the server. While
// it is down, calls fail at once with why and when it is tried next; a call
// that comes during a restart attempt waits for it. Each change is told to
// Options.OnState ([State]), which ai-agent turns into metrics.
package mcp

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Transport types of `mcpServers.NAME.type`.
const (
	TypeStdio     = "stdio"
	TypeHTTP      = "http"
	TypeSSE       = "sse"
	TypeWebSocket = "websocket"
)

// ServerConfig is one resolved `mcpServers.NAME` entry.
type ServerConfig struct {
	// Name is the configured server name (the map key).
	Name string
	// Type is stdio, http, sse or websocket; empty infers stdio when
	// Command is set, else http when URL is (a ws:// or wss:// URL too
	// needs type websocket).
	Type string
	// Command and Args start a stdio server, without a shell.
	Command string
	Args    []string
	// Env is added to the child's environment. Values are passed through
	// Options.Expand first when that is set.
	Env map[string]string
	// Dir is the child's working directory; empty means the caller's.
	Dir string
	// URL is the endpoint of http, sse and websocket servers.
	URL string
	// Headers are sent with every HTTP request, and with a WebSocket's
	// opening handshake (after Options.Expand).
	Headers map[string]string
	// ToolsAllowed and ToolsDenied filter the server's tools by local name
	// with `*` globs; see [Filter].
	ToolsAllowed, ToolsDenied []string
	// Queue is the queue the server's tools are bound to; empty means
	// "default".
	Queue string
	// RequestTimeout bounds each tool call (`requestTimeoutMs`); zero means
	// only the caller's context does. A call past it fails with an error
	// wrapping tools.ErrTimeout.
	RequestTimeout time.Duration
	// HealthProbe is how a supervised server is asked for a sign of life:
	// [ProbePing] (the default) or [ProbeListTools].
	HealthProbe string
}

// transport resolves the transport type.
func (c ServerConfig) transport() (string, error) {
	t := strings.ToLower(strings.TrimSpace(c.Type))
	switch {
	case t != "":
	case c.Command != "":
		t = TypeStdio
	case c.URL != "":
		t = TypeHTTP
	default:
		return "", errors.New("neither command nor url is set")
	}
	switch t {
	case TypeStdio:
		if c.Command == "" {
			return "", errors.New("type stdio needs a command")
		}
	case TypeHTTP, TypeSSE, TypeWebSocket:
		if c.URL == "" {
			return "", fmt.Errorf("type %s needs a url", t)
		}
	default:
		return "", fmt.Errorf("unknown type %q", c.Type)
	}
	return t, nil
}

// ErrStart is wrapped by every start-up failure of a server: it could not be
// spawned, connected, initialised or asked for its tools. The CLI maps it to
// exit 3.
var ErrStart = errors.New("MCP server failed to start")

// Start-up stages named in a [StartError].
const (
	StageConfig     = "config"
	StageSpawn      = "spawn"
	StageConnect    = "connect"
	StageInitialize = "initialize"
	StageListTools  = "list tools"
)

// StartError is a server that failed to start.
type StartError struct {
	// Server is the configured name.
	Server string
	// Stage is one of the Stage constants.
	Stage string
	Err   error
	// Stderr is the tail of a stdio server's standard error, if any.
	Stderr string
}

// Error implements error.
func (e *StartError) Error() string {
	msg := fmt.Sprintf("MCP server '%s': %s: %v", e.Server, e.Stage, e.Err)
	if s := strings.TrimSpace(e.Stderr); s != "" {
		msg += " (stderr: " + lastLines(s, 3) + ")"
	}
	return msg
}

// Unwrap returns [ErrStart] and the cause.
func (e *StartError) Unwrap() []error { return []error{ErrStart, e.Err} }

// ErrUnknownServer is wrapped when a server name is not configured (exit 3:
// docs/contracts/ai-agent-cli.md §7, "a tool name that is neither an MCP
// server, a REST tool nor batch", and --list-tools of an unknown server).
var ErrUnknownServer = errors.New("unknown MCP server")

// Select returns the configs named, in the order given; "all" (alone)
// selects every config, sorted by name. A name without a config is an error
// wrapping [ErrUnknownServer].
func Select(all map[string]ServerConfig, names []string) ([]ServerConfig, error) {
	if len(names) == 1 && strings.EqualFold(strings.TrimSpace(names[0]), "all") {
		keys := make([]string, 0, len(all))
		for k := range all {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		names = keys
	}
	out := make([]ServerConfig, 0, len(names))
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		cfg, ok := all[n]
		if !ok {
			return nil, fmt.Errorf("%w: '%s'", ErrUnknownServer, n)
		}
		if cfg.Name == "" {
			cfg.Name = n
		}
		out = append(out, cfg)
	}
	return out, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
