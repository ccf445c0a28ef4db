package suggest

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/salve-dev/salve/contract"
)

func TestGoMembers(t *testing.T) {
	ws := t.TempDir()
	files := map[string]string{
		"item.go":  "package inv\n\ntype Base struct{ ID int }\n\ntype Item struct {\n\tBase\n\tName, Kind string\n\tQuantity int\n}\n",
		"price.go": "package inv\n\nfunc (it *Item) Price() int { return 0 }\nfunc (it Item) Label() string { return it.Name }\nfunc (b Base) Key() int { return b.ID }\n",
		"other.go": "package other\n\nfunc (it *Item) Stray() {}\n",
	}
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(ws, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := goMembers(ws, "item.go", files["item.go"], "Item")
	var got []string
	for k := range m {
		got = append(got, k)
	}
	sort.Strings(got)
	want := []string{"Base", "Kind", "Label", "Name", "Price", "Quantity"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("members of Item = %v, want %v", got, want)
	}
	if m := goMembers(ws, "item.go", files["item.go"], "Nope"); len(m) != 0 {
		t.Errorf("members of an unknown type: %v", m)
	}
	if g := reGoNoMember.FindStringSubmatch("it.Quantiy undefined (type *Item has no field or method Quantiy)"); g == nil || g[1] != "it" || g[2] != "Item" || g[3] != "Quantiy" || g[4] != "" {
		t.Errorf("regexp groups %q", g)
	}
	if g := reGoNoMember.FindStringSubmatch("x.y.Foo undefined (type T has no field or method Foo, but does have field foo)"); g == nil || g[1] != "x.y" || g[4] == "" {
		t.Errorf("regexp groups with Go's hint %q", g)
	}
}

func TestPyBuiltinAttr(t *testing.T) {
	src := "def norm(h):\n    return h.strip().lowr()\n"
	r := contract.BugReport{FilePath: "h.py", LineNumber: 2, Message: "AttributeError: 'str' object has no attribute 'lowr'"}
	c, ok := pyBuiltinAttr(src, r.Message, r)
	if !ok || c.s.Edits[0].Old != ".lowr" || c.s.Edits[0].New != ".lower" {
		t.Fatalf("got %+v, %v", c, ok)
	}
	for _, msg := range []string{
		"AttributeError: 'Widget' object has no attribute 'lowr'", // not a built-in type
		"AttributeError: 'str' object has no attribute 'zzzzzz'",  // nothing close
	} {
		if _, ok := pyBuiltinAttr(src, msg, contract.BugReport{LineNumber: 2, Message: msg}); ok {
			t.Errorf("%s: fixed", msg)
		}
	}
}
