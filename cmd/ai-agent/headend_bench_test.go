package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/agent/headend"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// countingProvider counts the LLM requests in flight, to check the
// headend's concurrency bound from the provider's side.
type countingProvider struct {
	llm.Provider
	*counter
}

// counter is shared by every provider client the sessions create.
type counter struct {
	inflight, peak atomic.Int64
}

func (c *countingProvider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	n := c.inflight.Add(1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			break
		}
	}
	defer c.inflight.Add(-1)
	return c.Provider.Complete(ctx, req)
}

// benchServer is ai-agent in headend mode, in process, against a local
// OpenAI-wire mock whose replies take delay.
type benchServer struct {
	url    string
	prov   *counter
	mock   *llmtest.Server
	cancel context.CancelFunc
	done   chan int
	dir    string
}

func startBenchServer(b *testing.B, delay time.Duration, concurrency int) *benchServer {
	b.Helper()
	mock := echoProviderB(b, delay)
	dir := b.TempDir()
	cfg := `{"providers":{"mock":{"type":"openai","baseUrl":"` + mock.OpenAIBaseURL() + `","apiKey":"k"}}}`
	agentFile := "---\ndescription: bench\nmodels: [mock/m1]\n---\nYou answer.\n"
	for name, text := range map[string]string{".ai-agent.json": cfg, "chat.ai": agentFile} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	old, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.Chdir(old) })
	b.Setenv("HOME", filepath.Join(dir, "home"))
	s := &benchServer{done: make(chan int, 1), dir: dir, prov: &counter{}, mock: mock}
	d := defaultDeps()
	inner := d.providers["openai"]
	d.providers["openai"] = func(ps providerSpec) (llm.Provider, error) {
		p, err := inner(ps)
		if err != nil {
			return nil, err
		}
		return &countingProvider{Provider: p, counter: s.prov}, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	pr, pw := io.Pipe()
	args := []string{"--agent", "chat.ai", "--tooling-transport", "native", "--openai-completions", "0",
		"--openai-completions-concurrency", fmt.Sprint(concurrency), "--headend-queue", "1000", "--headend-queue-timeout", "10m",
		"--billing-file", filepath.Join(dir, "billing.jsonl"), "--sessions-dir", filepath.Join(dir, "sessions")}
	go func() {
		s.done <- runWith(ctx, d, args, strings.NewReader(""), io.Discard, pw)
		pw.Close()
	}()
	re := regexp.MustCompile(`listening on (\S+)`)
	buf := make([]byte, 4096)
	var seen bytes.Buffer
	for s.url == "" {
		n, err := pr.Read(buf)
		seen.Write(buf[:n])
		if m := re.FindSubmatch(seen.Bytes()); m != nil {
			s.url = "http://" + string(m[1]) + "/v1/chat/completions"
		}
		if err != nil {
			b.Fatalf("headend did not start: %s", seen.String())
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return s
}

func (s *benchServer) stop(b *testing.B) {
	s.cancel()
	select {
	case code := <-s.done:
		if code != 0 {
			b.Fatalf("exit %d", code)
		}
	case <-time.After(time.Minute):
		b.Fatal("headend did not stop")
	}
}

func echoProviderB(b *testing.B, delay time.Duration) *llmtest.Server {
	srv := llmtest.NewServer()
	b.Cleanup(srv.Close)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "agent__final_report",
			Arguments: `{"report_format":"markdown","report_content":"the answer"}`}}, Usage: &llmtest.Usage{Input: 11, Output: 4}, Delay: delay}
	})
	return srv
}

// fire sends n chat completions at once and returns their latencies.
func fire(b *testing.B, client *http.Client, url string, n int) []time.Duration {
	b.Helper()
	lat := make([]time.Duration, n)
	var wg sync.WaitGroup
	var failed atomic.Int64
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			t0 := time.Now()
			resp, err := client.Post(url, "application/json", strings.NewReader(`{"model":"chat","messages":[{"role":"user","content":"q"}]}`))
			if err != nil {
				failed.Add(1)
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			lat[i] = time.Since(t0)
			if resp.StatusCode != 200 || !bytes.Contains(body, []byte("the answer")) {
				failed.Add(1)
			}
		}(i)
	}
	close(start)
	wg.Wait()
	if f := failed.Load(); f > 0 {
		b.Fatalf("%d of %d requests failed", f, n)
	}
	return lat
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(float64(len(s)-1)*p)]
}

func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 1000, MaxIdleConnsPerHost: 1000, IdleConnTimeout: time.Second}}
}

// BenchmarkHeadendLoad: 200 concurrent chat completions through
// --openai-completions with concurrency 8 against a local mock provider
// answering in 20 ms. Reports the peak sessions in flight at the provider
// (the bound), the latency percentiles, and the goroutines left after
// shutdown. Not part of `make test`; run with
//
//	go test -run '^$' -bench HeadendLoad -benchtime 3x ./cmd/ai-agent
func BenchmarkHeadendLoad(b *testing.B) {
	before := runtime.NumGoroutine()
	s := startBenchServer(b, 20*time.Millisecond, 8)
	client := benchClient()
	var all []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		all = append(all, fire(b, client, s.url, 200)...)
	}
	b.StopTimer()
	peak := s.prov.peak.Load()
	client.CloseIdleConnections()
	s.stop(b)
	// Close the pooled keep-alive connections of the sessions' provider
	// clients and the mock, then count what is left.
	s.mock.Close()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	time.Sleep(500 * time.Millisecond)
	after := runtime.NumGoroutine()
	if after > before {
		buf := make([]byte, 1<<20)
		b.Logf("goroutines left:\n%s", buf[:runtime.Stack(buf, true)])
	}
	b.ReportMetric(float64(peak), "peak-inflight")
	b.ReportMetric(float64(percentile(all, 0.5).Milliseconds()), "p50-ms")
	b.ReportMetric(float64(percentile(all, 0.99).Milliseconds()), "p99-ms")
	b.ReportMetric(float64(after-before), "goroutines-left")
	if peak > 8 {
		b.Fatalf("the concurrency bound was not held: %d sessions in flight", peak)
	}
}

// BenchmarkHeadendOverhead: the latency a request through the OpenAI
// headend adds over a direct session of the same agent (the same runner,
// called in process), one request at a time, provider answering at once.
//
//	go test -run '^$' -bench HeadendOverhead -benchtime 2000x ./cmd/ai-agent
func BenchmarkHeadendOverhead(b *testing.B) {
	s := startBenchServer(b, 0, 8)
	defer s.stop(b)
	client := benchClient()
	sa, err := loadServed(context.Background(), defaultDeps(), &cliArgs{values: map[string]string{
		"tooling-transport": "native", "billing-file": filepath.Join(s.dir, "b2.jsonl"), "sessions-dir": filepath.Join(s.dir, "s2"),
	}, lists: map[string][]string{}, bools: map[string]bool{}}, "chat.ai", io.Discard, discardLogger(), &sync.Mutex{})
	if err != nil {
		b.Fatal(err)
	}
	defer sa.tpl.close()
	direct := make([]time.Duration, 0, b.N)
	served := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := sa.run(context.Background(), headend.Request{ID: fmt.Sprint("direct-", i), Prompt: "q"})
		if err != nil || !res.Success {
			b.Fatalf("direct session: %v %s", err, res.Error)
		}
		direct = append(direct, time.Since(t0))
		served = append(served, fire(b, client, s.url, 1)[0])
	}
	b.StopTimer()
	for _, p := range []float64{0.5, 0.99} {
		d, h := percentile(direct, p), percentile(served, p)
		b.ReportMetric(float64(d.Microseconds()), fmt.Sprintf("direct-p%.0f-µs", p*100))
		b.ReportMetric(float64(h.Microseconds()), fmt.Sprintf("headend-p%.0f-µs", p*100))
		b.ReportMetric(float64((h - d).Microseconds()), fmt.Sprintf("added-p%.0f-µs", p*100))
	}
}

// BenchmarkHeadendMemory: heap and goroutines per in-flight session, with
// 200 sessions held in flight at once (concurrency 200, provider answering
// after 3 s).
//
//	go test -run '^$' -bench HeadendMemory -benchtime 1x ./cmd/ai-agent
func BenchmarkHeadendMemory(b *testing.B) {
	const n = 200
	s := startBenchServer(b, 3*time.Second, n)
	client := benchClient()
	var perSession, gorPerSession float64
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var idle runtime.MemStats
		runtime.ReadMemStats(&idle)
		g0 := runtime.NumGoroutine()
		done := make(chan struct{})
		go func() { fire(b, client, s.url, n); close(done) }()
		deadline := time.Now().Add(30 * time.Second)
		for s.prov.inflight.Load() < n && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if got := s.prov.inflight.Load(); got < n {
			b.Fatalf("only %d sessions in flight", got)
		}
		runtime.GC()
		var busy runtime.MemStats
		runtime.ReadMemStats(&busy)
		// The client side (n goroutines and connections in this process)
		// is counted too, so these are upper bounds.
		perSession = float64(int64(busy.HeapInuse)-int64(idle.HeapInuse)) / n
		gorPerSession = float64(runtime.NumGoroutine()-g0) / n
		<-done
	}
	client.CloseIdleConnections()
	s.stop(b)
	b.ReportMetric(perSession/1024, "heap-KiB/session")
	b.ReportMetric(gorPerSession, "goroutines/session")
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
