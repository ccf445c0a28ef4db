package export

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	"github.com/salve-dev/salve/internal/agent/telemetry"
)

// Bounds of the log export. The queue holds the records not yet sent; a
// record that finds it full is dropped and counted, so a slow or dead
// collector costs the run memory up to the bound and never time.
const (
	logQueueSize = 2048
	logBatchSize = 512
	// logInterval is how long a record waits for its batch to fill; a
	// CLI run sends sooner, as its spans do.
	logInterval    = time.Second
	logIntervalCLI = 200 * time.Millisecond
	// Default collectors when no endpoint is set, the OTLP defaults.
	defaultGRPCLogs = "localhost:4317"
	defaultHTTPLogs = "localhost:4318"
)

// logExporter batches log records and sends them over OTLP: the
// LogsService over gRPC, or protobuf POSTs to /v1/logs over HTTP. A batch
// that fails is logged (once until one succeeds again) and dropped, as the
// original's CLI mode does.
type logExporter struct {
	log      *slog.Logger
	send     func(ctx context.Context, req *collogs.ExportLogsServiceRequest) error
	close    func() error
	timeout  time.Duration
	interval time.Duration
	resource *resourcepb.Resource
	labels   []*commonpb.KeyValue

	in      chan telemetry.LogRecord
	done    chan struct{}
	dropped atomic.Uint64
	failed  atomic.Uint64
	failing bool
}

// startLogs starts the log export of the settings.
func (r *Recorder) startLogs() error {
	set := r.set
	ep, proto, timeout := set.LogsEndpoint, set.LogsProtocol, set.LogsTimeout
	if ep == "" {
		ep = set.Endpoint
	}
	if proto == "" {
		proto = set.Protocol
	}
	if timeout <= 0 {
		timeout = set.Timeout
	}
	host, path, plain, err := splitEndpoint(ep)
	if err != nil {
		return fmt.Errorf("telemetry: log exporter: %w", err)
	}
	e := &logExporter{log: r.log, timeout: timeout, interval: logInterval, resource: protoResource(r),
		in: make(chan telemetry.LogRecord, logQueueSize), done: make(chan struct{})}
	if set.Mode == telemetry.ModeCLI {
		e.interval = logIntervalCLI
	}
	for k, v := range constLabels(set) {
		e.labels = append(e.labels, kv("label."+k, v))
	}
	switch proto {
	case telemetry.ProtocolHTTP:
		if host == "" {
			host, path, plain = defaultHTTPLogs, "", true
		}
		scheme := "https"
		if plain {
			scheme = "http"
		}
		url := scheme + "://" + host + logsPath(path)
		client := &http.Client{Timeout: timeout}
		e.send = func(ctx context.Context, req *collogs.ExportLogsServiceRequest) error {
			return postLogs(ctx, client, url, req)
		}
		e.close = func() error { client.CloseIdleConnections(); return nil }
	case telemetry.ProtocolGRPC, "":
		if host == "" {
			host, plain = defaultGRPCLogs, true
		}
		creds := credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
		if plain {
			creds = insecure.NewCredentials()
		}
		conn, err := grpc.NewClient(host, grpc.WithTransportCredentials(creds))
		if err != nil {
			return fmt.Errorf("telemetry: log exporter: %w", err)
		}
		client := collogs.NewLogsServiceClient(conn)
		e.send = func(ctx context.Context, req *collogs.ExportLogsServiceRequest) error {
			_, err := client.Export(ctx, req)
			return err
		}
		e.close = conn.Close
	default:
		return fmt.Errorf("telemetry: log exporter: unknown OTLP protocol %q (grpc or http/protobuf)", proto)
	}
	r.logs = e
	go e.run()
	return nil
}

// logsPath is the logs path beside a traces path: …/v1/traces becomes
// …/v1/logs, and any other path gets /v1/logs after it.
func logsPath(tracesPath string) string {
	return strings.TrimSuffix(strings.TrimRight(tracesPath, "/"), "/v1/traces") + "/v1/logs"
}

// emit queues one record, or drops and counts it when the queue is full.
// It never blocks.
func (e *logExporter) emit(rec telemetry.LogRecord) {
	select {
	case e.in <- rec:
	default:
		e.dropped.Add(1)
	}
}

// run sends the queued records in batches until the queue is closed,
// then sends what is left.
func (e *logExporter) run() {
	defer close(e.done)
	tick := time.NewTicker(e.interval)
	defer tick.Stop()
	batch := make([]*logspb.LogRecord, 0, logBatchSize)
	flush := func() {
		if len(batch) > 0 {
			e.export(batch)
			batch = make([]*logspb.LogRecord, 0, logBatchSize)
		}
	}
	for {
		select {
		case rec, ok := <-e.in:
			if !ok {
				flush()
				e.drain()
				return
			}
			batch = append(batch, e.record(rec))
			if len(batch) >= logBatchSize {
				flush()
			}
		case <-tick.C:
			flush()
		}
	}
}

// drain sends what is left after the queue closed, in batches, unless
// the collector is failing: then the rest is dropped and counted, so the
// run's end waits for at most one more timeout.
func (e *logExporter) drain() {
	for {
		if e.failing {
			e.failed.Add(uint64(len(e.in)))
			return
		}
		batch := make([]*logspb.LogRecord, 0, logBatchSize)
		for len(batch) < logBatchSize {
			rec, ok := <-e.in
			if !ok {
				break
			}
			batch = append(batch, e.record(rec))
		}
		if len(batch) == 0 {
			return
		}
		e.export(batch)
	}
}

// export sends one batch, bounded by the timeout.
func (e *logExporter) export(batch []*logspb.LogRecord) {
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	req := &collogs.ExportLogsServiceRequest{ResourceLogs: []*logspb.ResourceLogs{{
		Resource:  e.resource,
		ScopeLogs: []*logspb.ScopeLogs{{Scope: &commonpb.InstrumentationScope{Name: "ai-agent"}, LogRecords: batch}},
	}}}
	if err := e.send(ctx, req); err != nil {
		e.failed.Add(uint64(len(batch)))
		if !e.failing {
			e.failing = true
			e.log.Warn("telemetry: OTLP log export failed (dropping batch)", "error", err)
		}
		return
	}
	e.failing = false
}

// record is rec in the OTLP form: the message as the body, the severity
// code and number, the record's attributes and the telemetry labels as
// label.<key>.
func (e *logExporter) record(rec telemetry.LogRecord) *logspb.LogRecord {
	t := uint64(rec.Time.UnixNano())
	out := &logspb.LogRecord{TimeUnixNano: t, ObservedTimeUnixNano: t,
		SeverityNumber: logspb.SeverityNumber(rec.SeverityNumber), SeverityText: rec.Severity,
		Body:       &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: rec.Message}},
		Attributes: make([]*commonpb.KeyValue, 0, len(rec.Attrs)+len(e.labels))}
	for k, v := range rec.Attrs {
		out.Attributes = append(out.Attributes, kv(k, v))
	}
	out.Attributes = append(out.Attributes, e.labels...)
	return out
}

// shutdown sends the records still queued and stops, within ctx; it says
// how many records were dropped.
func (e *logExporter) shutdown(ctx context.Context) error {
	close(e.in)
	var err error
	select {
	case <-e.done:
	case <-ctx.Done():
		err = fmt.Errorf("telemetry: flush logs: %w", ctx.Err())
	}
	if n := e.dropped.Load() + e.failed.Load(); n > 0 {
		e.log.Warn("telemetry: OTLP log records dropped", "queue_full", e.dropped.Load(), "export_failed", e.failed.Load())
	}
	_ = e.close()
	return err
}

// postLogs POSTs one request in protobuf to url.
func postLogs(ctx context.Context, c *http.Client, url string, req *collogs.ExportLogsServiceRequest) error {
	body, err := proto.Marshal(req)
	if err != nil {
		return err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	hr.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := c.Do(hr)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("OTLP logs: %s", resp.Status)
	}
	return nil
}

func kv(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

// protoResource is the Recorder's resource (service.name, service.version
// and the telemetry labels) in the OTLP form.
func protoResource(r *Recorder) *resourcepb.Resource {
	out := &resourcepb.Resource{}
	for _, a := range r.resource().Attributes() {
		out.Attributes = append(out.Attributes, kv(string(a.Key), a.Value.String()))
	}
	return out
}
