package results

import (
	"fmt"
	"sort"
	"strings"
)

// PullRequestMarker starts the body of every pull or merge request salve
// opens, so a later run (and a reviewer) can tell salve's requests apart.
const PullRequestMarker = "<!-- salve:heal -->"

// PullRequestText returns the title and Markdown body of the pull or merge
// request that carries r's fixes: the fix lines, a table of every bug
// with its status and tier, the diffstat of the commits, the tiers tried
// and the LLM cost. runURL, when set, links the run's record.
func PullRequestText(r *Results, runURL string) (title, body string) {
	fixed := r.fixedBugs()
	switch {
	case r.Outcome == OutcomeGreen && len(fixed) > 0:
		title = "salve: fix " + summarize(fixed)
	case r.Outcome == OutcomeGreen:
		title = "salve: the build is green"
	default:
		title = fmt.Sprintf("salve: could not heal the build (%d bug(s) left)", len(r.leftBugs()))
	}
	var b strings.Builder
	b.WriteString(PullRequestMarker + "\n")
	if r.Outcome == OutcomeGreen {
		fmt.Fprintf(&b, "salve healed the failing build in %d iteration(s): `%s` now passes.\n\n", r.Iterations, cmdOrDetected(r.Command))
	} else {
		fmt.Fprintf(&b, "salve could not heal the build: %s.\n\nThis draft holds the analysis, and any fix salve could verify, for a person to finish.\n\n", mdEscape(r.Reason))
	}
	if lines := r.FixLines(); len(lines) > 0 {
		b.WriteString("### Fixes\n\n")
		for _, l := range lines {
			b.WriteString("- " + mdEscape(l) + "\n")
		}
		b.WriteString("\n")
	}
	if len(r.Bugs) > 0 {
		b.WriteString("### Bugs\n\n| type | file | line | status | tier | why |\n|---|---|---|---|---|---|\n")
		for _, bug := range r.Bugs {
			why := bug.FixReason
			if bug.Status != StatusFixed {
				why = bug.Reason
			}
			fmt.Fprintf(&b, "| %s | `%s` | %d | %s | %s | %s |\n", bug.Bug.ErrorType, cell(bug.Bug.FilePath), bug.Bug.LineNumber,
				bug.Status, cell(orDash(bug.Fixer)), cell(orDash(why)))
		}
		b.WriteString("\n")
	}
	if stat := r.Diffstat(); stat != "" {
		b.WriteString("### Changes\n\n```\n" + stat + "```\n\n")
	}
	b.WriteString("### Run\n\n")
	fmt.Fprintf(&b, "- tiers: %s\n", strings.Join(orNone(r.TiersRun()), ", "))
	fmt.Fprintf(&b, "- commits: %d on `%s`, from `%s`\n", len(r.Commits), cell(r.Branch), short(r.BaseCommit))
	if r.LLM.Requests > 0 {
		fmt.Fprintf(&b, "- LLM: %d request(s), %d input and %d output tokens, $%.4f\n", r.LLM.Requests, r.LLM.InputTokens, r.LLM.OutputTokens, r.LLM.CostUSD)
	} else {
		b.WriteString("- LLM: not used\n")
	}
	if r.CI != nil {
		fmt.Fprintf(&b, "- CI (%s): %s\n", r.CI.Source, mdEscape(r.CI.Detail))
	}
	fmt.Fprintf(&b, "- run: `%s`", r.RunID)
	if runURL != "" {
		fmt.Fprintf(&b, " ([record](%s))", runURL)
	}
	b.WriteString("\n\nEvery fix passed salve's gate (reported lines ±3 only, nothing else touched) and the build was re-run on it. Review it as you would any change.\n")
	return title, b.String()
}

func (r *Results) fixedBugs() []BugResult {
	var out []BugResult
	for _, b := range r.Bugs {
		if b.Status == StatusFixed {
			out = append(out, b)
		}
	}
	return out
}

func (r *Results) leftBugs() []BugResult {
	fixed := map[string]bool{}
	for _, b := range r.Bugs {
		if b.Status == StatusFixed {
			fixed[b.Bug.FilePath+"|"+b.Bug.Message] = true
		}
	}
	seen := map[string]bool{}
	var out []BugResult
	for _, b := range r.Bugs {
		k := b.Bug.FilePath + "|" + b.Bug.Message
		if !fixed[k] && !seen[k] {
			seen[k] = true
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		for _, x := range r.Remaining {
			out = append(out, BugResult{Bug: x})
		}
	}
	return out
}

// summarize names what was fixed in a title: "TYPE_ERROR in main.go" for
// one bug, "3 bugs in main.go, util.go" for more.
func summarize(fixed []BugResult) string {
	files := []string{}
	seen := map[string]bool{}
	for _, b := range fixed {
		if !seen[b.Bug.FilePath] {
			seen[b.Bug.FilePath] = true
			files = append(files, b.Bug.FilePath)
		}
	}
	sort.Strings(files)
	if len(files) > 3 {
		files = append(files[:3], fmt.Sprintf("%d more", len(files)-3))
	}
	if len(fixed) == 1 {
		return fmt.Sprintf("%s in %s line %d", fixed[0].Bug.ErrorType, fixed[0].Bug.FilePath, fixed[0].Bug.LineNumber)
	}
	return fmt.Sprintf("%d bugs in %s", len(fixed), strings.Join(files, ", "))
}

// Diffstat counts the lines added and removed per file over the fixes
// that were committed, as `git diff --stat` would for the heal branch.
func (r *Results) Diffstat() string {
	type stat struct{ add, del int }
	per := map[string]*stat{}
	var order []string
	for _, b := range r.Bugs {
		if b.Status != StatusFixed || b.Diff == "" {
			continue
		}
		s := per[b.Bug.FilePath]
		if s == nil {
			s = &stat{}
			per[b.Bug.FilePath] = s
			order = append(order, b.Bug.FilePath)
		} else {
			continue // one diff per file group: the group's bugs share it
		}
		for _, l := range strings.Split(b.Diff, "\n") {
			switch {
			case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			case strings.HasPrefix(l, "+"):
				s.add++
			case strings.HasPrefix(l, "-"):
				s.del++
			}
		}
	}
	if len(order) == 0 {
		return ""
	}
	var b strings.Builder
	add, del := 0, 0
	for _, f := range order {
		s := per[f]
		add += s.add
		del += s.del
		fmt.Fprintf(&b, " %s | %d %s%s\n", f, s.add+s.del, strings.Repeat("+", min(s.add, 40)), strings.Repeat("-", min(s.del, 40)))
	}
	fmt.Fprintf(&b, " %d file(s) changed, %d insertion(s)(+), %d deletion(s)(-)\n", len(order), add, del)
	return b.String()
}

func cmdOrDetected(c string) string {
	if c == "" {
		return "the detected build"
	}
	return strings.ReplaceAll(c, "`", "'")
}

// cell makes s safe inside a Markdown table cell: one line, no pipe.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = mdEscape(strings.ReplaceAll(s, "|", "\\|"))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// mdEscape keeps text from a build log from opening HTML or mentions.
func mdEscape(s string) string {
	r := strings.NewReplacer("<", "&lt;", ">", "&gt;", "@", "@\u200b")
	return r.Replace(s)
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return s
}

func orNone(s []string) []string {
	if len(s) == 0 {
		return []string{"none"}
	}
	return s
}

func short(sha string) string { return sha[:min(12, len(sha))] }
