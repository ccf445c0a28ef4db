package suggest

import (
	"testing"

	"github.com/salve-dev/salve/internal/heal/missing/missingtest"
)

// TestMissingNameWordingsHaveOneHome: every pattern by which the suggest
// tier reads that a name is missing (to offer the nearest one in scope)
// is held to package missing, the one table of those wordings, with the
// same name.
func TestMissingNameWordingsHaveOneHome(t *testing.T) {
	missingtest.Hold(t, []missingtest.Case{
		{Name: "reGoUndefined", Re: reGoUndefined, Group: 1, Msgs: []string{"undefined: totl"}},
		{Name: "reGoUndefinedQ", Re: reGoUndefinedQ, Group: 2, Msgs: []string{"undefined: strings.Cutt"}},
		{Name: "reGoNoMember", Re: reGoNoMember, Group: 3, Msgs: []string{
			"c.Totl undefined (type *Calc has no field or method Totl)",
			"c.totl undefined (type Calc has no field or method totl, but does have field Totl)",
		}},
		{Name: "rePyNameError", Re: rePyNameError, Group: 1, Msgs: []string{"NameError: name 'totl' is not defined"}},
		{Name: "rePyImportName", Re: rePyImportName, Group: 1, Msgs: []string{"ImportError: cannot import name 'lod' from 'json' (/usr/lib/python3.12/json/__init__.py)"}},
		{Name: "rePyAttrError", Re: rePyAttrError, Group: 1, Msgs: []string{"AttributeError: 'Calc' object has no attribute 'totl'"}},
		{Name: "rePyBuiltinAttr", Re: rePyBuiltinAttr, Group: 2, Msgs: []string{"AttributeError: 'str' object has no attribute 'uper'"}},
		{Name: "reJSRefError", Re: reJSRefError, Group: 1, Msgs: []string{"ReferenceError: totl is not defined", "Uncaught ReferenceError: totl is not defined"}},
	})
}
