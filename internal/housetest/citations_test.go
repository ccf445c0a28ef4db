package housetest

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// pendingCitations lists the paths, relative to the module root (a
// directory ends in "/"), whose comments or docs still cite the documents
// salve was created from instead of a page under docs/contracts/. They
// belong to areas being edited elsewhere; the lead empties this list once
// their citations are rewritten. An entry that no longer holds a citation
// fails the test, so the list can only shrink.
var pendingCitations = []string{}

// outsideCitation matches a citation of a document that is not in the
// repository: a seed by number or by section, the CLI spec by section, the
// seeds' folder or the CLI spec's file. Text is matched with its
// whitespace collapsed, so a citation broken across comment lines is still
// found.
var outsideCitation = regexp.MustCompile(`(?i)\bseeds? (?:00\d|§)|\bspec §|\bseeds/|\bspec/ai-agent-cli`)

// contractCitation matches a reference to a contract page; the section
// list, if any, follows it: "docs/contracts/ai-agent.md §2, §5",
// "[…](contracts/git-agent.md) §3.1", "docs/contracts/heal-pipeline.md
// §Fix Agent".
var contractCitation = regexp.MustCompile(`\bcontracts/([a-z0-9-]+)\.md[)\]]* ?`)

// sectionNumber is a numbered section reference, as in "§9.4".
var sectionNumber = regexp.MustCompile(`^§(\d+(?:\.\d+)*)`)

// sectionTitle is the quoted title that may follow a numbered reference,
// as in `§2 "Tool overflow handling"`.
var sectionTitle = regexp.MustCompile(`^ "([^"]+)"`)

// sectionJoin separates references to sections of the same page.
var sectionJoin = regexp.MustCompile(`^(?:,| and|/|;)? ?§`)

// contractPage is what a page under docs/contracts/ offers to cite.
type contractPage struct {
	numbers map[string]bool // "2", "9.4"
	titles  []string        // lower-case heading titles, longest first
}

// loadContractPages reads the headings of every page under docs/contracts/.
func loadContractPages(t *testing.T, root string) map[string]contractPage {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "contracts", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("docs/contracts/ holds no pages")
	}
	pages := map[string]contractPage{}
	heading := regexp.MustCompile(`(?m)^#{2,4} (.+)$`)
	numbered := regexp.MustCompile(`^(\d+(?:\.\d+)*)\.? (.+)$`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := contractPage{numbers: map[string]bool{}}
		for _, m := range heading.FindAllStringSubmatch(string(b), -1) {
			title := strings.TrimSpace(m[1])
			if n := numbered.FindStringSubmatch(title); n != nil {
				p.numbers[n[1]] = true
				title = n[2]
			}
			p.titles = append(p.titles, strings.ToLower(strings.ReplaceAll(title, "`", "")))
		}
		sort.Slice(p.titles, func(i, j int) bool { return len(p.titles[i]) > len(p.titles[j]) })
		pages[strings.TrimSuffix(filepath.Base(f), ".md")] = p
	}
	return pages
}

// checkSections returns what is wrong with the section list refs that
// follows a citation of page: each "§N" must be a numbered heading, each
// "§Name" the start of a heading's title, and a quoted title after a
// number one of the page's titles.
func (p contractPage) checkSections(refs string) []string {
	var bad []string
	for strings.HasPrefix(refs, "§") {
		if m := sectionNumber.FindStringSubmatch(refs); m != nil {
			if !p.numbers[m[1]] {
				bad = append(bad, "§"+m[1])
			}
			refs = refs[len(m[0]):]
			if q := sectionTitle.FindStringSubmatch(refs); q != nil {
				if !p.hasTitle(strings.ToLower(q[1])) {
					bad = append(bad, `"`+q[1]+`"`)
				}
				refs = refs[len(q[0]):]
			}
		} else {
			rest := strings.ToLower(strings.TrimPrefix(refs, "§"))
			n := 0
			for _, title := range p.titles {
				if strings.HasPrefix(rest, title) {
					n = len(title)
					break
				}
			}
			if n == 0 {
				word, _, _ := strings.Cut(refs, " ")
				return append(bad, word+"…")
			}
			refs = refs[len("§")+n:]
		}
		j := sectionJoin.FindStringIndex(refs)
		if j == nil {
			break
		}
		refs = refs[j[1]-len("§"):]
	}
	return bad
}

// hasTitle reports whether title is one of the page's heading titles.
func (p contractPage) hasTitle(title string) bool {
	for _, t := range p.titles {
		if t == title {
			return true
		}
	}
	return false
}

// citationText is one comment, or one document, with its whitespace
// collapsed, and where it starts.
type citationText struct {
	path string // relative to the module root, slash-separated
	line int
	text string
}

// collapse joins the lines of a comment or a document into one line.
func collapse(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// goComments returns the comments of a Go file, runs of line comments on
// consecutive lines joined into one text.
func goComments(t *testing.T, root, rel string) []citationText {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file := fset.AddFile(rel, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, scanner.ScanComments)
	var out []citationText
	lastLine := -1
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok != token.COMMENT {
			continue
		}
		line := fset.Position(pos).Line
		text := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSuffix(lit, "*/"), "//"), "/*")
		if len(out) > 0 && line == lastLine+1 && strings.HasPrefix(lit, "//") {
			out[len(out)-1].text += " " + text
		} else {
			out = append(out, citationText{path: rel, line: line, text: text})
		}
		lastLine = line + strings.Count(lit, "\n")
	}
	for i := range out {
		out[i].text = collapse(out[i].text)
	}
	return out
}

// citationTexts walks the module: every Go file's comments, and every
// Markdown document under docs/. Test data and hidden folders are skipped.
func citationTexts(t *testing.T, root string) []citationText {
	t.Helper()
	var out []citationText
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (name == "testdata" || name == "node_modules" || name == "vendor" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(rel, ".go"):
			out = append(out, goComments(t, root, rel)...)
		case strings.HasSuffix(rel, ".md") && strings.HasPrefix(rel, "docs/"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out = append(out, citationText{path: rel, line: 1, text: collapse(string(b))})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pendingFor returns the entry of pendingCitations that covers rel, or "".
func pendingFor(rel string) string {
	for _, p := range pendingCitations {
		if rel == p || (strings.HasSuffix(p, "/") && strings.HasPrefix(rel, p)) {
			return p
		}
	}
	return ""
}

// TestCitationsNameContractPages keeps every citation followable: a Go
// comment or a doc under docs/ cites the pages under docs/contracts/,
// never the documents salve was created from (which are not in the
// repository), and every "contracts/PAGE.md §X" names a page that exists
// and a section that page has. Paths in pendingCitations are reported,
// not failed, while they still hold outside citations.
func TestCitationsNameContractPages(t *testing.T) {
	root := filepath.Join("..", "..")
	pages := loadContractPages(t, root)
	pending := map[string]int{}
	for _, c := range citationTexts(t, root) {
		if ms := outsideCitation.FindAllString(c.text, -1); ms != nil {
			if p := pendingFor(c.path); p != "" {
				pending[p] += len(ms)
			} else {
				t.Errorf("%s:%d cites %q, documents that are not in the repository: cite a page under docs/contracts/ instead", c.path, c.line, ms)
			}
		}
		for _, m := range contractCitation.FindAllStringSubmatchIndex(c.text, -1) {
			name := c.text[m[2]:m[3]]
			page, ok := pages[name]
			if !ok {
				t.Errorf("%s:%d cites docs/contracts/%s.md, which does not exist", c.path, c.line, name)
				continue
			}
			for _, s := range page.checkSections(c.text[m[1]:]) {
				t.Errorf("%s:%d cites docs/contracts/%s.md %s, a section that page does not have", c.path, c.line, name, s)
			}
		}
	}
	for _, p := range pendingCitations {
		if pending[p] == 0 {
			t.Errorf("pendingCitations lists %s, which cites no outside document any more: remove it from the list", p)
			continue
		}
		t.Logf("pending: %s still holds %d outside citations (pendingCitations)", p, pending[p])
	}
}

// TestCheckSections pins how a section list after a page reference is read.
func TestCheckSections(t *testing.T) {
	page := contractPage{
		numbers: map[string]bool{"2": true, "9": true, "9.4": true},
		titles:  []string{"tool overflow handling", "fix agent", "executor"},
	}
	for _, tc := range []struct {
		refs string
		bad  []string
	}{
		{"", nil},
		{"for the rules", nil},
		{"§2", nil},
		{"§9.4). More text §3", nil},
		{"§2, §9 and §9.4.", nil},
		{"§2; docs/contracts/x.md §7", nil},
		{"§3", []string{"§3"}},
		{"§2, §9.5", []string{"§9.5"}},
		{"§2/§12", []string{"§12"}},
		{`§2 "Tool Overflow Handling", "Other"`, nil},
		{`§2 "Nothing like it"`, []string{`"Nothing like it"`}},
		{"§Fix Agent) and more", nil},
		{"§Executor, §Fix Agent", nil},
		{"§Planner)", []string{"§Planner)…"}},
	} {
		got := page.checkSections(tc.refs)
		if strings.Join(got, "|") != strings.Join(tc.bad, "|") {
			t.Errorf("checkSections(%q) = %q, want %q", tc.refs, got, tc.bad)
		}
	}
}
