package score

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// ClassFigures sums the results of one class.
type ClassFigures struct {
	Class string `json:"class"`
	// Cases counts the cases that ran; Skipped those that did not.
	Cases   int `json:"cases"`
	Skipped int `json:"skipped"`
	// Passed met their expectation.
	Passed       int `json:"passed"`
	Healed       int `json:"healed"`
	FalseSuccess int `json:"false_success"`
	// TestEdited counts the heals whose commits change a test file.
	TestEdited int `json:"test_edited"`
	Untouched  int `json:"untouched"`
	// Committed counts the cases where heal committed something; Minimal
	// those of them whose every changed line is near a planted line.
	Committed  int     `json:"committed"`
	Minimal    int     `json:"minimal"`
	BranchLeft int     `json:"branch_left"`
	Seconds    float64 `json:"seconds"`
	// Spend sums what the model tiers spent on the class's cases.
	Spend
}

// Summarize sums results per class, in the order mechanical, suggestion,
// history, needs_llm, flaky, control, then a total row named "all".
func Summarize(results []Result) []ClassFigures {
	order := append([]string(nil), classes...)
	by := map[string]*ClassFigures{}
	for _, c := range order {
		by[c] = &ClassFigures{Class: c}
	}
	all := &ClassFigures{Class: "all"}
	for _, r := range results {
		f, ok := by[r.Class]
		if !ok {
			f = &ClassFigures{Class: r.Class}
			by[r.Class] = f
			order = append(order, r.Class)
		}
		for _, g := range []*ClassFigures{f, all} {
			if r.Skipped != "" {
				g.Skipped++
				continue
			}
			g.Cases++
			g.Passed += b2i(r.Pass)
			g.Healed += b2i(r.Healed)
			g.FalseSuccess += b2i(r.FalseSuccess)
			g.TestEdited += b2i(r.TestEdited)
			g.Untouched += b2i(r.Untouched)
			g.Committed += b2i(r.Commits > 0)
			g.Minimal += b2i(r.Commits > 0 && r.Minimal)
			g.BranchLeft += b2i(r.BranchLeft)
			g.Seconds += r.Seconds
			g.Spend.add(r.Spend)
		}
	}
	var out []ClassFigures
	for _, c := range order {
		if f := by[c]; f.Cases+f.Skipped > 0 {
			out = append(out, *f)
		}
	}
	return append(out, *all)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// WriteTable prints one line per case, then the figures per class.
func WriteTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tclass\texpect\texit\tcommits\thealed\tfalse-success\tuntouched\tminimal\tpass\tseconds\tnotes")
	sorted := append([]Result(nil), results...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Case < sorted[j].Case })
	for _, r := range sorted {
		if r.Skipped != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t-\t-\t-\t-\t-\t-\tskipped\t-\t%s\n", r.Case, r.Class, r.Expect, r.Skipped)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%.1f\t%s\n", r.Case, r.Class, r.Expect, r.Exit, r.Commits,
			yes(r.Healed), yes(r.FalseSuccess), yes(r.Untouched), yes(r.Minimal), yes(r.Pass), r.Seconds, strings.Join(r.Notes, "; "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "class\tcases\tpassed\thealed\tfalse success\ttests edited\tuntouched\tminimal/committed\tempty branch left\tskipped\tmean seconds\tllm requests\tagent turns\tagent tool calls\ttokens\tcost USD")
	for _, f := range Summarize(results) {
		mean := 0.0
		if f.Cases > 0 {
			mean = f.Seconds / float64(f.Cases)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d/%d\t%d\t%d\t%.1f\t%d\t%d\t%d\t%d\t%.4f\n", f.Class, f.Cases, f.Passed, f.Healed, f.FalseSuccess, f.TestEdited, f.Untouched,
			f.Minimal, f.Committed, f.BranchLeft, f.Skipped, mean, f.Requests, f.Turns, f.ToolCalls, f.Tokens, f.CostUSD)
	}
	return tw.Flush()
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
