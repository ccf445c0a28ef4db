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
		if a, ok := Of(msg); ok && (a.Need < Name || a.Need > Keyword) {
			t.Fatalf("bad need %v", a.Need)
		}
	})
}
