package semver

import "testing"

func TestCompare(t *testing.T, cases map[string]int) {
	for pair, want := range map[string]int{"v1.2.3 v1.2.4": -1, "v2.0.0 v1.9.9": 1, "1.0.0 v1.0.0": 0} {
		a, b, _ := cut(pair)
		if got := Compare(a, b); got != want {
			t.Errorf("Compare(%s, %s) = %d, want %d", a, b, got, want)
		}
	}
}

func cut(pair string) (string, string, bool) {
	for i := range pair {
		if pair[i] == ' ' {
			return pair[:i], pair[i+1:], true
		}
	}
	return pair, "", false
}
