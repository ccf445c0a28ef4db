package service

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// TestDeadOnEveryDeliveryEndsInError: a job whose worker dies on every
// delivery (it takes the job and never acks nor signals progress) ends in
// error once JetStream's max deliveries are spent, with the reason, and
// leaves the stream.
func TestDeadOnEveryDeliveryEndsInError(t *testing.T) {
	s, _ := newTestServer(t, nil) // ack wait 2s, max deliver 2
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	// Watch subscribes to the advisories on the server's connection: once
	// the subscription is there and a flush went through after it, the
	// NATS server has it too.
	subs := s.Queue.NC.NumSubscriptions()
	go func() { _ = s.Watch(ctx) }()
	waitFor(t, ctx, "the advisory subscription", func() bool { return s.Queue.NC.NumSubscriptions() > subs })
	if err := s.Queue.NC.FlushWithContext(ctx); err != nil {
		t.Fatal(err)
	}
	j, err := s.Queue.Submit(ctx, Request{Repo: "/srv/x.git", Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	deliveries := 0
	for ctx.Err() == nil {
		b, err := s.Queue.Cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for range b.Messages() {
			deliveries++ // and the worker dies: no ack
		}
		got, _, err := s.Queue.Get(ctx, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == StatusError {
			if deliveries != 2 || !strings.Contains(got.Error, "delivered 2 times") {
				t.Fatalf("%d deliveries, error %q", deliveries, got.Error)
			}
			st, _ := s.Queue.JS.Stream(ctx, Stream)
			if info, _ := st.Info(ctx); info.State.Msgs != 0 {
				t.Fatalf("the dead job is still on the stream (%d messages)", info.State.Msgs)
			}
			return
		}
	}
	t.Fatalf("the job never ended in error (%d deliveries)", deliveries)
}
