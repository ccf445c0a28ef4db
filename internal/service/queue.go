package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The JetStream names salve uses. They are shared by the server, which
// creates them, and the workers, which bind to them.
const (
	// Stream is the work-queue stream of heal jobs.
	Stream = "SALVE_JOBS"
	// Subject is the subject jobs are published on.
	Subject = "salve.jobs.heal"
	// Consumer is the durable pull consumer the workers share.
	Consumer = "workers"
	// JobsBucket holds one record per job, keyed by job id.
	JobsBucket = "salve_jobs"
	// LocksBucket holds the per repository+ref locks, expiring after the
	// ack wait when their holder stops refreshing them.
	LocksBucket = "salve_locks"
	// DeliveriesBucket remembers webhook delivery ids, to drop replays.
	DeliveriesBucket = "salve_deliveries"
	// AttemptsBucket counts the webhook jobs per repository and ref, for
	// the attempt cap; its entries expire after the cool-down.
	AttemptsBucket = "salve_attempts"
)

// Defaults of QueueConfig.
const (
	DefaultAckWait    = 30 * time.Second
	DefaultMaxDeliver = 5
)

// QueueConfig sets the stream and consumer up.
type QueueConfig struct {
	// AckWait is how long a job may go without an ack or a progress
	// signal before JetStream redelivers it.
	AckWait time.Duration
	// MaxDeliver is the most deliveries of a job; after it the job is error.
	MaxDeliver int
	// Replicas is the stream and buckets' replication (1 on one server,
	// 3 on a three-node cluster).
	Replicas int
	// Cooldown is how long the attempts bucket remembers a job (default
	// DefaultCooldown): the window of the attempt cap (Policy.Cooldown).
	Cooldown time.Duration
}

// Queue is salve's view of JetStream: the job stream, its consumer and the
// buckets.
type Queue struct {
	NC         *nats.Conn
	JS         jetstream.JetStream
	Jobs       jetstream.KeyValue
	Locks      jetstream.KeyValue
	Deliveries jetstream.KeyValue
	// Attempts is nil on a queue whose server predates the attempt cap
	// (workers do not need it).
	Attempts   jetstream.KeyValue
	Cons       jetstream.Consumer
	AckWait    time.Duration
	MaxDeliver int
}

// SetupQueue creates (or updates) the stream, the consumer and the buckets.
func SetupQueue(ctx context.Context, nc *nats.Conn, c QueueConfig) (*Queue, error) {
	if c.AckWait <= 0 {
		c.AckWait = DefaultAckWait
	}
	if c.MaxDeliver <= 0 {
		c.MaxDeliver = DefaultMaxDeliver
	}
	if c.Replicas <= 0 {
		c.Replicas = 1
	}
	if c.Cooldown <= 0 {
		c.Cooldown = DefaultCooldown
	}
	js, err := jetstream.New(nc, jetstream.WithDefaultTimeout(30*time.Second))
	if err != nil {
		return nil, fmt.Errorf("service: jetstream: %w", err)
	}
	// Create what is missing, and update only what differs: on a cluster,
	// every node's server sets the queue up at start.
	if _, err := js.Stream(ctx, Stream); errors.Is(err, jetstream.ErrStreamNotFound) {
		_, err = js.CreateStream(ctx, jetstream.StreamConfig{
			Name: Stream, Subjects: []string{Subject}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Replicas: c.Replicas, Duplicates: 10 * time.Minute,
		})
		if err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return nil, fmt.Errorf("service: create stream %s: %w", Stream, err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("service: stream %s: %w", Stream, err)
	}
	cc := jetstream.ConsumerConfig{
		Durable: Consumer, AckPolicy: jetstream.AckExplicitPolicy, AckWait: c.AckWait, MaxDeliver: c.MaxDeliver,
		MaxAckPending: 1000, Replicas: c.Replicas,
	}
	cons, err := js.Consumer(ctx, Stream, Consumer)
	switch {
	case errors.Is(err, jetstream.ErrConsumerNotFound):
		_, err = js.CreateConsumer(ctx, Stream, cc)
	case err == nil:
		if info := cons.CachedInfo(); info.Config.AckWait != c.AckWait || info.Config.MaxDeliver != c.MaxDeliver {
			_, err = js.UpdateConsumer(ctx, Stream, cc)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("service: consumer %s: %w", Consumer, err)
	}
	for _, b := range []jetstream.KeyValueConfig{
		{Bucket: JobsBucket, History: 1, Storage: jetstream.FileStorage, Replicas: c.Replicas},
		{Bucket: LocksBucket, History: 1, TTL: c.AckWait, Storage: jetstream.FileStorage, Replicas: c.Replicas},
		{Bucket: DeliveriesBucket, History: 1, TTL: 7 * 24 * time.Hour, Storage: jetstream.FileStorage, Replicas: c.Replicas},
		{Bucket: AttemptsBucket, History: 1, TTL: c.Cooldown, Storage: jetstream.FileStorage, Replicas: c.Replicas},
	} {
		kv, err := js.KeyValue(ctx, b.Bucket)
		switch {
		case errors.Is(err, jetstream.ErrBucketNotFound):
			if _, err := js.CreateKeyValue(ctx, b); err != nil && !errors.Is(err, jetstream.ErrBucketExists) {
				return nil, fmt.Errorf("service: create bucket %s: %w", b.Bucket, err)
			}
		case err != nil:
			return nil, fmt.Errorf("service: bucket %s: %w", b.Bucket, err)
		default:
			// The locks expire after the ack wait, the attempts after the
			// cool-down: follow a changed one.
			if st, err := kv.Status(ctx); err == nil && st.TTL() != b.TTL {
				if _, err := js.UpdateKeyValue(ctx, b); err != nil {
					return nil, fmt.Errorf("service: update bucket %s: %w", b.Bucket, err)
				}
			}
		}
	}
	return OpenQueue(ctx, nc)
}

// OpenQueue binds to the stream, consumer and buckets a server created.
func OpenQueue(ctx context.Context, nc *nats.Conn) (*Queue, error) {
	js, err := jetstream.New(nc, jetstream.WithDefaultTimeout(30*time.Second))
	if err != nil {
		return nil, fmt.Errorf("service: jetstream: %w", err)
	}
	q := &Queue{NC: nc, JS: js}
	if q.Jobs, err = js.KeyValue(ctx, JobsBucket); err != nil {
		return nil, fmt.Errorf("service: bucket %s (is salve serve running?): %w", JobsBucket, err)
	}
	if q.Locks, err = js.KeyValue(ctx, LocksBucket); err != nil {
		return nil, fmt.Errorf("service: bucket %s: %w", LocksBucket, err)
	}
	if q.Deliveries, err = js.KeyValue(ctx, DeliveriesBucket); err != nil {
		return nil, fmt.Errorf("service: bucket %s: %w", DeliveriesBucket, err)
	}
	if q.Attempts, err = js.KeyValue(ctx, AttemptsBucket); errors.Is(err, jetstream.ErrBucketNotFound) {
		q.Attempts = nil
	} else if err != nil {
		return nil, fmt.Errorf("service: bucket %s: %w", AttemptsBucket, err)
	}
	if q.Cons, err = js.Consumer(ctx, Stream, Consumer); err != nil {
		return nil, fmt.Errorf("service: consumer %s: %w", Consumer, err)
	}
	info, err := q.Cons.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("service: consumer info: %w", err)
	}
	q.AckWait, q.MaxDeliver = info.Config.AckWait, info.Config.MaxDeliver
	return q, nil
}

// Message is the body of a job message: the job id and its request, so a
// worker can start without reading the record first. Nothing secret.
type Message struct {
	ID      string  `json:"id"`
	Request Request `json:"request"`
}

// Submit records a new queued job for r and publishes it, deduplicated by
// its id (Nats-Msg-Id), and returns the job.
func (q *Queue) Submit(ctx context.Context, r Request) (*Job, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	now := stamp(time.Now())
	id := strings.ReplaceAll(uuid.NewString(), "-", "")
	j := &Job{ID: id, Request: r, Status: StatusQueued, Branch: BranchFor(id), CreatedAt: now, UpdatedAt: now, Attempts: []Attempt{}}
	b, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	if _, err := q.Jobs.Create(ctx, id, b); err != nil {
		return nil, fmt.Errorf("service: record job: %w", err)
	}
	m, _ := json.Marshal(Message{ID: id, Request: r})
	if _, err := q.JS.PublishMsg(ctx, &nats.Msg{Subject: Subject, Data: m, Header: nats.Header{jetstream.MsgIDHeader: []string{id}}}); err != nil {
		return nil, fmt.Errorf("service: publish job: %w", err)
	}
	return j, nil
}

// maxRecord bounds a job record, under NATS's default message limit.
const maxRecord = 900 << 10

// ErrNotFound is returned for an unknown job.
var ErrNotFound = errors.New("no such job")

// Get returns the job id with its revision.
func (q *Queue) Get(ctx context.Context, id string) (*Job, uint64, error) {
	if id == "" || strings.ContainsAny(id, ".*> \t") {
		return nil, 0, ErrNotFound
	}
	e, err := q.Jobs.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, 0, ErrNotFound
	}
	if err != nil {
		return nil, 0, fmt.Errorf("service: read job %s: %w", id, err)
	}
	var j Job
	if err := json.Unmarshal(e.Value(), &j); err != nil {
		return nil, 0, fmt.Errorf("service: job %s: %w", id, err)
	}
	return &j, e.Revision(), nil
}

// Update applies change to job id with compare-and-set, retrying on a
// concurrent write, and returns the job as stored.
func (q *Queue) Update(ctx context.Context, id string, change func(*Job) error) (*Job, error) {
	for i := 0; ; i++ {
		j, rev, err := q.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := change(j); err != nil {
			return nil, err
		}
		j.UpdatedAt = stamp(time.Now())
		b, err := json.Marshal(j)
		if err != nil {
			return nil, err
		}
		if len(b) > maxRecord && j.Results != nil {
			// NATS messages are bounded (1 MiB by default): keep the
			// record, say where the results went.
			j.Results = nil
			j.Warnings = append(j.Warnings, fmt.Sprintf("the heal's results (%d bytes) are too large for the job record; they are not kept", len(b)))
			if b, err = json.Marshal(j); err != nil {
				return nil, err
			}
		}
		if _, err = q.Jobs.Update(ctx, id, b, rev); err == nil {
			return j, nil
		}
		if i >= 20 || ctx.Err() != nil {
			return nil, fmt.Errorf("service: update job %s: %w", id, err)
		}
	}
}

// Filter selects jobs for List.
type Filter struct {
	Status Status
	Repo   string
	Ref    string
	Offset int
	Limit  int
}

// List returns the jobs that match f, newest first, and how many match.
func (q *Queue) List(ctx context.Context, f Filter) ([]*Job, int, error) {
	lister, err := q.Jobs.ListKeys(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("service: list jobs: %w", err)
	}
	var all []*Job
	for k := range lister.Keys() {
		j, _, err := q.Get(ctx, k)
		if err != nil {
			continue // deleted meanwhile
		}
		if (f.Status != "" && j.Status != f.Status) || (f.Repo != "" && j.Request.Repo != f.Repo) || (f.Ref != "" && j.Request.Ref != f.Ref) {
			continue
		}
		j.Results = nil // the list is a summary; GET /heals/{id} has them
		all = append(all, j)
	}
	slices.SortFunc(all, func(a, b *Job) int {
		if c := strings.Compare(b.CreatedAt, a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	total := len(all)
	if f.Offset > total {
		f.Offset = total
	}
	all = all[f.Offset:]
	if f.Limit > 0 && len(all) > f.Limit {
		all = all[:f.Limit]
	}
	return all, total, nil
}
