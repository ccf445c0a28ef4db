package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ErrNoAttemptsBucket is returned by TakeAttempt on a queue without the
// attempts bucket (set up by a server that predates the cap).
var ErrNoAttemptsBucket = errors.New("the queue has no attempts bucket; restart salve serve to create it")

// attemptsRecord is the value of one attempts-bucket key: when each job
// of the window was queued, in Unix nanoseconds.
type attemptsRecord struct {
	At []int64 `json:"at"`
}

// attemptsKey is the attempts-bucket key of a repository and ref.
func attemptsKey(repo, ref string) string {
	h := sha256.Sum256([]byte(repo + "\x00" + ref))
	return "att_" + hex.EncodeToString(h[:16])
}

// TakeAttempt counts one more job on repo and ref when fewer than limit were
// counted within window before now, and reports whether it did. The
// count lives in the attempts bucket, written with compare-and-set, so
// servers sharing the queue share the cap. release takes the attempt back
// (for a job that could not be queued); it is nil when ok is false.
func (q *Queue) TakeAttempt(ctx context.Context, repo, ref string, limit int, window time.Duration, now time.Time) (ok bool, release func(), err error) {
	if q.Attempts == nil {
		return false, nil, ErrNoAttemptsBucket
	}
	key := attemptsKey(repo, ref)
	stamp := now.UnixNano()
	for i := 0; i < 20; i++ {
		var rec attemptsRecord
		var rev uint64
		e, err := q.Attempts.Get(ctx, key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			return false, nil, fmt.Errorf("service: read attempts: %w", err)
		default:
			rev = e.Revision()
			_ = json.Unmarshal(e.Value(), &rec) // a damaged record starts afresh
		}
		rec.At = slices.DeleteFunc(rec.At, func(t int64) bool { return now.Sub(time.Unix(0, t)) >= window })
		if len(rec.At) >= limit {
			return false, nil, nil
		}
		rec.At = append(rec.At, stamp)
		b, _ := json.Marshal(rec)
		if rev == 0 {
			_, err = q.Attempts.Create(ctx, key, b)
		} else {
			_, err = q.Attempts.Update(ctx, key, b, rev)
		}
		if err == nil {
			return true, func() { q.dropAttempt(context.WithoutCancel(ctx), key, stamp) }, nil
		}
		if ctx.Err() != nil {
			return false, nil, ctx.Err()
		}
	}
	return false, nil, fmt.Errorf("service: attempts of %s: too many concurrent writers", key)
}

// dropAttempt removes the attempt stamped at from key, best effort.
func (q *Queue) dropAttempt(ctx context.Context, key string, at int64) {
	for i := 0; i < 20; i++ {
		e, err := q.Attempts.Get(ctx, key)
		if err != nil {
			return
		}
		var rec attemptsRecord
		if json.Unmarshal(e.Value(), &rec) != nil {
			return
		}
		rec.At = slices.DeleteFunc(rec.At, func(t int64) bool { return t == at })
		b, _ := json.Marshal(rec)
		if _, err := q.Attempts.Update(ctx, key, b, e.Revision()); err == nil {
			return
		}
	}
}
