package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/salve-dev/salve/contract"
)

// The tests check every response against the ActionResponse schema, the
// way the client does; the validator is a test dependency only, so the
// binary does not pay for its start-up.
var testSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	raw, err := contract.Schema("ActionResponse")
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("ActionResponse.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("ActionResponse.json")
})

// validateResponse checks raw against the ActionResponse schema.
func validateResponse(raw []byte) error {
	sch, err := testSchema()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

type testResponse struct{ contract.ActionResponse }

// parseResponse validates and decodes raw, and checks that status, code and
// output_type agree.
func parseResponse(raw []byte) (*testResponse, error) {
	if err := validateResponse(bytes.TrimSpace(raw)); err != nil {
		return nil, err
	}
	var r testResponse
	if err := json.Unmarshal(raw, &r.ActionResponse); err != nil {
		return nil, err
	}
	ok := r.Status == contract.StatusSuccess && r.Code == 0 && r.Result.OutputType == contract.OutputText
	bad := r.Status == contract.StatusError && r.Code == 1 && r.Result.OutputType == contract.OutputError
	if !ok && !bad {
		return nil, fmt.Errorf("status %q, code %d and output_type %q disagree", r.Status, r.Code, r.Result.OutputType)
	}
	return &r, nil
}
