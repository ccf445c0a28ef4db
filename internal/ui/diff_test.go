package ui

import (
	"strings"
	"testing"
)

func TestParseDiff(t *testing.T) {
	d := ParseDiff("diff --git a/n.go b/n.go\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/n.go\n@@ -0,0 +1,2 @@\n+package n\n+// <b>\n")
	kinds := []string{}
	for _, l := range d.Lines {
		kinds = append(kinds, l.Kind)
	}
	if got := strings.Join(kinds, ","); got != "file,file,file,file,file,hunk,add,add" {
		t.Errorf("kinds %s", got)
	}
	if d.Adds != 2 || d.Dels != 0 || d.Lines[6].New != 1 || d.Lines[7].New != 2 {
		t.Errorf("counts or numbers: %+v", d)
	}
	if !strings.Contains(string(d.Lines[6].HTML), `<span class="k">package</span>`) || strings.Contains(string(d.Lines[7].HTML), "<b>") {
		t.Errorf("highlighting or escaping: %q %q", d.Lines[6].HTML, d.Lines[7].HTML)
	}
	split := ParseDiff("@@ -1,2 +1,2 @@\n-a\n-b\n+c\n ctx\n").Split
	if len(split) != 4 || split[1].Left == nil || split[1].Right == nil || split[2].Left == nil || split[2].Right != nil || split[3].Left != split[3].Right {
		t.Errorf("side by side rows: %+v", split)
	}
}
