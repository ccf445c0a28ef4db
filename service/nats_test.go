package service

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestClusterRoutesNeedToken: with a token, embedded nodes form a cluster
// only with nodes that know it.
func TestClusterRoutesNeedToken(t *testing.T) {
	node := func(name, token string, port int, routes ...int) *server.Server {
		t.Helper()
		var urls []string
		for _, r := range routes {
			urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", r))
		}
		ns, err := StartEmbedded(EmbeddedOptions{Listen: "127.0.0.1:0", DataDir: t.TempDir(), Name: name, Token: token,
			ClusterName: "salve-test", ClusterListen: fmt.Sprintf("127.0.0.1:%d", port), Routes: urls})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
		return ns
	}
	pa, pb, px, py := freePort(t), freePort(t), freePort(t), freePort(t)
	a := node("a", "route-secret", pa, pb)
	b := node("b", "route-secret", pb, pa)
	intruder := node("x", "wrong-secret", px, pa)
	open := node("y", "", py, pa)

	deadline := time.Now().Add(20 * time.Second)
	for a.NumRoutes() == 0 || b.NumRoutes() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("nodes with the token did not meet: a %d routes, b %d", a.NumRoutes(), b.NumRoutes())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Give the others as long again to try.
	time.Sleep(2 * time.Second)
	if n := intruder.NumRoutes(); n != 0 {
		t.Errorf("a node with the wrong token has %d routes", n)
	}
	if n := open.NumRoutes(); n != 0 {
		t.Errorf("a node without the token has %d routes", n)
	}
	// a's routes are its pool to b (4 connections); a node that joined
	// would add as many again.
	if n := a.NumRoutes(); n > 4 {
		t.Errorf("a has %d routes: a node without the token joined", n)
	}
}
