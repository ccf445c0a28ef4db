package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/salve-dev/salve/contract"
)

// MaxRequestBytes is the largest request the agent reads; a longer stdin is
// answered with an error response.
const MaxRequestBytes = 16 << 20

// Payload shapes accepted by [Decode].
const (
	// ShapeCanonical is a GitAgentRequestV1: {"command":{"type":…,…}}.
	ShapeCanonical = "canonical"
	// ShapeLegacy is the ad-hoc payload of docs/contracts/git-agent.md §2.2:
	// the command's fields directly in the payload, with limit as a string
	// or a number.
	ShapeLegacy = "legacy"
)

// Trace holds the fields a response echoes from its request. A nil pointer
// is echoed as null.
type Trace struct {
	RequestID     string
	APIVersion    *contract.ApiVersion
	PlanID        *string
	TaskID        *string
	CorrelationID *string
}

// Request is a decoded, validated git agent request.
type Request struct {
	Trace
	// Action is the request's action, one of [Actions].
	Action string
	// Command holds the command with Type equal to Action, Limit always set
	// for git_log, and only the fields of Action's variant.
	Command contract.GitAgentCommandV1
	// Shape is ShapeCanonical or ShapeLegacy.
	Shape string
}

// Error kinds, carried in an error response's metadata.error_kind.
const (
	KindInvalidRequest    = "invalid_request"
	KindWrongTool         = "wrong_tool"
	KindUnsupportedAction = "unsupported_action"
	KindPathRefused       = "path_refused"
	KindGitFailed         = "git_failed"
	KindGitUnavailable    = "git_unavailable"
	KindTimeout           = "timeout"
	KindInternal          = "internal"
	KindInvalidInvocation = "invalid_invocation"
)

// RequestError is a request that could not be accepted. Trace holds what
// could be read of the request, so the error response can echo it.
type RequestError struct {
	Trace Trace
	// Kind is one of the Kind* constants.
	Kind string
	// Msg describes the problem for a person.
	Msg string
}

// Error returns the kind and the message, "kind: msg".
func (e *RequestError) Error() string { return e.Kind + ": " + e.Msg }

// Decode parses one ActionRequest for the git agent. It never panics: any
// input yields either a Request or a RequestError.
func Decode(data []byte) (*Request, *RequestError) {
	fail := func(kind, format string, args ...any) (*Request, *RequestError) {
		return nil, &RequestError{Trace: sniffTrace(data), Kind: kind, Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) > MaxRequestBytes {
		return fail(KindInvalidRequest, "request is larger than %d bytes", MaxRequestBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return fail(KindInvalidRequest, "empty request: want one JSON ActionRequest on stdin")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc json.RawMessage
	if err := dec.Decode(&doc); err != nil {
		return fail(KindInvalidRequest, "invalid JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			return fail(KindInvalidRequest, "more than one JSON document on stdin: want exactly one ActionRequest")
		}
		return fail(KindInvalidRequest, "unexpected data after the request: %v", err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(doc, &obj); err != nil || obj == nil {
		return fail(KindInvalidRequest, "request must be a JSON object, got %s", jsonKind(doc))
	}
	return decodeObject(obj)
}

func decodeObject(obj map[string]json.RawMessage) (*Request, *RequestError) {
	req := &Request{}
	var rerr *RequestError
	// An error response echoes every trace field that is a string, even
	// when another one is of the wrong type.
	fail := func(kind, format string, args ...any) (*Request, *RequestError) {
		tr := sniffTraceObject(obj)
		tr.APIVersion = req.APIVersion
		return nil, &RequestError{Trace: tr, Kind: kind, Msg: fmt.Sprintf(format, args...)}
	}
	id, err := optString(obj, "request_id")
	if err == nil && (id == nil || *id == "") {
		err = errors.New("request_id: required (a non-empty string, a UUID)")
	}
	if err != nil {
		return fail(KindInvalidRequest, "%v", err)
	}
	req.RequestID = *id
	for _, f := range []struct {
		key string
		dst **string
	}{{"plan_id", &req.PlanID}, {"task_id", &req.TaskID}, {"correlation_id", &req.CorrelationID}} {
		if *f.dst, err = optString(obj, f.key); err != nil {
			return fail(KindInvalidRequest, "%v", err)
		}
	}
	if req.APIVersion, rerr = decodeAPIVersion(obj); rerr != nil {
		return fail(rerr.Kind, "%s", rerr.Msg)
	}
	if _, err := optString(obj, "context"); err != nil {
		return fail(KindInvalidRequest, "%v", err)
	}
	tool, err := optString(obj, "tool")
	if err != nil {
		return fail(KindInvalidRequest, "%v", err)
	}
	if tool == nil || *tool != contract.ToolGitAgent {
		return fail(KindWrongTool, "tool must be %q, got %s", contract.ToolGitAgent, quoteOpt(tool))
	}
	action, err := optString(obj, "action")
	if err != nil {
		return fail(KindInvalidRequest, "%v", err)
	}
	if action == nil {
		return fail(KindInvalidRequest, "action: required")
	}
	spec, ok := actionTable[*action]
	if !ok {
		return fail(KindUnsupportedAction, "unknown action %q (supported: %s)", *action, strings.Join(Actions(), ", "))
	}
	req.Action = *action
	cmd, shape, err := decodePayload(spec, obj["payload"])
	if err != nil {
		return fail(KindInvalidRequest, "%v", err)
	}
	req.Command, req.Shape = cmd, shape
	return req, nil
}

func decodeAPIVersion(obj map[string]json.RawMessage) (*contract.ApiVersion, *RequestError) {
	v, err := optString(obj, "api_version")
	if err != nil {
		return nil, &RequestError{Kind: KindInvalidRequest, Msg: err.Error()}
	}
	if v == nil {
		return nil, nil
	}
	if !strings.EqualFold(*v, string(contract.APIVersionV1)) {
		return nil, &RequestError{Kind: KindInvalidRequest, Msg: fmt.Sprintf("api_version: unsupported %q (want %q or null)", *v, contract.APIVersionV1)}
	}
	av := contract.APIVersionV1
	return &av, nil
}

// decodePayload reads the command from a canonical or a legacy payload.
func decodePayload(spec actionSpec, raw json.RawMessage) (contract.GitAgentCommandV1, string, error) {
	cmd := contract.GitAgentCommandV1{Type: spec.name}
	var payload map[string]json.RawMessage
	if isNull(raw) {
		payload = map[string]json.RawMessage{}
	} else if err := json.Unmarshal(raw, &payload); err != nil || payload == nil {
		return cmd, "", fmt.Errorf("payload: must be a JSON object, got %s", jsonKind(raw))
	}
	shape, fields, prefix := ShapeLegacy, payload, "payload."
	if c, ok := payload["command"]; ok {
		shape, prefix = ShapeCanonical, "payload.command."
		if err := json.Unmarshal(c, &fields); err != nil || fields == nil {
			return cmd, "", fmt.Errorf("payload.command: must be a JSON object, got %s", jsonKind(c))
		}
		typ, err := optString(fields, "type")
		if err != nil {
			return cmd, "", fmt.Errorf("payload.command.%w", err)
		}
		if typ == nil {
			return cmd, "", errors.New("payload.command.type: required")
		}
		if *typ != spec.name {
			return cmd, "", fmt.Errorf("payload.command.type %q does not match action %q", *typ, spec.name)
		}
	}
	for _, f := range spec.fields {
		if err := fieldTable[f](fields, &cmd, shape == ShapeLegacy); err != nil {
			return cmd, "", fmt.Errorf("%s%w", prefix, err)
		}
	}
	if spec.check != nil {
		if err := spec.check(&cmd); err != nil {
			return cmd, "", fmt.Errorf("%s%w", prefix, err)
		}
	}
	return cmd, shape, nil
}

// optString reads obj[key] as a string; absent and null give nil.
func optString(obj map[string]json.RawMessage, key string) (*string, error) {
	raw, ok := obj[key]
	if !ok || isNull(raw) {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%s: want a string, got %s", key, jsonKind(raw))
	}
	return &s, nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// jsonKind names the JSON type of raw for error messages.
func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

func quoteOpt(s *string) string {
	if s == nil {
		return "nothing"
	}
	return fmt.Sprintf("%q", *s)
}

// sniffTrace reads what it can of the trace fields from a request that did
// not decode (truncated, invalid later on, or oversized): it walks the
// top-level object token by token and stops at the first problem.
func sniffTrace(data []byte) Trace {
	var tr Trace
	if len(data) > MaxRequestBytes {
		data = data[:MaxRequestBytes]
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return tr
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return tr
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return tr
		}
		setTraceField(&tr, key, v)
	}
	return tr
}

// sniffTraceObject reads the well-typed trace fields of a decoded object.
func sniffTraceObject(obj map[string]json.RawMessage) Trace {
	var tr Trace
	for key, v := range obj {
		setTraceField(&tr, key, v)
	}
	return tr
}

func setTraceField(tr *Trace, key string, v json.RawMessage) {
	var s string
	if json.Unmarshal(v, &s) != nil || !utf8.ValidString(s) {
		return
	}
	switch key {
	case "request_id":
		tr.RequestID = s
	case "plan_id":
		tr.PlanID = &s
	case "task_id":
		tr.TaskID = &s
	case "correlation_id":
		tr.CorrelationID = &s
	}
}
