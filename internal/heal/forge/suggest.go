package forge

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// PullFile is one file a pull request changes, as GitHub lists it (GET
// /repos/{o}/{r}/pulls/{n}/files): its path and the unified diff hunks
// of its change, with no file header.
type PullFile struct {
	Filename string `json:"filename"`
	Status   string `json:"status,omitempty"`
	Patch    string `json:"patch,omitempty"`
}

// ReviewComment is one comment of a pull request review, on lines of the
// pull request's head (side RIGHT): Line alone, or StartLine..Line.
type ReviewComment struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Side      string `json:"side"`
	StartLine int    `json:"start_line,omitempty"`
	StartSide string `json:"start_side,omitempty"`
	Body      string `json:"body"`
}

// Suggested is what Suggestions makes of a heal's fixes: one suggestion
// comment per change that lies inside the pull request's diff, and, as
// unified diffs, the changes that do not (GitHub takes a suggestion only on
// lines the pull request touched, or shows as context).
type Suggested struct {
	Comments []ReviewComment
	Outside  []string
}

// MaxSuggestions bounds the suggestion comments of one review; further
// changes go to the review body as patches.
const MaxSuggestions = 50

// SuggestionIntro starts each suggestion comment.
const SuggestionIntro = "salve's fix, verified by a re-run of the build:"

// Suggestions turns the unified diffs of verified fixes (one file each,
// "--- a/path" and "+++ b/path" headers, @@ groups as `git diff` writes
// them) into GitHub suggestion comments for the pull request whose
// changed files are files. Each run of changed lines becomes one comment
// that replaces the lines it removes with the lines it adds (an insertion
// is anchored on the line before it, or after it at the top of a file),
// when every line it covers is on the right side of one hunk of the pull
// request's diff with the same text the fix replaced. Everything else (a
// file the pull request does not change, lines outside its hunks, text
// that moved, a file fixed more than once, overlaps, and changes beyond
// MaxSuggestions) is returned in Outside as a patch.
//
// Suggestions is pure: it reads nothing and calls nothing.
func Suggestions(patches []string, files []PullFile) Suggested {
	right := map[string]rightLines{}
	for _, f := range files {
		right[f.Filename] = parseRight(f.Patch)
	}
	var fixes []filePatch
	count := map[string]int{}
	for _, p := range patches {
		for _, fp := range parsePatch(p) {
			fixes = append(fixes, fp)
			count[fp.path]++
		}
	}
	var out Suggested
	used := map[string]map[int]bool{}
	for _, fp := range fixes {
		for _, run := range fp.runs {
			c, ok := suggestion(fp.path, run, right, count[fp.path] == 1, used)
			if !ok || len(out.Comments) == MaxSuggestions {
				out.Outside = append(out.Outside, run.patch(fp.path))
				continue
			}
			out.Comments = append(out.Comments, c)
		}
	}
	return out
}

// suggestion builds the comment for one run, or says it cannot.
func suggestion(path string, r changeRun, right map[string]rightLines, single bool, used map[string]map[int]bool) (ReviewComment, bool) {
	rl, ok := right[path]
	if !ok || !single {
		return ReviewComment{}, false
	}
	start, lines, text := r.oldStart, r.old, r.new
	if len(r.old) == 0 {
		// An insertion: repeat a neighbouring line the suggestion keeps.
		switch {
		case r.before != nil && r.oldStart > 1:
			start, lines = r.oldStart-1, []string{*r.before}
			text = append([]string{*r.before}, r.new...)
		case r.after != nil:
			lines = []string{*r.after}
			text = append(append([]string(nil), r.new...), *r.after)
		default:
			return ReviewComment{}, false
		}
	}
	end := start + len(lines) - 1
	if start < 1 {
		return ReviewComment{}, false
	}
	hunk := -1
	for i, want := range lines {
		got, ok := rl[start+i]
		if !ok || got.text != want || (hunk >= 0 && got.hunk != hunk) || used[path][start+i] {
			return ReviewComment{}, false
		}
		hunk = got.hunk
	}
	if used[path] == nil {
		used[path] = map[int]bool{}
	}
	for l := start; l <= end; l++ {
		used[path][l] = true
	}
	c := ReviewComment{Path: path, Line: end, Side: "RIGHT", Body: SuggestionIntro + "\n\n" + suggestionBlock(text)}
	if end > start {
		c.StartLine, c.StartSide = start, "RIGHT"
	}
	return c, true
}

// suggestionBlock fences lines as a GitHub suggestion, with a fence longer
// than any run of backticks inside.
func suggestionBlock(lines []string) string {
	body := strings.Join(lines, "\n")
	fence := "```"
	for strings.Contains(body, fence) {
		fence += "`"
	}
	if len(lines) == 0 {
		return fence + "suggestion\n" + fence
	}
	return fence + "suggestion\n" + body + "\n" + fence
}

// Body returns the review's Markdown body: intro, then the changes no
// suggestion could carry, as one diff block.
func (s Suggested) Body(intro string) string {
	var b strings.Builder
	b.WriteString(intro)
	if len(s.Outside) > 0 {
		patch := strings.Join(s.Outside, "")
		fence := "```"
		for strings.Contains(patch, fence) {
			fence += "`"
		}
		fmt.Fprintf(&b, "\n\n%d change(s) of the fix touch lines this pull request does not, so GitHub cannot offer them as suggestions:\n\n%sdiff\n%s%s\n", len(s.Outside), fence, patch, fence)
	}
	return b.String()
}

// rightLine is one line of the right side (the head) of a pull request's
// diff: its text and the hunk it is in.
type rightLine struct {
	text string
	hunk int
}

// rightLines maps head line numbers to their lines.
type rightLines map[int]rightLine

// maxPatchLines bounds the lines read from one diff (a network peer's or a
// fix's); GitHub itself stops sending a file's patch well before.
const maxPatchLines = 200_000

// parseRight reads a pull request file's hunks: the context (' ') and
// added ('+') lines, numbered from each hunk's "+start".
func parseRight(patch string) rightLines {
	out := rightLines{}
	hunk, line, in := -1, 0, false
	for i, l := range strings.Split(patch, "\n") {
		if i == maxPatchLines {
			break
		}
		if strings.HasPrefix(l, "@@") {
			_, ns, ok := hunkHeader(l)
			hunk, line, in = hunk+1, ns, ok
			continue
		}
		if !in {
			continue
		}
		if l == "" {
			in = false // not a diff line: the numbering is lost
			continue
		}
		switch l[0] {
		case ' ', '+':
			if line >= 1 {
				out[line] = rightLine{text: strings.TrimSuffix(l[1:], "\r"), hunk: hunk}
			}
			line++
		case '-', '\\':
		default:
			in = false
		}
	}
	return out
}

// hunkHeader reads "@@ -a[,b] +c[,d] @@…" and returns a and c.
func hunkHeader(l string) (oldStart, newStart int, ok bool) {
	f := strings.Fields(l)
	if len(f) < 4 || f[0] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, false
	}
	num := func(s string) (int, bool) {
		s, _, _ = strings.Cut(s[1:], ",")
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 0 && n <= 1<<30
	}
	a, ok1 := num(f[1])
	c, ok2 := num(f[2])
	return a, c, ok1 && ok2
}

// filePatch is one file of a fix's diff, as runs of changed lines.
type filePatch struct {
	path string
	runs []changeRun
}

// changeRun is a run of removed and added lines with no context line
// between them: lines oldStart.. of the original (old) become new. before
// and after are the context lines around it, when the diff shows them.
type changeRun struct {
	oldStart      int
	newStart      int
	old, new      []string
	before, after *string
}

// patch renders the run as a unified diff of path.
func (r changeRun) patch(path string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n@@ -%d,%d +%d,%d @@\n", path, path, r.oldStart, len(r.old), r.newStart, len(r.new))
	for _, l := range r.old {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range r.new {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// parsePatch reads a unified diff into its files' change runs. Lines it
// does not understand end the current hunk.
func parsePatch(p string) []filePatch {
	var files []filePatch
	var cur *filePatch
	var run *changeRun
	var last *string // the last context line seen
	oldLine, newLine, in := 0, 0, false
	flush := func() {
		if run != nil && cur != nil {
			cur.runs = append(cur.runs, *run)
		}
		run = nil
	}
	lines := strings.Split(p, "\n")
	for i := 0; i < len(lines) && i < maxPatchLines; i++ {
		l := strings.TrimSuffix(lines[i], "\r")
		switch {
		case strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			flush()
			path := diffPath(strings.TrimSuffix(lines[i+1][4:], "\r"))
			files = append(files, filePatch{path: path})
			cur, in = &files[len(files)-1], false
			if path == "" {
				cur = nil
			}
			i++
		case strings.HasPrefix(l, "@@"):
			flush()
			oldLine, newLine, in = hunkHeaderFull(l)
			last = nil
		case !in || cur == nil || l == "":
			// An empty line is no diff line (an empty context line is
			// " "): what follows is not read as part of the hunk.
			flush()
			in = false
		case l[0] == ' ':
			t := l[1:]
			if run != nil {
				run.after = &t
			}
			flush()
			last = &t
			oldLine, newLine = oldLine+1, newLine+1
		case l[0] == '-' || l[0] == '+':
			if run == nil {
				run = &changeRun{oldStart: oldLine, newStart: newLine, before: last}
			}
			if l[0] == '-' {
				run.old = append(run.old, l[1:])
				oldLine++
			} else {
				run.new = append(run.new, l[1:])
				newLine++
			}
		case l[0] == '\\': // "\ No newline at end of file"
		default:
			flush()
			in = false
		}
	}
	flush()
	sort.SliceStable(files, func(a, b int) bool { return files[a].path < files[b].path })
	return files
}

// hunkHeaderFull is hunkHeader with the numbers adjusted so that they
// count the next line read: a hunk of zero old lines ("-5,0") starts after
// line 5.
func hunkHeaderFull(l string) (oldLine, newLine int, ok bool) {
	a, c, ok := hunkHeader(l)
	if !ok {
		return 0, 0, false
	}
	f := strings.Fields(l)
	if strings.HasSuffix(f[1], ",0") {
		a++
	}
	if strings.HasSuffix(f[2], ",0") {
		c++
	}
	return a, c, true
}

// diffPath takes the path out of a "+++ b/path" header: the "b/" prefix
// removed, a quoted path or /dev/null refused.
func diffPath(s string) string {
	s, _, _ = strings.Cut(s, "\t")
	if s == "/dev/null" || strings.HasPrefix(s, `"`) {
		return ""
	}
	s = strings.TrimPrefix(s, "b/")
	if s == "" || strings.HasPrefix(s, "/") || strings.Contains("/"+s+"/", "/../") || len(s) > 4096 {
		return ""
	}
	return s
}

// Change is one run of changed lines of a unified diff: lines OldStart to
// OldStart+len(Old)-1 of Path's original became New. An insertion has no
// Old lines and goes before line OldStart.
type Change struct {
	Path     string
	OldStart int
	Old, New []string
}

// Changes reads a unified diff (as Suggestions does) into its runs of
// changed lines, file by file.
func Changes(patch string) []Change {
	var out []Change
	for _, fp := range parsePatch(patch) {
		for _, r := range fp.runs {
			out = append(out, Change{Path: fp.path, OldStart: r.oldStart, Old: r.old, New: r.new})
		}
	}
	return out
}
