// Package tokenbucket is a token-bucket rate limiter with an injectable
// clock.
package tokenbucket

import (
	"errors"
	"time"
)

// Config sets a bucket's refill rate and size.
type Config struct {
	Rate  float64 // tokens per second
	Burst int     // the most tokens the bucket holds
}

// Bucket hands out tokens at Config.Rate, up to Config.Burst at once.
type Bucket struct {
	cfg    Config
	tokens float64
	last   time.Time
	now    func() time.Time
}

// New returns a full bucket.
func New(cfg Config, now func() time.Time) (*Bucket, error) {
	if cfg.Rate <= 0 || cfg.Burst < 1 {
		return nil, errors.New("tokenbucket: rate and burst must be positive")
	}
	if now == nil {
		now = time.Now
	}
	return &Bucket{cfg: cfg, tokens: float64(cfg.Burst), last: now(), now: now}, nil
}

// Allow takes a token if one is left.
func (b *Bucket) Allow() bool {
	t := b.now()
	b.tokens += t.Sub(b.last).Seconds() * b.cfg.Rate
	if max := float64(b.cfg.Burst); b.tokens > max {
		b.tokens = max
	}
	b.last = t
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
