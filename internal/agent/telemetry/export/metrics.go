package export

import (
	"math"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// buckets are the OTel SDK's default histogram boundaries, which the
// original's histograms use (milliseconds, or turns).
var buckets = []float64{0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000}

// Label sets of the metric families (docs/ai-agent.md "Telemetry and
// cost").
var (
	llmLabels    = []string{"agent", "call_path", "provider", "model", "headend", "status", "reasoning_level"}
	toolLabels   = []string{"agent", "call_path", "tool", "tool_kind", "provider", "headend", "status"}
	guardLabels  = []string{"agent", "call_path", "provider", "model", "trigger", "outcome", "headend"}
	queueLabels  = []string{"queue", "capacity"}
	reportLabels = []string{"agent", "call_path", "headend", "source", "forced_final_reason", "synthetic_reason"}
)

// metrics are the metric families on the Recorder's private registry.
type metrics struct {
	reg *prometheus.Registry

	llmLatency    *prometheus.HistogramVec
	llmRequests   *prometheus.CounterVec
	llmPrompt     *prometheus.CounterVec
	llmCompletion *prometheus.CounterVec
	llmCacheRead  *prometheus.CounterVec
	llmCacheWrite *prometheus.CounterVec
	llmCost       *prometheus.CounterVec
	llmErrors     *prometheus.CounterVec
	llmBytesIn    *prometheus.CounterVec
	llmBytesOut   *prometheus.CounterVec
	llmRetries    *prometheus.CounterVec

	toolLatency *prometheus.HistogramVec
	toolCalls   *prometheus.CounterVec
	toolIn      *prometheus.CounterVec
	toolOut     *prometheus.CounterVec
	toolErrors  *prometheus.CounterVec

	queueDepth    *prometheus.GaugeVec
	queueInUse    *prometheus.GaugeVec
	queueLastWait *prometheus.GaugeVec
	queueWait     *prometheus.HistogramVec

	guardEvents    *prometheus.CounterVec
	guardRemaining *prometheus.GaugeVec

	reportTotal    *prometheus.CounterVec
	reportAttempts *prometheus.CounterVec
	reportTurns    *prometheus.HistogramVec

	retryCollapse *prometheus.CounterVec

	mcpUp       *prometheus.GaugeVec
	mcpRestarts *prometheus.CounterVec
}

func newMetrics(constLabels prometheus.Labels) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	counter := func(name, help string, labels []string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: constLabels}, labels)
		m.reg.MustRegister(c)
		return c
	}
	histogram := func(name, help string, labels []string) *prometheus.HistogramVec {
		h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, ConstLabels: constLabels, Buckets: buckets}, labels)
		m.reg.MustRegister(h)
		return h
	}
	gauge := func(name, help string, labels []string) *prometheus.GaugeVec {
		g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: constLabels}, labels)
		m.reg.MustRegister(g)
		return g
	}
	m.llmLatency = histogram("ai_agent_llm_latency_ms", "LLM request latency in milliseconds.", llmLabels)
	m.llmRequests = counter("ai_agent_llm_requests_total", "LLM requests.", llmLabels)
	m.llmPrompt = counter("ai_agent_llm_prompt_tokens_total", "LLM prompt (input) tokens.", llmLabels)
	m.llmCompletion = counter("ai_agent_llm_completion_tokens_total", "LLM completion (output) tokens.", llmLabels)
	m.llmCacheRead = counter("ai_agent_llm_cache_read_tokens_total", "LLM cache-read input tokens.", llmLabels)
	m.llmCacheWrite = counter("ai_agent_llm_cache_write_tokens_total", "LLM cache-write input tokens.", llmLabels)
	m.llmCost = counter("ai_agent_llm_cost_usd_total", "LLM cost in USD (reported by the provider, else from the pricing table).", llmLabels)
	m.llmErrors = counter("ai_agent_llm_errors_total", "Failed LLM requests.", append(append([]string{}, llmLabels...), "error_type"))
	m.llmBytesIn = counter("ai_agent_llm_bytes_in_total", "Bytes of LLM request bodies sent.", llmLabels)
	m.llmBytesOut = counter("ai_agent_llm_bytes_out_total", "Bytes of LLM response bodies read.", llmLabels)
	m.llmRetries = counter("ai_agent_llm_retries_total", "LLM attempts that retried a turn's request.", llmLabels)

	m.toolLatency = histogram("ai_agent_tool_latency_ms", "Tool call latency in milliseconds.", toolLabels)
	m.toolCalls = counter("ai_agent_tool_invocations_total", "Tool calls.", toolLabels)
	m.toolIn = counter("ai_agent_tool_bytes_in_total", "Bytes of tool arguments.", toolLabels)
	m.toolOut = counter("ai_agent_tool_bytes_out_total", "Bytes of tool results.", toolLabels)
	m.toolErrors = counter("ai_agent_tool_errors_total", "Failed tool calls.", append(append([]string{}, toolLabels...), "error_type"))

	m.queueDepth = gauge("ai_agent_queue_depth", "Tool calls waiting for a queue slot.", queueLabels)
	m.queueInUse = gauge("ai_agent_queue_in_use", "Queue slots held by running tool calls.", queueLabels)
	m.queueLastWait = gauge("ai_agent_queue_last_wait_ms", "The last wait for a queue slot in milliseconds.", []string{"queue"})
	m.queueWait = histogram("ai_agent_queue_wait_duration_ms", "Waits for a queue slot in milliseconds.", []string{"queue"})

	m.guardEvents = counter("ai_agent_context_guard_events_total", "Context guard activations.", guardLabels)
	m.guardRemaining = gauge("ai_agent_context_guard_remaining_tokens", "Tokens left under the limit when the context guard last activated.", guardLabels)

	m.reportTotal = counter("ai_agent_final_report_total", "Accepted final reports.", reportLabels)
	m.reportAttempts = counter("ai_agent_final_report_attempts_total", "Final report attempts.", reportLabels)
	m.reportTurns = histogram("ai_agent_final_report_turns", "Turns completed at the final report.", reportLabels)

	m.retryCollapse = counter("ai_agent_retry_collapse_total", "Times the remaining turns were collapsed.", []string{"agent", "call_path", "headend", "reason"})

	// A salve addition: the original reports its shared servers' restarts
	// in its logs only.
	m.mcpUp = gauge("ai_agent_mcp_server_up", "Whether a headend's shared MCP server is up (1) or down and being restarted (0).", []string{"agent", "server"})
	m.mcpRestarts = counter("ai_agent_mcp_server_restarts_total", "Restart attempts of a headend's shared MCP servers, by outcome.", []string{"agent", "server", "status"})
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// addPositive adds v when it is a finite positive number.
func addPositive(c prometheus.Counter, v float64) {
	if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
		c.Add(v)
	}
}
