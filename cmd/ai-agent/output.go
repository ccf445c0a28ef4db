package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/safeid"
)

// execute runs the prepared session and writes its outputs
// (docs/contracts/ai-agent-cli.md §6, §8).
func (s *sessionSetup) execute(ctx context.Context, stdout, stderr io.Writer, resultPath string) int {
	res := s.run(ctx)
	if out := render(res.FinalReport); out != "" {
		_, _ = io.WriteString(stdout, out)
	}
	if !res.Success {
		fmt.Fprintf(stderr, "AGENT FAILED: %s\n", res.Error)
	}
	code := exitOK
	if !res.Success {
		code = exitFailure
	}
	if resultPath != "" {
		if err := writeResultJSON(resultPath, res); err != nil {
			fmt.Fprintf(stderr, "ai-agent: %v\n", err)
			code = exitFailure
		}
	}
	if res.Success {
		if err := s.saveConversations(s.args, res); err != nil {
			fmt.Fprintf(stderr, "ai-agent: %v\n", err)
			code = exitFailure
		}
	}
	if err := appendBilling(s.billingFile, append(s.newAccounting(res), s.children.accounting()...)); err != nil {
		s.log.Warn("billing file not written", "error", err)
	}
	if err := writeSession(s.sessionsDir, s.opts.Trace.OriginTxnID, res); err != nil {
		s.log.Warn("session file not written", "error", err)
	}
	return code
}

var ansiEscape = regexp.MustCompile(`(?i)\\x1b\[|\\u001b\[`)

// render is the stdout text of a final report
// (docs/contracts/ai-agent-cli.md §5, §6); "" prints nothing. A final
// newline is added when missing.
func render(rep *contract.FinalReport) string {
	if rep == nil {
		return ""
	}
	var out string
	switch {
	case rep.Content != nil && (rep.Status == contract.ReportFailure || (rep.Format != agent.FormatJSON && rep.Format != agent.FormatSlack)):
		out = *rep.Content
		if rep.Format == agent.FormatTTY {
			out = ansiEscape.ReplaceAllString(out, "\x1b[")
		}
	case rep.Format == agent.FormatJSON && len(rep.ContentJSON) > 0:
		out = indent(rep.ContentJSON)
	case rep.Format == agent.FormatSlack && len(rep.Messages) > 0:
		b, _ := json.Marshal(rep.Messages)
		out = indent(b)
	}
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out
}

// indent keeps member order and number spelling as received.
func indent(raw []byte) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return buf.String()
}

// writeResultJSON writes the result with 2-space indentation and a final
// newline, through a temporary file and a rename.
func writeResultJSON(path string, res contract.AIAgentResult) error {
	if res.Conversation == nil {
		res.Conversation = []contract.Message{}
	}
	if res.Accounting == nil {
		res.Accounting = []contract.AccountingEntry{}
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	b = append(b, '\n')
	tmp, err := os.CreateTemp(filepath.Dir(path), ".result-*.json")
	if err != nil {
		return fmt.Errorf("write result %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write result %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write result %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write result %s: %w", path, err)
	}
	return nil
}

// appendBilling appends every accounting entry as one JSON line.
func appendBilling(path string, entries []contract.AccountingEntry) error {
	if path == "" || len(entries) == 0 {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("encode accounting: %w", err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("billing dir: %w", err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open billing file: %w", err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("append billing file: %w", err)
	}
	return f.Close()
}

// writeSession writes <originTxnId>.json.gz holding the result, inside
// dir: an id that is not a safe id is refused, and a link in dir that
// leads out of it is not followed.
func writeSession(dir, id string, res contract.AIAgentResult) error {
	if dir == "" || id == "" {
		return nil
	}
	if err := safeid.Check("originTxnId", id); err != nil {
		return fmt.Errorf("write session: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sessions dir: %w", err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(res); err != nil {
		return fmt.Errorf("encode session: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("compress session: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("sessions dir: %w", err)
	}
	defer root.Close()
	if err := root.WriteFile(id+".json.gz", buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write session: %w", err)
	}
	return nil
}
