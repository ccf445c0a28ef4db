// Command mcptest runs the failure-injecting MCP test server of package
// mcptest over stdio (the default) or streamable HTTP:
//
//	mcptest                      # stdio, with the process tools
//	mcptest -http 127.0.0.1:0    # streamable HTTP at /mcp, SSE at /sse
//	mcptest -bad-schema          # also list a tool whose schema cannot compile
//	mcptest -needs FILE          # exit 1 at once unless FILE exists (a server
//	                             # that cannot come back until a test says so)
//
// In HTTP mode the first line on stderr is "mcptest: listening on URL".
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/salve-dev/salve/internal/agent/tools/mcp/mcptest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run serves until stdin closes (stdio) or ctx ends (HTTP); it returns the
// exit code.
func run(ctx context.Context, args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcptest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("http", "", "serve streamable HTTP (/mcp) and SSE (/sse) on this address instead of stdio")
	bad := fs.Bool("bad-schema", false, "add a tool whose inputSchema cannot compile")
	needs := fs.String("needs", "", "exit 1 at once unless this file exists")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *needs != "" {
		if _, err := os.Stat(*needs); err != nil {
			fmt.Fprintln(stderr, "mcptest: refusing to start:", err)
			return 1
		}
	}
	opts := mcptest.Options{BadSchema: *bad}
	if *addr == "" {
		opts.Process = true
		if err := mcptest.ServeStdio(ctx, opts, stdin, stdout); err != nil && ctx.Err() == nil {
			fmt.Fprintln(stderr, "mcptest:", err)
			return 1
		}
		return 0
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "mcptest:", err)
		return 1
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcptest.HTTPHandler(opts))
	mux.Handle("/sse", mcptest.SSEHandler(opts))
	fmt.Fprintf(stderr, "mcptest: listening on http://%s\n", ln.Addr())
	srv := &http.Server{Handler: mux}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		fmt.Fprintln(stderr, "mcptest:", err)
		return 1
	}
	return 0
}
