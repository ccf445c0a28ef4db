package sandbox

import (
	"fmt"
	"sync"
)

// DefaultMaxOutput is the default cap, in bytes, on the output a [Run]
// keeps in memory for each stream.
const DefaultMaxOutput = 1 << 20

// Capture is an io.Writer that keeps at most a fixed number of bytes: the
// first half and the last half of everything written, like os/exec's
// prefixSuffixSaver. It is safe for concurrent use. The zero value keeps
// nothing; use [NewCapture].
type Capture struct {
	mu      sync.Mutex
	max     int
	head    []byte
	tail    []byte // ring buffer of the last max-len(head) bytes
	tailPos int
	total   int64
}

// NewCapture returns a Capture that keeps at most max bytes; max <= 0 means
// [DefaultMaxOutput].
func NewCapture(max int) *Capture {
	if max <= 0 {
		max = DefaultMaxOutput
	}
	return &Capture{max: max}
}

// Write keeps p's bytes within the cap. It never fails.
func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	headCap := c.max / 2
	if room := headCap - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	tailCap := c.max - headCap
	for len(p) > 0 && tailCap > 0 {
		if len(c.tail) < tailCap {
			k := min(tailCap-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(c.tail[c.tailPos:], p)
		c.tailPos = (c.tailPos + k) % tailCap
		p = p[k:]
	}
	return n, nil
}

// Total returns how many bytes were written in all.
func (c *Capture) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Truncated reports whether bytes were dropped.
func (c *Capture) Truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total > int64(len(c.head)+len(c.tail))
}

// Bytes returns what was kept. When bytes were dropped, a marker line
// "... [N bytes omitted] ..." stands between the head and the tail.
func (c *Capture) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail := append(append([]byte(nil), c.tail[c.tailPos:]...), c.tail[:c.tailPos]...)
	out := append([]byte(nil), c.head...)
	if dropped := c.total - int64(len(c.head)+len(c.tail)); dropped > 0 {
		out = append(out, fmt.Sprintf("\n... [%d bytes omitted] ...\n", dropped)...)
	}
	return append(out, tail...)
}

// String returns Bytes as a string.
func (c *Capture) String() string { return string(c.Bytes()) }
