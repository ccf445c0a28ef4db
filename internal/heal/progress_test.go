package heal

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestProgressTTY(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, true, nil)
	p.Stage(1, StageBuild, 0)
	p.Stage(2, StageFix+":rules", 3)
	p.Done()
	want := "\rsalve heal · iteration 1 · build          · 0 fixed" +
		"\rsalve heal · iteration 2 · fix:rules      · 3 fixed" +
		"\r" + strings.Repeat(" ", len("salve heal · iteration 2 · fix:rules      · 3 fixed")) + "\r"
	if b.String() != want {
		t.Errorf("tty progress:\n%q\nwant\n%q", b.String(), want)
	}
}

func TestProgressPlain(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, false, slog.New(slog.NewTextHandler(&b, nil)))
	p.Stage(2, StageVerify, 1)
	if got := b.String(); !strings.Contains(got, "msg=\"heal progress\" iteration=2 stage=verify fixed=1") || strings.Contains(got, "\r") {
		t.Errorf("plain progress: %q", got)
	}
}
