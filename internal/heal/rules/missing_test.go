package rules

import (
	"testing"

	"github.com/salve-dev/salve/internal/heal/missing/missingtest"
)

// TestMissingNameWordingsHaveOneHome: every pattern by which the rules
// tier reads that a name is missing is held to package missing, the one
// table of those wordings, with the same name: a wording added here and
// not there fails.
func TestMissingNameWordingsHaveOneHome(t *testing.T) {
	missingtest.Hold(t, []missingtest.Case{
		{Name: "rePyUndefined", Re: rePyUndefined, Group: -1, Msgs: []string{
			"NameError: name 'json' is not defined",
			"undefined name 'json'",
			"undefined name `json`",
			`"json" is not defined`,
		}},
		{Name: "reJSUndefined", Re: reJSUndefined, Group: -1, Msgs: []string{
			"ReferenceError: path is not defined",
			"Cannot find name 'path'.",
			"'path' is not defined.",
			"path is not defined",
		}},
		{Name: "reUndefined", Re: reUndefined, Group: 1, Msgs: []string{"undefined: strings"}},
		{Name: "reUndefinedAll", Re: reUndefinedAll, Group: 1, Msgs: []string{"undefined: strings", "x.go:3:2: undefined: strings"}},
		{Name: "reRustMissing", Re: reRustMissing, Group: -1, Msgs: []string{
			"cannot find value `totl` in this scope",
			"cannot find type `HashMap` in this scope",
			"cannot find macro `vecc` in this scope",
			"failed to resolve: use of undeclared type `HashMap`",
			"failed to resolve: use of undeclared crate or module `fs`",
		}},
		{Name: "reJavaCantFind", Re: reJavaCantFind, Msgs: []string{
			"cannot find symbol",
			"List cannot be resolved to a type",
			"unresolved reference: listOf",
		}},
	})
}
