package logparse

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// ErrCorpus is returned by ScoreCorpus when the corpus cannot be read.
var ErrCorpus = errors.New("logparse: corpus")

// CaseMeta is a corpus case's meta.json: where the log came from and how
// to parse it.
type CaseMeta struct {
	// Family is the tool family (go, c, rust, java, python, ts, js, shell, make, ci).
	Family string `json:"family"`
	// Tool is the tool that wrote the log.
	Tool string `json:"tool"`
	// Command is the command that was run, in the case's project.
	Command string `json:"command,omitempty"`
	// Root is the workspace root as the log sees it; passed as Options.Root.
	Root string `json:"root,omitempty"`
	// Workspace, relative to the case folder, is passed as Options.Workspace.
	Workspace string `json:"workspace,omitempty"`
	// Synthetic is true when the log was written from the tool's documented
	// format rather than recorded; Source says from what.
	Synthetic bool   `json:"synthetic,omitempty"`
	Source    string `json:"source,omitempty"`
	// Mess lists the CI noise added around the recorded output.
	Mess []string `json:"mess,omitempty"`
	// RootAs is the root the recorded log was rewritten to, as if the CI
	// job had run there.
	RootAs string `json:"root_as,omitempty"`
	// HideRoot parses without Root, to test root inference.
	HideRoot bool `json:"hide_root,omitempty"`
}

// Expected is one line of a case's expected.json.
type Expected struct {
	FilePath   string             `json:"file_path"`
	LineNumber int                `json:"line_number"`
	ErrorType  contract.ErrorType `json:"error_type"`
	TestName   *string            `json:"test_name,omitempty"`
}

// CaseScore is the outcome of one case.
type CaseScore struct {
	Name      string   `json:"name"`
	Family    string   `json:"family"`
	Synthetic bool     `json:"synthetic,omitempty"`
	Expected  int      `json:"expected"`
	Found     int      `json:"found"`
	Hits      int      `json:"hits"`
	TypeOK    int      `json:"type_ok"`
	Exact     bool     `json:"exact"`
	Missed    []string `json:"missed,omitempty"`
	Extra     []string `json:"extra,omitempty"`
	WrongType []string `json:"wrong_type,omitempty"`
}

// Scorecard sums a corpus: recall and precision on (file_path,
// line_number), type accuracy over the matched pairs, and the cases whose
// reports matched exactly (same pairs, same types).
type Scorecard struct {
	Cases        int            `json:"cases"`
	Synthetic    int            `json:"synthetic"`
	Families     map[string]int `json:"families"`
	Expected     int            `json:"expected"`
	Found        int            `json:"found"`
	Hits         int            `json:"hits"`
	TypeOK       int            `json:"type_ok"`
	ExactCases   int            `json:"exact_cases"`
	Recall       float64        `json:"recall"`
	Precision    float64        `json:"precision"`
	TypeAccuracy float64        `json:"type_accuracy"`
	PerCase      []CaseScore    `json:"per_case"`
}

// ScoreCorpus parses every case under dir (a folder holding log.txt and
// expected.json, with an optional meta.json) and scores the result.
func ScoreCorpus(dir string) (*Scorecard, error) {
	var cases []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "log.txt" {
			cases = append(cases, filepath.Dir(p))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: walking %s: %v", ErrCorpus, dir, err)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%w: no cases (log.txt) under %s", ErrCorpus, dir)
	}
	sort.Strings(cases)
	card := &Scorecard{Families: map[string]int{}}
	for _, c := range cases {
		cs, err := ScoreCase(c)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(dir, c)
		cs.Name = filepath.ToSlash(rel)
		card.add(cs)
	}
	card.Recall = ratio(card.Hits, card.Expected)
	card.Precision = ratio(card.Hits, card.Found)
	card.TypeAccuracy = ratio(card.TypeOK, card.Hits)
	return card, nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func (c *Scorecard) add(cs CaseScore) {
	c.Cases++
	if cs.Synthetic {
		c.Synthetic++
	}
	c.Families[cs.Family]++
	c.Expected += cs.Expected
	c.Found += cs.Found
	c.Hits += cs.Hits
	c.TypeOK += cs.TypeOK
	if cs.Exact {
		c.ExactCases++
	}
	c.PerCase = append(c.PerCase, cs)
}

// ReadCase reads a case folder's meta.json (optional) and expected.json,
// and returns the options to parse its log with.
func ReadCase(dir string) (CaseMeta, []Expected, Options, error) {
	var meta CaseMeta
	if b, err := os.ReadFile(filepath.Join(dir, "meta.json")); err == nil {
		if err := json.Unmarshal(b, &meta); err != nil {
			return meta, nil, Options{}, fmt.Errorf("%w: %s/meta.json: %v", ErrCorpus, dir, err)
		}
	}
	var want []Expected
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		return meta, nil, Options{}, fmt.Errorf("%w: %v", ErrCorpus, err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		return meta, nil, Options{}, fmt.Errorf("%w: %s/expected.json: %v", ErrCorpus, dir, err)
	}
	opts := Options{Root: meta.Root}
	if meta.HideRoot {
		opts.Root = ""
	}
	if meta.Workspace != "" {
		opts.Workspace = filepath.Join(dir, filepath.FromSlash(meta.Workspace))
	}
	return meta, want, opts, nil
}

// ScoreCase parses one case and compares the result with expected.json.
func ScoreCase(dir string) (CaseScore, error) {
	meta, want, opts, err := ReadCase(dir)
	if err != nil {
		return CaseScore{}, err
	}
	f, err := os.Open(filepath.Join(dir, "log.txt"))
	if err != nil {
		return CaseScore{}, fmt.Errorf("%w: %v", ErrCorpus, err)
	}
	defer f.Close()
	got, err := Parse(f, opts)
	if err != nil {
		return CaseScore{}, err
	}
	return Compare(meta, want, got), nil
}

// Compare scores reports against the expected ones. Both sides are
// counted per (file_path, line_number): a line with two expected errors
// wants two reports there. At each place the reports are paired with the
// expected errors of the same type first, then with the others (a wrong
// type); the expected errors left over are missed, the reports left over
// extra.
func Compare(meta CaseMeta, want []Expected, got []contract.BugReport) CaseScore {
	cs := CaseScore{Family: meta.Family, Synthetic: meta.Synthetic, Expected: len(want), Found: len(got)}
	key := func(f string, l int) string { return f + ":" + strconv.Itoa(l) }
	gotBy := map[string][]contract.ErrorType{}
	for _, r := range got {
		k := key(r.FilePath, r.LineNumber)
		gotBy[k] = append(gotBy[k], r.ErrorType)
	}
	var places []string
	wantBy := map[string][]contract.ErrorType{}
	for _, w := range want {
		k := key(w.FilePath, w.LineNumber)
		if _, ok := wantBy[k]; !ok {
			places = append(places, k)
		}
		wantBy[k] = append(wantBy[k], w.ErrorType)
	}
	for _, k := range places {
		left := append([]contract.ErrorType(nil), gotBy[k]...)
		var unpaired []contract.ErrorType
		for _, t := range wantBy[k] {
			if i := indexType(left, t); i >= 0 {
				left = append(left[:i], left[i+1:]...)
				cs.Hits++
				cs.TypeOK++
				continue
			}
			unpaired = append(unpaired, t)
		}
		for _, t := range unpaired {
			if len(left) == 0 {
				cs.Missed = append(cs.Missed, k+" "+string(t))
				continue
			}
			cs.Hits++
			cs.WrongType = append(cs.WrongType, fmt.Sprintf("%s got %s want %s", k, left[0], t))
			left = left[1:]
		}
		gotBy[k] = left
	}
	for _, r := range got {
		k := key(r.FilePath, r.LineNumber)
		if left := gotBy[k]; len(left) > 0 {
			cs.Extra = append(cs.Extra, k+" "+string(left[0]))
			gotBy[k] = left[1:]
		}
	}
	cs.Exact = len(cs.Missed) == 0 && len(cs.Extra) == 0 && len(cs.WrongType) == 0
	return cs
}

// indexType returns the index of t in ts, or -1.
func indexType(ts []contract.ErrorType, t contract.ErrorType) int {
	for i, x := range ts {
		if x == t {
			return i
		}
	}
	return -1
}

// Text renders the scorecard for people: totals, then the cases that were
// not exact.
func (c *Scorecard) Text() string {
	var b strings.Builder
	fams := make([]string, 0, len(c.Families))
	for f, n := range c.Families {
		fams = append(fams, fmt.Sprintf("%s=%d", f, n))
	}
	sort.Strings(fams)
	fmt.Fprintf(&b, "cases %d (%d synthetic), families %d: %s\n", c.Cases, c.Synthetic, len(c.Families), strings.Join(fams, " "))
	fmt.Fprintf(&b, "expected %d, found %d, matched %d\n", c.Expected, c.Found, c.Hits)
	fmt.Fprintf(&b, "recall %.4f  precision %.4f  type accuracy %.4f  exact cases %d/%d\n",
		c.Recall, c.Precision, c.TypeAccuracy, c.ExactCases, c.Cases)
	for _, cs := range c.PerCase {
		if cs.Exact {
			continue
		}
		fmt.Fprintf(&b, "  %s:", cs.Name)
		for _, m := range cs.Missed {
			fmt.Fprintf(&b, " missed %s;", m)
		}
		for _, m := range cs.Extra {
			fmt.Fprintf(&b, " extra %s;", m)
		}
		for _, m := range cs.WrongType {
			fmt.Fprintf(&b, " type %s;", m)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
