package agent

import (
	"time"

	"github.com/salve-dev/salve/internal/llm"
)

// Backoff bounds for rate limits without Retry-After
// (docs/contracts/ai-agent.md §3).
const (
	BackoffMin = time.Second
	BackoffMax = 60 * time.Second
)

// backoff is the exponential wait for the n-th rate limit (n from 1):
// 1 s, 2 s, 4 s … capped at BackoffMax.
func backoff(n int) time.Duration {
	d := BackoffMin
	for i := 1; i < n && d < BackoffMax; i++ {
		d *= 2
	}
	return min(d, BackoffMax)
}

// targetIndex is the round-robin rule of docs/contracts/ai-agent.md §3:
// attempt n (from 1) uses targets[(n-1) % k].
func targetIndex(attempt, k int) int {
	return (attempt - 1) % k
}

// rateCycle tracks rate limits within one cycle over the targets, so that
// the engine waits the maximum backoff when every target was rate-limited
// (docs/contracts/ai-agent.md §3).
type rateCycle struct {
	k       int
	limited map[int]time.Duration
	streak  int
}

func newRateCycle(k int) *rateCycle {
	return &rateCycle{k: k, limited: map[int]time.Duration{}}
}

// record notes a rate limit of target idx and returns how long to wait
// before the next attempt: zero while some target of the cycle was not yet
// rate-limited, else the longest wait asked in the cycle (Retry-After when
// given, otherwise the exponential backoff).
func (c *rateCycle) record(idx int, e *llm.Error) time.Duration {
	c.streak++
	wait := e.RetryAfter
	if wait <= 0 {
		wait = backoff(c.streak)
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

// other notes an attempt that was not rate-limited; it ends the cycle.
func (c *rateCycle) other() {
	clear(c.limited)
}
