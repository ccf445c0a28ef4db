package llm

import (
	"context"
	"sync/atomic"
)

// Meter counts the bytes of one attempt on the wire: the request body a
// provider sent and the response body it read (a stream's bytes as they
// arrive, an error body too). The engine puts one in the attempt's context
// with [WithMeter] for its telemetry (ai_agent_llm_bytes_in_total and
// ai_agent_llm_bytes_out_total); the HTTP providers add to it. A provider
// that speaks no wire (test-llm) leaves it at zero. It is safe for
// concurrent use.
type Meter struct {
	sent, received atomic.Int64
}

type meterKey struct{}

// WithMeter returns ctx carrying m.
func WithMeter(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// MeterFrom returns the Meter of ctx, or nil.
func MeterFrom(ctx context.Context) *Meter {
	m, _ := ctx.Value(meterKey{}).(*Meter)
	return m
}

// Sent adds n bytes of request body; a nil Meter ignores it.
func (m *Meter) Sent(n int) {
	if m != nil && n > 0 {
		m.sent.Add(int64(n))
	}
}

// Received adds n bytes of response body; a nil Meter ignores it.
func (m *Meter) Received(n int) {
	if m != nil && n > 0 {
		m.received.Add(int64(n))
	}
}

// Bytes returns the request and response bytes counted so far.
func (m *Meter) Bytes() (sent, received int64) {
	if m == nil {
		return 0, 0
	}
	return m.sent.Load(), m.received.Load()
}
