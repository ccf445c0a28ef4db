package missing

import "testing"

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		msg      string
		ok       bool
		need     Need
		name, fn string
	}{
		{"undefined: strings.Cut2", true, Name, "Cut2", ""},
		{"ExampleParse_file refers to unknown identifier: Parse", true, Example, "Parse", "ExampleParse_file"},
		{"TypeError: load() got an unexpected keyword argument 'path'", true, Keyword, "path", "load"},
		{"too many arguments in call to Log", true, Arity, "Log", ""},
		{"Expected 3 arguments, but got 2.", true, Arity, "", ""},
		{"expected ';' before '}' token", false, 0, "", ""},
		{"‘cout’ was not declared in this scope; did you mean ‘std::cout’?", true, Name, "cout", ""},
		{"'vectr' is not a member of 'std'", true, Name, "vectr", ""},
		{"no member named 'lenght' in 'struct buf'", true, Name, "lenght", ""},
		{"cannot find symbol\n  symbol:   variable totl\n  location: class app.Calc", true, Name, "totl", ""},
		{"cannot find symbol\n[ERROR]   symbol:   method sizee()", true, Name, "sizee", ""},
		{"cannot find symbol", true, Name, "", ""},
		{"Lisst cannot be resolved to a type", true, Name, "Lisst", ""},
		{"Unresolved reference: lenght", true, Name, "lenght", ""},
		{"Unresolved reference 'lenght'.", true, Name, "lenght", ""},
		{"cannot find value `totl` in this scope", true, Name, "totl", ""},
		{"cannot find function `ad` in crate `calc`", true, Name, "ad", ""},
		{"failed to resolve: use of undeclared type `HashMapp`", true, Name, "HashMapp", ""},
		{"too few values in struct literal of type ansiState", true, Field, "", "ansiState"},
		{"too few values in struct literal of type tui.ColorPair", true, Field, "", "ColorPair"},
		{"too few values in struct literal", true, Field, "", ""},
		{"missing field `lbg` in initializer of `AnsiState`", true, Field, "lbg", "AnsiState"},
		{"missing fields `lbg`, `ul` and `attr` in initializer of `state::AnsiState`", true, Field, "lbg", "AnsiState"},
		{"missing fields `a`, `b`, `c` and 2 other fields in initializer of `Big`", true, Field, "a", "Big"},
		{"Property 'lbg' is missing in type '{ fg: number; bg: number; }' but required in type 'AnsiState'.", true, Field, "lbg", "AnsiState"},
		{"Type '{ fg: number; }' is missing the following properties from type 'AnsiState': bg, lbg", true, Field, "bg", "AnsiState"},
		{"missing initializer for field 'lbg' of 'struct ansi_state'", true, Field, "lbg", "ansi_state"},
		{"missing initializer for member 'ansi_state::lbg'", true, Field, "lbg", ""},
		{"missing field 'lbg' initializer", true, Field, "lbg", ""},
	} {
		a, ok := Of(tc.msg)
		if ok != tc.ok || a.Need != tc.need || a.Name != tc.name || a.Fn != tc.fn {
			t.Errorf("Of(%q) = %+v %v, want %v %q %q %v", tc.msg, a, ok, tc.need, tc.name, tc.fn, tc.ok)
		}
	}
}

func FuzzOf(f *testing.F) {
	f.Add("undefined: x")
	f.Add("‘BUF’ undeclared (first use in this function)")
	f.Fuzz(func(t *testing.T, msg string) {
		if a, ok := Of(msg); ok && (a.Need < Name || a.Need > Field) {
			t.Fatalf("bad need %v", a.Need)
		}
	})
}
