package agent

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/schemacheck"
)

// Internal tool names (docs/contracts/ai-agent-cli.md §11).
const (
	ToolFinalReport    = "agent__final_report"
	ToolFinalReportXML = "agent__final_report_xml"
	ToolProgress       = "agent__progress_report"
	ToolBatch          = "agent__batch"
)

// errReport is the category of every final-report rejection.
var errReport = errors.New("final report rejected")

// reportInput is a final report as the model supplied it, before the system
// decides its status and normalises its format.
type reportInput struct {
	Format      string
	Content     *string
	Encoding    string
	ContentJSON json.RawMessage
	Messages    json.RawMessage
	Metadata    json.RawMessage
}

// reportFromArgs reads the agent__final_report arguments, with the aliases
// format and content (docs/contracts/ai-agent-cli.md §11).
func reportFromArgs(args json.RawMessage) (reportInput, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(args, &raw); err != nil {
		return reportInput{}, fmt.Errorf("%w: arguments are not an object: %v", errReport, err)
	}
	var in reportInput
	in.Format = jsonString(raw["report_format"])
	if in.Format == "" {
		in.Format = jsonString(raw["format"])
	}
	for _, k := range []string{"report_content", "content"} {
		if v, ok := raw[k]; ok {
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return in, fmt.Errorf("%w: %s is not a string", errReport, k)
			}
			in.Content = &s
			break
		}
	}
	in.Encoding = jsonString(raw["encoding"])
	in.ContentJSON = raw["content_json"]
	in.Messages = raw["messages"]
	in.Metadata = raw["metadata"]
	return in, nil
}

func jsonString(v json.RawMessage) string {
	var s string
	if len(v) == 0 || json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// buildReport turns a model-provided report into the final report of the
// session (docs/contracts/ai-agent.md §5): status success, the session's
// format, the content field of that format, validated. Errors wrap
// errReport.
func (s *session) buildReport(in reportInput) (*contract.FinalReport, error) {
	format := s.opts.Format
	if in.Format != "" {
		if got, err := CanonicalFormat(in.Format); err != nil || got != format {
			s.log.Warn("final report format normalised", "given", in.Format, "expected", format)
		}
	}
	rep := &contract.FinalReport{Status: contract.ReportSuccess, Format: format, TS: s.opts.Now().UnixMilli()}
	if len(in.Metadata) > 0 && !bytes.Equal(bytes.TrimSpace(in.Metadata), []byte("null")) {
		var md map[string]any
		if err := json.Unmarshal(in.Metadata, &md); err != nil {
			return nil, fmt.Errorf("%w: metadata is not an object", errReport)
		}
		rep.Metadata = md
	}
	content, err := decodeContent(in)
	if err != nil {
		return nil, err
	}
	switch format {
	case FormatJSON:
		cj, err := s.reportJSON(in.ContentJSON, content)
		if err != nil {
			return nil, err
		}
		rep.ContentJSON = cj
	case FormatSlack:
		msgs, err := slackMessages(in.Messages, content)
		if err != nil {
			return nil, err
		}
		rep.Messages = msgs
	default:
		if content == nil || strings.TrimSpace(*content) == "" {
			return nil, fmt.Errorf("%w: report_content is empty", errReport)
		}
		rep.Content = content
	}
	return rep, nil
}

// decodeContent applies encoding: raw (the default) or base64.
func decodeContent(in reportInput) (*string, error) {
	switch strings.ToLower(in.Encoding) {
	case "", "raw":
		return in.Content, nil
	case "base64":
		if in.Content == nil {
			return nil, fmt.Errorf("%w: encoding base64 without report_content", errReport)
		}
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(*in.Content))
		if err != nil {
			return nil, fmt.Errorf("%w: bad base64 report_content: %v", errReport, err)
		}
		out := string(b)
		return &out, nil
	default:
		return nil, fmt.Errorf("%w: unknown encoding %q", errReport, in.Encoding)
	}
}

// reportJSON validates content_json (or, failing that, content parsed as
// JSON) against the output schema, with the repair loop for stringified
// nested JSON. The accepted value keeps its member order when no repair was
// needed.
func (s *session) reportJSON(cj json.RawMessage, content *string) (json.RawMessage, error) {
	raw := bytes.TrimSpace(cj)
	if len(raw) == 0 && content != nil {
		raw = []byte(strings.TrimSpace(*content))
	}
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, fmt.Errorf("%w: content_json is missing", errReport)
	}
	if raw[0] == '"' {
		var str string
		if err := json.Unmarshal(raw, &str); err != nil {
			return nil, fmt.Errorf("%w: content_json: %v", errReport, err)
		}
		raw = []byte(strings.TrimSpace(str))
	}
	v, err := schemacheck.Decode(raw)
	if err != nil {
		fixed, _, rerr := tools.ParseArguments(string(raw))
		if rerr != nil {
			return nil, fmt.Errorf("%w: content_json is not JSON: %v", errReport, err)
		}
		raw = fixed
		if v, err = schemacheck.Decode(raw); err != nil {
			return nil, fmt.Errorf("%w: content_json is not JSON: %v", errReport, err)
		}
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("%w: content_json is not an object", errReport)
	}
	accepted, steps, err := validateWithRepair(s.schema, v)
	if err != nil {
		return nil, fmt.Errorf("%w: content_json does not match the schema: %s", errReport, oneLine(err.Error()))
	}
	if len(steps) == 0 {
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			return buf.Bytes(), nil
		}
	}
	s.log.Warn("content_json repaired", "paths", steps)
	out, err := json.Marshal(accepted)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errReport, err)
	}
	return out, nil
}

// slackMessages reads the messages array, or makes one mrkdwn section of the
// content when messages is absent.
func slackMessages(msgs json.RawMessage, content *string) ([]json.RawMessage, error) {
	msgs = bytes.TrimSpace(msgs)
	if len(msgs) > 0 && msgs[0] == '"' {
		var s string
		if json.Unmarshal(msgs, &s) == nil {
			msgs = []byte(strings.TrimSpace(s))
		}
	}
	if len(msgs) == 0 || bytes.Equal(msgs, []byte("null")) {
		if content == nil || strings.TrimSpace(*content) == "" {
			return nil, fmt.Errorf("%w: messages and report_content are both empty", errReport)
		}
		section, _ := json.Marshal(map[string]any{"blocks": []any{map[string]any{
			"type": "section", "text": map[string]any{"type": "mrkdwn", "text": *content}}}})
		return []json.RawMessage{section}, nil
	}
	var wrapped struct {
		Messages []json.RawMessage `json:"messages"`
	}
	var list []json.RawMessage
	if err := json.Unmarshal(msgs, &list); err != nil {
		if err2 := json.Unmarshal(msgs, &wrapped); err2 != nil || wrapped.Messages == nil {
			return nil, fmt.Errorf("%w: messages is not an array: %v", errReport, err)
		}
		list = wrapped.Messages
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("%w: messages is empty", errReport)
	}
	for i, m := range list {
		var obj struct {
			Blocks []json.RawMessage `json:"blocks"`
		}
		if err := json.Unmarshal(m, &obj); err != nil || obj.Blocks == nil {
			return nil, fmt.Errorf("%w: messages[%d] has no blocks array", errReport, i)
		}
	}
	return list, nil
}

// reportFromXML reads a FINAL tag's payload by format
// (docs/contracts/ai-agent-cli.md §12, layer 2).
func reportFromXML(format string, tag xmlTag) reportInput {
	in := reportInput{Format: tag.Attrs["format"]}
	payload := tag.Payload
	switch format {
	case FormatJSON:
		in.ContentJSON = unwrapJSONPayload(payload)
	case FormatSlack:
		in.Messages = json.RawMessage(payload)
	case FormatSubAgent:
		p := tag.Payload
		in.Content = &p
	default:
		in.Content = &payload
	}
	return in
}

// unwrapJSONPayload parses a json FINAL payload with repair; an object whose
// keys all come from report_format, content_json and metadata, and that has
// content_json, is unwrapped to that value.
func unwrapJSONPayload(payload string) json.RawMessage {
	obj, _, err := tools.ParseArguments(payload)
	if err != nil {
		return json.RawMessage(payload)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return obj
	}
	cj, has := m["content_json"]
	if !has {
		return json.RawMessage(strings.TrimSpace(payload))
	}
	for k := range m {
		if k != "report_format" && k != "content_json" && k != "metadata" {
			return obj
		}
	}
	return cj
}

// syntheticReport is the failure report of
// docs/contracts/ai-agent-cli.md §8.2.
func (s *session) syntheticReport(reason string) *contract.FinalReport {
	s.syntheticReason = reason
	content := fmt.Sprintf("Session completed without a final report after %d %s.", s.turnsDone, plural(s.turnsDone, "turn", "turns"))
	md := map[string]any{
		"reason":                reason,
		"turns_completed":       s.turnsDone,
		"final_report_attempts": s.finalAttempts,
	}
	if s.lastErr != "" {
		content += " Cause: " + s.lastErr
		md["last_error"] = s.lastErr
	}
	return &contract.FinalReport{
		Status:   contract.ReportFailure,
		Format:   s.opts.Format,
		Content:  &content,
		Metadata: md,
		TS:       s.opts.Now().UnixMilli(),
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// finalReportSchema is the input schema of the native agent__final_report
// tool for the session's format; report_format is a const
// (docs/contracts/ai-agent.md §5).
func finalReportSchema(format string, schema json.RawMessage) json.RawMessage {
	props := map[string]any{
		"report_format": map[string]any{"type": "string", "const": format, "description": "The output format; always " + format + "."},
		"metadata":      map[string]any{"type": "object", "description": "Optional structured metadata."},
	}
	required := []string{"report_format"}
	switch format {
	case FormatJSON:
		var sch any = map[string]any{"type": "object"}
		if len(schema) > 0 {
			_ = json.Unmarshal(schema, &sch)
		}
		props["content_json"] = sch
		required = append(required, "content_json")
	case FormatSlack:
		props["messages"] = map[string]any{"type": "array", "items": map[string]any{
			"type": "object", "properties": map[string]any{"blocks": map[string]any{"type": "array"}}, "required": []string{"blocks"}}}
		props["report_content"] = map[string]any{"type": "string", "description": "Used as one mrkdwn section when messages is absent."}
	default:
		props["report_content"] = map[string]any{"type": "string", "minLength": 1, "description": "The complete report, in " + FormatDescription(format) + "."}
		props["encoding"] = map[string]any{"type": "string", "enum": []string{"raw", "base64"}}
		required = append(required, "report_content")
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required})
	return b
}
