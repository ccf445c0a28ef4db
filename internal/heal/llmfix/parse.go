package llmfix

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	jsonrepair "github.com/RealAlexandreAI/json-repair"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/schemacheck"
)

// ErrInvalidResult is wrapped when a reply is not a valid FixResult.
var ErrInvalidResult = errors.New("invalid FixResult")

// schemaOnce compiles the FixResult schema once; it is read-only after.
var schemaOnce = sync.OnceValues(func() (*schemacheck.Schema, error) {
	raw, err := contract.Schema("FixResult")
	if err != nil {
		return nil, err
	}
	return schemacheck.Compile(raw)
})

// ParseResult extracts the JSON object from a model's reply (tolerating a
// code fence or prose around it, and repairing small JSON mistakes),
// validates it against the FixResult schema and checks the confidence is
// within 0..1.
func ParseResult(reply string) (contract.FixResult, error) {
	obj := extractObject(reply)
	if obj == "" {
		return contract.FixResult{}, fmt.Errorf("%w: no JSON object in the reply", ErrInvalidResult)
	}
	if !json.Valid([]byte(obj)) {
		repaired, err := jsonrepair.RepairJSON(obj)
		if err != nil || !strings.HasPrefix(strings.TrimSpace(repaired), "{") {
			return contract.FixResult{}, fmt.Errorf("%w: the reply is not JSON", ErrInvalidResult)
		}
		obj = repaired
	}
	inst, err := schemacheck.Decode([]byte(obj))
	if err != nil {
		return contract.FixResult{}, fmt.Errorf("%w: not JSON: %w", ErrInvalidResult, err)
	}
	sch, err := schemaOnce()
	if err != nil {
		return contract.FixResult{}, fmt.Errorf("llm: FixResult schema: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return contract.FixResult{}, fmt.Errorf("%w: %s", ErrInvalidResult, oneLine(err.Error()))
	}
	var res contract.FixResult
	if err := json.Unmarshal([]byte(obj), &res); err != nil {
		return contract.FixResult{}, fmt.Errorf("%w: %w", ErrInvalidResult, err)
	}
	if res.ConfidenceScore < 0 || res.ConfidenceScore > 1 {
		return contract.FixResult{}, fmt.Errorf("%w: confidence_score %v is outside 0..1", ErrInvalidResult, res.ConfidenceScore)
	}
	return res, nil
}

// extractObject returns the text from the first '{' to the last '}'.
func extractObject(s string) string {
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		return ""
	}
	return s[i : j+1]
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
