package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/salve-dev/salve/internal/heal/logparse"
)

// benchLog is a go build log of n located errors.
func benchLog(n int) string {
	var b strings.Builder
	b.WriteString("# example.com/greet\n")
	for i := range n {
		fmt.Fprintf(&b, "./main.go:%d:2: undefined: name%d\n", i%500+1, i)
	}
	return b.String()
}

// BenchmarkParseTool measures one parse call through the MCP server (Go
// SDK client and server over in-memory transports: schema validation,
// JSON both ways, the text and structured results); BenchmarkParseDirect
// is the same log through logparse alone.
func BenchmarkParseTool(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("errors=%d", n), func(b *testing.B) {
			log := benchLog(n)
			ct, st := sdk.NewInMemoryTransports()
			s := New(Options{})
			go func() { _ = s.ServeTransport(context.Background(), st) }()
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			args := map[string]any{"log": log}
			b.SetBytes(int64(len(log)))
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "parse", Arguments: args})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}

func BenchmarkParseDirect(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("errors=%d", n), func(b *testing.B) {
			log := benchLog(n)
			b.SetBytes(int64(len(log)))
			b.ReportAllocs()
			for b.Loop() {
				if r := logparse.ParseString(log, logparse.Options{}); len(r) == 0 {
					b.Fatal("no reports")
				}
			}
		})
	}
}
