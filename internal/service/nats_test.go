package service

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// refusals is a NATS server logger that reports each route error saying
// the other node refused this one's credentials.
type refusals chan string

func (r refusals) Errorf(format string, v ...any) {
	if msg := fmt.Sprintf(format, v...); strings.Contains(msg, "Authorization Violation") {
		select {
		case r <- msg:
		default:
		}
	}
}
func (refusals) Noticef(string, ...any) {}
func (refusals) Warnf(string, ...any)   {}
func (refusals) Fatalf(string, ...any)  {}
func (refusals) Debugf(string, ...any)  {}
func (refusals) Tracef(string, ...any)  {}

// TestClusterRoutesNeedToken: with a token, embedded nodes form a cluster
// only with nodes that know it.
func TestClusterRoutesNeedToken(t *testing.T) {
	node := func(name, token string, routes ...string) *server.Server {
		t.Helper()
		// The cluster port is the system's choice: one picked here and
		// released could be taken before the node listens on it.
		ns, err := StartEmbedded(EmbeddedOptions{Listen: "127.0.0.1:0", DataDir: t.TempDir(), Name: name, Token: token,
			ClusterName: "salve-test", ClusterListen: "127.0.0.1:0", Routes: routes})
		if err != nil {
			t.Fatalf("node %s: %v", name, err)
		}
		t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
		return ns
	}
	// A clustered JetStream node needs a route to start with; a's leads to
	// a listener that is never a NATS node, held for the whole test.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	a := node("a", "route-secret", "nats://"+ln.Addr().String())
	toA := "nats://" + a.ClusterAddr().String()
	b := node("b", "route-secret", toA)
	intruder := node("x", "wrong-secret", toA)
	open := node("y", "", toA)
	// The refused nodes retry their route to a: the next refusal each
	// logs proves a has turned it away at least once.
	refused := map[*server.Server]refusals{intruder: make(refusals, 1), open: make(refusals, 1)}
	for ns, r := range refused {
		ns.SetLoggerV2(r, false, false, false)
	}

	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for a.NumRoutes() == 0 || b.NumRoutes() == 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("nodes with the token did not meet: a %d routes, b %d", a.NumRoutes(), b.NumRoutes())
		case <-tick.C:
		}
	}
	for ns, r := range refused {
		select {
		case <-r:
		case <-ctx.Done():
			t.Fatalf("node %s was never refused by a", ns.Name())
		}
	}
	// Neither node of the cluster holds a route to a refused node. (The
	// refused nodes keep retrying, so their own count may include an
	// attempt whose refusal is still on its way; the cluster's side is
	// what must never have one.)
	for _, ns := range []*server.Server{a, b} {
		rz, err := ns.Routez(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rz.Routes {
			if r.RemoteID == intruder.ID() || r.RemoteID == open.ID() {
				t.Errorf("%s holds a route to %s, a node without the token", ns.Name(), r.RemoteName)
			}
		}
	}
	// a's routes are its pool to b (4 connections); a node that joined
	// would add as many again.
	if n := a.NumRoutes(); n > 4 {
		t.Errorf("a has %d routes: a node without the token joined", n)
	}
}
