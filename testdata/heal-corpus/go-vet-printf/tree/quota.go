// Package quota tracks per-user storage quotas.
package quota

import "fmt"

// Quota is one user's allowance, in bytes.
type Quota struct {
	User  string
	Limit int64
	Used  int64
}

// Reserve takes n bytes from q, or fails when the quota would be exceeded.
func (q *Quota) Reserve(n int64) error {
	if n < 0 {
		return fmt.Errorf("quota: negative reservation %d", n)
	}
	if q.Used+n > q.Limit {
		return fmt.Errorf("quota: user %d would use %d of %d bytes", q.User, q.Used+n, q.Limit)
	}
	q.Used += n
	return nil
}

// Free returns the bytes left.
func (q *Quota) Free() int64 { return q.Limit - q.Used }
