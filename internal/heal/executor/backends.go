package executor

import (
	"sync"
	"time"

	"github.com/salve-dev/salve/internal/sandbox"
)

// BackendTTL is how long [Backends] keeps a chosen backend: a sandbox
// that stopped working (an engine stopped, namespaces turned off) is
// probed again within it.
const BackendTTL = 10 * time.Minute

// Backends remembers the backend chosen for each isolation and image
// across the Executors of one process that share it (a worker's jobs):
// each Executor probes once, and without a shared Backends every heal
// would probe again (an engine that does not answer, a bwrap probe and an
// overlay probe: 20 to 50 ms). A choice is kept for [BackendTTL]. The
// zero value is not ready; use [NewBackends]. Safe for concurrent use.
type Backends struct {
	mu sync.Mutex
	m  map[string]chosen
}

type chosen struct {
	b  sandbox.Backend
	at time.Time
}

// NewBackends returns an empty Backends.
func NewBackends() *Backends { return &Backends{m: map[string]chosen{}} }

func (s *Backends) get(key string, now time.Time) (sandbox.Backend, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[key]
	if !ok || now.Sub(c.at) >= BackendTTL || now.Before(c.at) {
		return nil, false
	}
	return c.b, true
}

func (s *Backends) put(key string, b sandbox.Backend, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = chosen{b, now}
}
