package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/salve-dev/salve/contract"
)

// Respond wraps result in an ActionResponse that echoes tr's ids. The status
// and code follow the result: success and 0 for output_type "text", error
// and 1 for output_type "error" (docs/contracts/git-agent.md §3.1).
// api_version and error stay null, as the contract says of v1: error details
// travel in result.data.
func Respond(tr Trace, result contract.ActionResult) contract.ActionResponse {
	resp := contract.ActionResponse{
		RequestID:     tr.RequestID,
		Status:        contract.StatusSuccess,
		Code:          contract.CodeSuccess,
		Result:        &result,
		PlanID:        tr.PlanID,
		TaskID:        tr.TaskID,
		CorrelationID: tr.CorrelationID,
	}
	if result.OutputType != contract.OutputText {
		resp.Status, resp.Code = contract.StatusError, contract.CodeError
	}
	return resp
}

// ErrorResponse is the response to a request refused before git ran.
func ErrorResponse(tr Trace, kind, msg string) contract.ActionResponse {
	return Respond(tr, failure(kind, msg, nil))
}

// textResult is a success: git's stdout as data, metadata null unless the
// output had to be cut.
func textResult(data string, meta map[string]any) contract.ActionResult {
	return contract.ActionResult{OutputType: contract.OutputText, Data: data, Metadata: meta}
}

// failure is an error result whose metadata holds error_kind and extra.
func failure(kind, data string, extra map[string]any) contract.ActionResult {
	meta := map[string]any{"error_kind": kind}
	for k, v := range extra {
		meta[k] = v
	}
	return contract.ActionResult{OutputType: contract.OutputError, Data: data, Metadata: meta}
}

// WriteResponse writes resp as one line of JSON, in a single write.
func WriteResponse(w io.Writer, resp contract.ActionResponse) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(resp); err != nil {
		return fmt.Errorf("gitagent: encode response: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("gitagent: write response: %w", err)
	}
	return nil
}
