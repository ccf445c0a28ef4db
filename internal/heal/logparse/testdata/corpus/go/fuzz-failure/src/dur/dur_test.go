package dur

import "testing"

func FuzzParseDuration(f *testing.F) {
	f.Add("3h")
	f.Add("15m")
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s)
		if err != nil {
			return
		}
		if back := Format(n); back != s {
			t.Errorf("Format(Parse(%q)) = %q", s, back)
		}
	})
}
