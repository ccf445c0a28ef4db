package notes

import "testing"

func TestParse(t *testing.T) {
	got := Parse("a ( x y ) b")
	if len(got) != 2 || got[0].Name != "a" || len(got[0].Args) != 2 {
		t.Errorf("Parse = %+v", got)
	}
}
