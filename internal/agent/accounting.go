package agent

import (
	"sync"
	"time"
	"unicode/utf8"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
)

// ledger collects accounting entries in chronological order; it is safe for
// the concurrent tool calls of one turn.
type ledger struct {
	mu      sync.Mutex
	trace   Trace
	entries []contract.AccountingEntry
}

func (l *ledger) add(e contract.AccountingEntry) {
	e.AgentID, e.CallPath, e.TxnID = l.trace.AgentID, l.trace.CallPath, l.trace.TxnID
	e.ParentTxnID, e.OriginTxnID = l.trace.ParentTxnID, l.trace.OriginTxnID
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, e)
}

func (l *ledger) all() []contract.AccountingEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]contract.AccountingEntry, len(l.entries))
	copy(out, l.entries)
	return out
}

// llmEntry is the accounting entry of one LLM attempt
// (docs/contracts/ai-agent-cli.md §8.4). Failed attempts carry zero tokens.
func llmEntry(t Target, start time.Time, latency time.Duration, resp llm.Response, err error) contract.AccountingEntry {
	e := contract.AccountingEntry{
		Type:      contract.AccountingLLM,
		Provider:  t.Provider,
		Model:     t.Model,
		Latency:   latency.Milliseconds(),
		Timestamp: start.UnixMilli(),
	}
	if err != nil {
		e.Status = contract.AccountingFail
		e.Error = llm.AsError(err).Message
		if e.Error == "" {
			e.Error = err.Error()
		}
		e.Tokens = &contract.TokenUsage{}
		return e
	}
	e.Status = contract.AccountingOK
	usage := resp.Usage
	if usage.TotalTokens == 0 {
		usage.TotalTokens = usage.InputTokens + usage.OutputTokens
	}
	e.Tokens = &usage
	e.StopReason = resp.StopReason
	e.CostUSD = resp.CostUSD
	e.ActualProvider = resp.ActualProvider
	e.ActualModel = resp.ActualModel
	return e
}

// toolEntry is the accounting entry of one executed tool call.
type toolEntry struct {
	server, command, source string
	start                   time.Time
	latency                 time.Duration
	args                    string
	output                  string
	err                     string
	queue                   string
	queueWait               *time.Duration
	queueDepth              *int
}

func (t toolEntry) entry() contract.AccountingEntry {
	in := utf8.RuneCountInString(t.args)
	out := 0
	status := contract.AccountingOK
	if t.err != "" {
		status = contract.AccountingFail
	} else {
		out = utf8.RuneCountInString(t.output)
	}
	e := contract.AccountingEntry{
		Type:          contract.AccountingTool,
		Status:        status,
		Latency:       t.latency.Milliseconds(),
		Timestamp:     t.start.UnixMilli(),
		Error:         t.err,
		MCPServer:     t.server,
		Command:       t.command,
		CharactersIn:  &in,
		CharactersOut: &out,
		Source:        t.source,
		Queue:         t.queue,
		QueueDepth:    t.queueDepth,
	}
	if t.queueWait != nil {
		ms := t.queueWait.Milliseconds()
		e.QueueWaitMs = &ms
	}
	return e
}
