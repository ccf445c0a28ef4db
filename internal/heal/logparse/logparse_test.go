package logparse

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/salve-dev/salve/contract"
)

var update = flag.Bool("update", false, "rewrite the golden files (never the logs)")

const corpusDir = "testdata/corpus"

// corpusCases lists the case folders of the corpus.
func corpusCases(t testing.TB) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(corpusDir, "*", "*", "log.txt"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no corpus cases: %v", err)
	}
	for i, d := range dirs {
		dirs[i] = filepath.Dir(d)
	}
	return dirs
}

// TestCorpusScores holds the parser to the thresholds.
func TestCorpusScores(t *testing.T) {
	card, err := ScoreCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + card.Text())
	if card.Cases < 100 {
		t.Errorf("corpus has %d cases, want at least 100", card.Cases)
	}
	if len(card.Families) < 9 {
		t.Errorf("corpus has %d tool families, want at least 9", len(card.Families))
	}
	if 2*card.Synthetic >= card.Cases {
		t.Errorf("%d of %d cases are synthetic; they must stay a minority", card.Synthetic, card.Cases)
	}
	if card.Recall < 0.99 || card.Precision < 0.98 || card.TypeAccuracy < 0.97 {
		t.Errorf("recall %.3f (>= 0.99), precision %.3f (>= 0.98), type accuracy %.3f (>= 0.97)",
			card.Recall, card.Precision, card.TypeAccuracy)
	}
}

// TestCorpusCasesExact guards against regressions the thresholds would
// hide: every case must match its hand-written expected.json exactly (same
// locations, same types, nothing extra). golden.txt is rewritten by
// -update; expected.json never is, so this test is the one an -update
// cannot silence.
func TestCorpusCasesExact(t *testing.T) {
	for _, dir := range corpusCases(t) {
		sc, err := ScoreCase(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !sc.Exact {
			t.Errorf("%s: missed %v, extra %v, wrong type %v", filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), sc.Missed, sc.Extra, sc.WrongType)
		}
	}
}

// TestCorpusGoldens compares each case's canonical lines with golden.txt.
func TestCorpusGoldens(t *testing.T) {
	for _, dir := range corpusCases(t) {
		name, _ := filepath.Rel(corpusDir, dir)
		t.Run(filepath.ToSlash(name), func(t *testing.T) {
			_, _, opts, err := ReadCase(dir)
			if err != nil {
				t.Fatal(err)
			}
			got := renderText(parseFile(t, filepath.Join(dir, "log.txt"), opts))
			golden := filepath.Join(dir, "golden.txt")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if d := lineDiff(string(want), got); d != "" {
				t.Errorf("golden mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func parseFile(t testing.TB, path string, opts Options) []contract.BugReport {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := Parse(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func renderText(rs []contract.BugReport) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// lineDiff is a small in-process diff: the lines only in want (-) and only
// in got (+), in order.
func lineDiff(want, got string) string {
	if want == got {
		return ""
	}
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	inW, inG := map[string]int{}, map[string]int{}
	for _, l := range w {
		inW[l]++
	}
	for _, l := range g {
		inG[l]++
	}
	var b strings.Builder
	for _, l := range w {
		if inG[l] == 0 {
			b.WriteString("-" + l + "\n")
		}
	}
	for _, l := range g {
		if inW[l] == 0 {
			b.WriteString("+" + l + "\n")
		}
	}
	if b.Len() == 0 {
		b.WriteString("(same lines, different order or count)\n")
	}
	return b.String()
}

// TestEveryRowHasFixtures fails when a row of the table reads nothing in
// the corpus: every format must have at least one real (or documented)
// log behind it.
func TestEveryRowHasFixtures(t *testing.T) {
	used := map[string]int{}
	for _, dir := range corpusCases(t) {
		_, _, opts, err := ReadCase(dir)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join(dir, "log.txt"))
		if err != nil {
			t.Fatal(err)
		}
		p := newParser(opts)
		p.used = used
		if _, err := p.run(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	for _, r := range Rows() {
		if used[r.Name] == 0 {
			t.Errorf("row %q (%s) has no fixture in %s that it reads", r.Name, r.Family, corpusDir)
		}
		if r.Doc == "" || r.Family == "" || r.Tool == "" {
			t.Errorf("row %q lacks a doc, family or tool", r.Name)
		}
	}
}

func TestDuplicateRowPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("registering a duplicate row name did not panic")
		}
	}()
	register(&Row{Name: table[0].Name})
}

// TestDeterministic parses every case twice and wants identical bytes.
func TestDeterministic(t *testing.T) {
	for _, dir := range corpusCases(t) {
		_, _, opts, _ := ReadCase(dir)
		a, _ := json.Marshal(parseFile(t, filepath.Join(dir, "log.txt"), opts))
		b, _ := json.Marshal(parseFile(t, filepath.Join(dir, "log.txt"), opts))
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two parses differ", dir)
		}
	}
}

// checkValid asserts the contract's invariants on a parse result.
func checkValid(t testing.TB, rs []contract.BugReport) {
	t.Helper()
	if rs == nil {
		t.Fatal("nil result; want an empty slice")
	}
	for i, r := range rs {
		if r.LineNumber < 1 || !r.ErrorType.Valid() || r.FilePath == "" || strings.Contains(r.FilePath, `\`) {
			t.Fatalf("invalid report %+v", r)
		}
		if r.ConfidenceScore == nil || *r.ConfidenceScore < 0 || *r.ConfidenceScore > 1 {
			t.Fatalf("confidence out of range in %+v", r)
		}
		if r.Column < 0 {
			t.Fatalf("negative column in %+v", r)
		}
		for _, e := range rs[:i] {
			if e.FilePath == r.FilePath && e.LineNumber == r.LineNumber && sameError(e, r.Column, r.ErrorType, r.Message) {
				t.Fatalf("duplicate report for %s:%d: %q", r.FilePath, r.LineNumber, r.Message)
			}
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestDocsListEveryRow keeps docs/logparse.md's table in step with Rows.
func TestDocsListEveryRow(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "logparse.md"))
	if err != nil {
		t.Skipf("docs/logparse.md: %v", err)
	}
	for _, r := range Rows() {
		if !strings.Contains(string(doc), " "+r.Name+" ") {
			t.Errorf("docs/logparse.md does not list row %q; paste `salve parse --list` into it", r.Name)
		}
	}
}

// TestConcurrentParses runs parses side by side (the classification cache
// is shared) and wants the same answers as one at a time.
func TestConcurrentParses(t *testing.T) {
	dirs := corpusCases(t)
	want := make([]string, len(dirs))
	for i, dir := range dirs {
		_, _, opts, _ := ReadCase(dir)
		want[i] = renderText(parseFile(t, filepath.Join(dir, "log.txt"), opts))
	}
	errs := make(chan string, len(dirs))
	var wg sync.WaitGroup
	for i, dir := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, opts, _ := ReadCase(dir)
			b, _ := os.ReadFile(filepath.Join(dir, "log.txt"))
			if got := renderText(ParseString(string(b), opts)); got != want[i] {
				errs <- dir
			}
		}()
	}
	wg.Wait()
	close(errs)
	for dir := range errs {
		t.Errorf("%s: a concurrent parse differs", dir)
	}
}

// TestRowPatternsCompile compiles every row's expression, which a parse
// only does on first use, so that a bad pattern fails here.
func TestRowPatternsCompile(t *testing.T) {
	for _, r := range table {
		if r.re == nil {
			continue
		}
		named := 0
		for _, n := range r.re.Regexp().SubexpNames() {
			if n != "" {
				named++
			}
		}
		if named == 0 {
			t.Errorf("row %s: pattern %q did not compile with named groups", r.Name, r.Pattern)
		}
	}
}

func TestGoTestText(t *testing.T) {
	for _, tc := range []struct{ name, log, want string }{
		{"plain", "--- FAIL: TestA (0.00s)\nFAIL\n", "--- FAIL: TestA (0.00s)\nFAIL\n"},
		{"events", `{"Action":"start","Package":"p"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: got 1\n"}
{"Action":"fail","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t0.01s\n"}
`, "=== RUN   TestA\n    a_test.go:9: got 1\nFAIL\tp\t0.01s\n"},
		{"go's own lines beside the events", `go: downloading example.com/m v1.0.0
{"Action":"build-output","ImportPath":"p","Output":"# p\n"}
{"Action":"build-output","ImportPath":"p","Output":"./a.go:3:2: \"os\" imported and not used\n"}
{"Action":"build-fail","ImportPath":"p"}
FAIL	p [build failed]`, "go: downloading example.com/m v1.0.0\n# p\n./a.go:3:2: \"os\" imported and not used\nFAIL\tp [build failed]"},
		{"a line that only looks like an event", `{"Action": 3}` + "\n", `{"Action": 3}` + "\n"},
	} {
		if got := GoTestText(tc.log); got != tc.want {
			t.Errorf("%s: GoTestText = %q, want %q", tc.name, got, tc.want)
		}
	}
}
