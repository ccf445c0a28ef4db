// Command mcptest runs the failure-injecting MCP test server of package
// mcptest over stdio (the default) or streamable HTTP:
//
//	mcptest                      # stdio, with the process tools
//	mcptest -http 127.0.0.1:0    # streamable HTTP at /mcp, SSE at /sse
//	mcptest -bad-schema          # also list a tool whose schema cannot compile
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/salve-dev/salve/tools/mcp/mcptest"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("mcptest", flag.ContinueOnError)
	addr := fs.String("http", "", "serve streamable HTTP (/mcp) and SSE (/sse) on this address instead of stdio")
	bad := fs.Bool("bad-schema", false, "add a tool whose inputSchema cannot compile")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := mcptest.Options{BadSchema: *bad}
	if *addr == "" {
		opts.Process = true
		if err := mcptest.ServeStdio(ctx, opts, os.Stdin, os.Stdout); err != nil && ctx.Err() == nil {
			fmt.Fprintln(os.Stderr, "mcptest:", err)
			return 1
		}
		return 0
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		return 1
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcptest.HTTPHandler(opts))
	mux.Handle("/sse", mcptest.SSEHandler(opts))
	fmt.Fprintf(os.Stderr, "mcptest: listening on http://%s\n", ln.Addr())
	srv := &http.Server{Handler: mux}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		return 1
	}
	return 0
}
