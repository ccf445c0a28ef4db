package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/agent/tools/mcp"
)

func TestRunHTTP(t *testing.T) {
	for _, tt := range []struct{ transport, path string }{{"http", "/mcp"}, {"sse", "/sse"}} {
		t.Run(tt.transport, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pr, pw := io.Pipe()
			done := make(chan int, 1)
			go func() {
				done <- run(ctx, []string{"-http", "127.0.0.1:0"}, io.NopCloser(strings.NewReader("")), nopWriteCloser{io.Discard}, pw)
				pw.Close()
			}()
			line, err := bufio.NewReader(pr).ReadString('\n')
			if err != nil || !strings.HasPrefix(line, "mcptest: listening on http://127.0.0.1:") {
				t.Fatalf("first stderr line %q, %v", line, err)
			}
			go func() { _, _ = io.Copy(io.Discard, pr) }()
			url := strings.TrimSpace(strings.TrimPrefix(line, "mcptest: listening on ")) + tt.path
			s, err := mcp.Start(ctx, mcp.ServerConfig{Name: "t", Type: tt.transport, URL: url}, mcp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Call(ctx, "t__echo", json.RawMessage(`{"text":"over `+tt.transport+`"}`))
			if err != nil || res.Text != "over "+tt.transport {
				t.Fatalf("echo = %+v, %v", res, err)
			}
			for _, tl := range s.Tools() {
				if tl.LocalName == "crash" || tl.LocalName == "spawn" || tl.LocalName == "freeze" {
					t.Fatalf("process tool %s offered over HTTP", tl.Name)
				}
			}
			_ = s.Close()
			cancel()
			if code := <-done; code != 0 {
				t.Fatalf("exit code %d", code)
			}
		})
	}
}

func TestRunStdio(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), nil, inR, outW, io.Discard)
		outW.Close()
	}()
	req := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	if _, err := io.WriteString(inW, req); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.Contains(line, `"serverInfo":{"name":"mcptest"`) {
		t.Fatalf("initialize response %q, %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit code %d after stdin closed", code)
	}
}

func TestRunBadFlag(t *testing.T) {
	if code := run(context.Background(), []string{"-nope"}, nil, nil, io.Discard); code != 2 {
		t.Fatalf("code %d, want 2", code)
	}
}

// TestRunNeeds: with -needs, a missing file ends the server at once with
// exit 1 and the reason on stderr.
func TestRunNeeds(t *testing.T) {
	var stderr strings.Builder
	missing := filepath.Join(t.TempDir(), "gone")
	if code := run(context.Background(), []string{"-needs", missing}, nil, nil, &stderr); code != 1 || !strings.Contains(stderr.String(), "refusing to start") {
		t.Fatalf("code %d, stderr %q; want 1 and the reason", code, stderr.String())
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
