package service

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// TestSetupQueueFollowsNewSettings: restarting the server with another ack
// wait and max deliveries updates the consumer and the lock expiry.
func TestSetupQueueFollowsNewSettings(t *testing.T) {
	s, _ := newTestServer(t, nil) // ack wait 2s, max deliver 2
	nc, err := nats.Connect(s.Queue.NC.ConnectedUrl())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	q, err := SetupQueue(context.Background(), nc, QueueConfig{AckWait: 7 * time.Second, MaxDeliver: 9})
	if err != nil {
		t.Fatal(err)
	}
	st, err := q.Locks.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if q.AckWait != 7*time.Second || q.MaxDeliver != 9 || st.TTL() != 7*time.Second {
		t.Fatalf("ack wait %s, max deliver %d, lock ttl %s", q.AckWait, q.MaxDeliver, st.TTL())
	}
}
