package llmfix

import (
	"time"

	"github.com/salve-dev/salve/llm"
)

// Backoff bounds for rate limits without Retry-After (seed 003, §3).
const (
	backoffMin = time.Second
	backoffMax = 60 * time.Second
)

// rateCycle tracks rate limits within one cycle over the targets: the
// fixer waits only when every target was rate-limited, the longest wait
// asked (Retry-After, else an exponential backoff from 1 s to 60 s).
type rateCycle struct {
	k       int
	limited map[int]time.Duration
	streak  int
}

func newRateCycle(k int) *rateCycle { return &rateCycle{k: k, limited: map[int]time.Duration{}} }

func (c *rateCycle) record(idx int, e *llm.Error) time.Duration {
	c.streak++
	wait := e.RetryAfter
	if wait <= 0 {
		wait = backoffMin
		for i := 1; i < c.streak && wait < backoffMax; i++ {
			wait *= 2
		}
		wait = min(wait, backoffMax)
	}
	c.limited[idx] = max(c.limited[idx], wait)
	if len(c.limited) < c.k {
		return 0
	}
	var longest time.Duration
	for _, w := range c.limited {
		longest = max(longest, w)
	}
	clear(c.limited)
	return longest
}

func (c *rateCycle) other() { clear(c.limited) }
