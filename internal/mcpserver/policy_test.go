package mcpserver

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/tiers"
	"github.com/salve-dev/salve/internal/isolation"
)

// serveHTTPForPolicy serves s over the real streamable HTTP transport on a
// loopback port and returns a connected client session; the server stops
// when the test ends.
func serveHTTPForPolicy(t *testing.T, s *Server) *sdk.ClientSession {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeHTTP(ctx, ln) }()
	c := sdk.NewClient(&sdk.Implementation{Name: "policy-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp"}, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return cs
}

func policyCall(t *testing.T, cs *sdk.ClientSession, name string, args any) (*sdk.CallToolResult, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return res, b.String()
}

// TestIsolationFloorOverHTTP: a server started with bwrap refuses a call's
// "isolation": "none" (and another sandbox) for exec and heal over the real
// HTTP transport, before anything runs; a call naming no isolation runs
// under bwrap, which keeps a file outside the workspace out of reach.
func TestIsolationFloorOverHTTP(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "repo")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("outside-the-allowed-root-42\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var healed []HealInput
	s := New(Options{Isolation: isolation.Bwrap, AllowedRoots: []string{root}, Heal: func(_ context.Context, in HealInput, _ heal.Progress) (*results.Results, error) {
		mu.Lock()
		healed = append(healed, in)
		mu.Unlock()
		return greenResults(in), nil
	}})
	cs := serveHTTPForPolicy(t, s)
	for _, tc := range []struct{ tool, iso string }{{"exec", "none"}, {"heal", "none"}, {"exec", "docker"}, {"heal", "podman"}} {
		res, text := policyCall(t, cs, tc.tool, map[string]any{"workspace": ws, "isolation": tc.iso, "cmd": "cat " + outside})
		if !res.IsError || !strings.Contains(text, "floor") || strings.Contains(text, "outside-the-allowed-root-42") {
			t.Errorf("%s with isolation %s: error %v, %q", tc.tool, tc.iso, res.IsError, text)
		}
	}
	// auto means the server's choice: the heal gets bwrap.
	if res, text := policyCall(t, cs, "heal", map[string]any{"workspace": ws, "isolation": "auto"}); res.IsError {
		t.Fatalf("heal with isolation auto: %s", text)
	}
	mu.Lock()
	if len(healed) != 1 || healed[0].Isolation != isolation.Bwrap {
		t.Errorf("heals run: %+v", healed)
	}
	mu.Unlock()

	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not installed here: the refusals are checked, the bwrap run is not")
	}
	res, text := policyCall(t, cs, "exec", map[string]any{"workspace": ws, "cmd": "cat " + outside})
	var out ExecOutput
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &out)
	if res.IsError || out.EnvironmentMetadata.Isolation != isolation.Bwrap || strings.Contains(out.BuildLog, "outside-the-allowed-root-42") {
		t.Errorf("exec under the server's bwrap: error %v, isolation %q, log %q (%s)", res.IsError, out.EnvironmentMetadata.Isolation, out.BuildLog, text)
	}
}

// TestHealToolTiersFromTheTable: the heal tool's schema lists every tier
// of the one table and states the real default, and a call asking for the
// suggest tier reaches the heal.
func TestHealToolTiersFromTheTable(t *testing.T) {
	var got []string
	ws := t.TempDir()
	s := New(Options{Heal: func(_ context.Context, in HealInput, _ heal.Progress) (*results.Results, error) {
		got = in.Fixers
		return greenResults(in), nil
	}})
	ct, st := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.ServeTransport(ctx, st) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "policy-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close(); <-done }()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tools.Tools, func(tl *sdk.Tool) bool { return tl.Name == "heal" })
	if i < 0 {
		t.Fatal("no heal tool")
	}
	schema, _ := json.Marshal(tools.Tools[i].InputSchema)
	var in struct {
		Properties map[string]struct {
			Description string `json:"description"`
			Items       struct {
				Enum []string `json:"enum"`
			} `json:"items"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &in); err != nil {
		t.Fatal(err)
	}
	fx := in.Properties["fixers"]
	if !slices.Equal(fx.Items.Enum, tiers.Names()) || !strings.Contains(fx.Description, "default: "+tiers.DefaultText()) {
		t.Errorf("fixers schema: %s", schema)
	}
	if d := tools.Tools[i].Description; !strings.Contains(d, "suggest: ") || !strings.Contains(d, "The default is "+tiers.DefaultText()+".") {
		t.Errorf("heal description: %s", d)
	}
	res, text := policyCall(t, cs, "heal", map[string]any{"workspace": ws, "fixers": []string{"rules", "suggest"}})
	if res.IsError || !slices.Equal(got, []string{"rules", "suggest"}) {
		t.Errorf("heal with suggest: error %v (%s), fixers %q", res.IsError, text, got)
	}
}
