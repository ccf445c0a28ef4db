package toolschema

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Draft is a JSON Schema draft that `--list-tools --schema-validate` can
// check against.
type Draft struct {
	// Name is the canonical spelling: draft-04, draft-06, draft-07,
	// 2019-09 or 2020-12.
	Name  string
	draft *jsonschema.Draft
}

// drafts maps every accepted spelling, lower-cased with "-", "_", " " and
// "draft" removed, to its draft.
var drafts = map[string]Draft{
	"4":      {Name: "draft-04", draft: jsonschema.Draft4},
	"04":     {Name: "draft-04", draft: jsonschema.Draft4},
	"6":      {Name: "draft-06", draft: jsonschema.Draft6},
	"06":     {Name: "draft-06", draft: jsonschema.Draft6},
	"7":      {Name: "draft-07", draft: jsonschema.Draft7},
	"07":     {Name: "draft-07", draft: jsonschema.Draft7},
	"201909": {Name: "2019-09", draft: jsonschema.Draft2019},
	"2019":   {Name: "2019-09", draft: jsonschema.Draft2019},
	"202012": {Name: "2020-12", draft: jsonschema.Draft2020},
	"2020":   {Name: "2020-12", draft: jsonschema.Draft2020},
}

// ParseDraft reads a draft name as `--schema-validate` takes it:
// draft-04, draft-06, draft-07, 2019-09, 2020-12, and spellings such as
// draft7, draft-7, draft2020 or 2020_12. An unknown name wraps [ErrSchema].
func ParseDraft(name string) (Draft, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	key = strings.TrimPrefix(key, "draft")
	key = strings.NewReplacer("-", "", "_", "", " ", "").Replace(key)
	if d, ok := drafts[key]; ok {
		return d, nil
	}
	return Draft{}, fmt.Errorf("unknown JSON Schema draft %q (want draft-04, draft-06, draft-07, 2019-09 or 2020-12): %w", name, ErrSchema)
}

// Check reports whether raw is a valid schema of draft d: it is compiled as
// that draft, ignoring any `$schema` it declares, which validates it against
// the draft's meta-schema. A nil error means valid.
func (d Draft) Check(raw json.RawMessage) error {
	if _, err := compile(raw, d.draft, true); err != nil {
		return fmt.Errorf("%s: %w", d.Name, err)
	}
	return nil
}
