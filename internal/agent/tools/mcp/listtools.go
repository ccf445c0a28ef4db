package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/agent/tools/toolschema"
)

// Listing is one server's part of the `--list-tools` output.
type Listing struct {
	Server string
	Tools  []tools.Tool
}

// Listing returns the server's tools for [WriteToolList].
func (s *Server) Listing() Listing { return Listing{Server: s.name, Tools: s.Tools()} }

// Summary counts the schema checks of `--schema-validate`.
type Summary struct {
	Passed, Total int
}

// Failed is Total − Passed.
func (s Summary) Failed() int { return s.Total - s.Passed }

// WriteToolList renders listings in the `--list-tools` stdout format of
// docs/contracts/ai-agent-cli.md §2. Each server block ends with an empty
// line:
//
//	MCP server 'NAME':
//	  - TOOL (exposed as NAME__TOOL)
//	    description: TEXT
//	    inputSchema:
//	      <inputSchema, 2-space-indented JSON, every line indented 6 spaces>
//
// A server without tools prints "  (no tools reported)". With a draft, each
// tool gets "    schema validation (DRAFT): OK|FAIL" after its schema, and
// the output ends with "Schema validation summary (DRAFT): P/T passed, F
// failed.".
func WriteToolList(w io.Writer, listings []Listing, draft *toolschema.Draft) (Summary, error) {
	var sum Summary
	var b bytes.Buffer
	for _, l := range listings {
		fmt.Fprintf(&b, "MCP server '%s':\n", l.Server)
		if len(l.Tools) == 0 {
			b.WriteString("  (no tools reported)\n")
		}
		for _, t := range l.Tools {
			writeTool(&b, t, draft, &sum)
		}
		b.WriteString("\n")
	}
	if draft != nil {
		fmt.Fprintf(&b, "Schema validation summary (%s): %d/%d passed, %d failed.\n", draft.Name, sum.Passed, sum.Total, sum.Failed())
	}
	_, err := w.Write(b.Bytes())
	return sum, err
}

// writeTool renders one tool, and its schema check when draft is set.
func writeTool(b *bytes.Buffer, t tools.Tool, draft *toolschema.Draft, sum *Summary) {
	fmt.Fprintf(b, "  - %s (exposed as %s)\n", t.LocalName, t.Name)
	fmt.Fprintf(b, "    description: %s\n", indentContinuation(t.Description, "      "))
	b.WriteString("    inputSchema:\n")
	b.WriteString(indentJSON(t.InputSchema, "      "))
	if draft == nil {
		return
	}
	sum.Total++
	status := "FAIL"
	if draft.Check(t.InputSchema) == nil {
		status = "OK"
		sum.Passed++
	}
	fmt.Fprintf(b, "    schema validation (%s): %s\n", draft.Name, status)
}

// indentJSON pretty-prints raw with 2-space indentation, every line
// prefixed, keeping member order; text that is not JSON is printed as is.
func indentJSON(raw json.RawMessage, prefix string) string {
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(raw), prefix, "  "); err != nil {
		out.Reset()
		out.WriteString(indentContinuation(string(raw), prefix))
	}
	return prefix + out.String() + "\n"
}

func indentContinuation(s, prefix string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// ErrSchemaCheckFailed is returned by [ListTools] when a
// `--schema-validate` check failed; it wraps toolschema.ErrSchema (exit 5).
var ErrSchemaCheckFailed = fmt.Errorf("tool schema validation failed: %w", toolschema.ErrSchema)

// ListTools is `--list-tools`: it starts each server of cfgs in turn, writes
// its listing to w, and closes it. draftName, when not empty, adds the
// schema checks. A server that fails to start is skipped after its error is
// noted; the first such error is returned (exit 3) after every other server
// is listed. A failed schema check returns an error wrapping
// [ErrSchemaCheckFailed] (exit 5). An unknown draft name fails before any
// server starts.
func ListTools(ctx context.Context, w io.Writer, cfgs []ServerConfig, draftName string, opts Options) error {
	var draft *toolschema.Draft
	if draftName != "" {
		d, err := toolschema.ParseDraft(draftName)
		if err != nil {
			return err
		}
		draft = &d
	}
	opts.SkipSchemaCompile = true
	var startErr error
	var total Summary
	var listings []Listing
	for _, cfg := range cfgs {
		s, err := Start(ctx, cfg, opts)
		if err != nil {
			startErr = errors.Join(startErr, err)
			continue
		}
		listings = append(listings, s.Listing())
		_ = s.Close()
	}
	sum, err := WriteToolList(w, listings, draft)
	if err != nil {
		return fmt.Errorf("write tool list: %w", err)
	}
	total.Passed, total.Total = sum.Passed, sum.Total
	if startErr != nil {
		return startErr
	}
	if total.Failed() > 0 {
		return fmt.Errorf("%w: %d of %d failed", ErrSchemaCheckFailed, total.Failed(), total.Total)
	}
	return nil
}
