// Package fetch downloads feeds, retrying what a server asks to be
// retried.
package fetch

import "time"

// Retryable reports whether a response with the given HTTP status may be
// retried: status 429 (too many requests), and every status from 500 to
// 599 but 501 (not implemented), which no retry will change.
func Retryable(status int) bool {
	return status >= 500 && status <= 599 && status != 501
}

// Backoff returns how long to wait before retry n, doubling from 100ms
// and capped at 10s.
func Backoff(n int) time.Duration {
	d := 100 * time.Millisecond << n
	if d <= 0 || d > 10*time.Second {
		return 10 * time.Second
	}
	return d
}
