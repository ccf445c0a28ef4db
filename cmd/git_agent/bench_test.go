package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/gitagent"
	"github.com/salve-dev/salve/internal/gitagent/server"
	"github.com/salve-dev/salve/internal/sandbox"
)

// benchRepo makes a repository of 200 committed files with 5 modified, the
// same for every sub-benchmark.
func benchRepo(b *testing.B) string {
	b.Helper()
	repo := newRepo(b)
	for i := range 200 {
		dir := filepath.Join(repo, fmt.Sprintf("pkg%02d", i%20))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		writeFile(b, dir, fmt.Sprintf("f%03d.go", i), fmt.Sprintf("package p\n\nconst N%d = %d\n", i, i))
	}
	git(b, "-C", repo, "add", "-A")
	git(b, "-C", repo, "commit", "-q", "-m", "200 files")
	for i := range 5 {
		writeFile(b, filepath.Join(repo, fmt.Sprintf("pkg%02d", i)), fmt.Sprintf("f%03d.go", i), "package p\n// changed\n")
	}
	return repo
}

// BenchmarkStatus compares git_agent's git_status with plain git status on
// the same repository: "git" is the floor, "git_agent" adds the agent's
// process start, decoding and response, "git_agent_registry" adds the
// SQLite registration, and "in_process" is the agent's own work without a
// process start.
func BenchmarkStatus(b *testing.B) {
	repo := benchRepo(b)
	ctx := context.Background()
	req := request("git_status", `{"command":{"type":"git_status"}}`)
	env := gitagent.ClientEnv()
	reg := filepath.Join(b.TempDir(), "registry.db")

	b.Run("git", func(b *testing.B) {
		for b.Loop() {
			res, err := sandbox.Run(ctx, sandbox.Cmd{Path: "git", Args: []string{"-C", repo, "status"}, Env: server.GitEnv()})
			if err != nil || res.ExitCode != 0 {
				b.Fatalf("git status: %v %d", err, res.ExitCode)
			}
		}
	})
	binary := func(args ...string) func(b *testing.B) {
		return func(b *testing.B) {
			for b.Loop() {
				res, err := sandbox.Run(ctx, sandbox.Cmd{Path: agentBin, Args: args, Env: env, Stdin: strings.NewReader(req)})
				if err != nil || res.ExitCode != 0 || !strings.Contains(string(res.Stdout), `"status":"success"`) {
					b.Fatalf("git_agent: %v %d %s", err, res.ExitCode, res.Stdout)
				}
			}
		}
	}
	b.Run("git_agent", binary("-C", repo, "--no-register"))
	b.Run("git_agent_registry", binary("-C", repo, "--registry-db", reg))
	b.Run("in_process", func(b *testing.B) {
		s := &server.Server{Runner: &server.Runner{Dir: repo}}
		for b.Loop() {
			resp := s.Handle(ctx, []byte(req), nil)
			if resp.Status != contract.StatusSuccess {
				b.Fatalf("response %+v", resp.Result)
			}
		}
	})
}
