package rerun

import (
	"encoding/xml"
	"errors"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"
)

// junitText reads a JUnit XML report written among a run's output (the
// vitest junit reporter prints it to stdout); false when there is none.
func (c *collector) junitText(text string) bool {
	start := strings.Index(text, "<testsuites")
	end := strings.LastIndex(text, "</testsuites>")
	if start < 0 {
		start = strings.Index(text, "<testsuite")
		end = strings.LastIndex(text, "</testsuite>")
	}
	if start < 0 {
		return false
	}
	c.format = "junit-xml"
	ok := c.junit(strings.NewReader(text[start:]))
	c.completed = ok && end > start
	return true
}

// reportDirs are where Maven's Surefire and Gradle write their JUnit
// reports, per runner.
var reportDirs = map[string][]string{
	"maven":  {"target/surefire-reports", "target/failsafe-reports"},
	"gradle": {"build/test-results"},
}

// junitFiles reads the TEST-*.xml reports a Maven or Gradle run wrote,
// in any module's report folder, modified at or after since. The run is
// complete when at least one fresh report was read and every one of them
// parsed to its closing element.
func (c *collector) junitFiles(reports fs.FS, since time.Time, runner string) {
	if reports == nil {
		return
	}
	n, complete := 0, true
	_ = fs.WalkDir(reports, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || n >= maxReportFiles {
			return fs.SkipDir
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "src", ".gradle":
				return fs.SkipDir
			}
			if strings.Count(p, "/") > 8 {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !inReportDir(p, runner) {
			return nil
		}
		base := path.Base(p)
		if !strings.HasPrefix(base, "TEST-") || !strings.HasSuffix(base, ".xml") {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.ModTime().Before(since) || info.Size() > maxReportFile {
			return nil
		}
		f, err := reports.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		n++
		c.format = "junit-xml"
		if !c.junit(io.LimitReader(f, maxReportFile)) {
			complete = false
		}
		return nil
	})
	c.completed = n > 0 && complete
	if n > 0 {
		c.sum("read " + strconv.Itoa(n) + " JUnit report(s)")
	}
}

// inReportDir reports whether p lies in one of runner's report folders.
func inReportDir(p, runner string) bool {
	for _, d := range reportDirs[runner] {
		if strings.HasPrefix(p, d+"/") || strings.Contains(p, "/"+d+"/") {
			return true
		}
	}
	return false
}

// junit reads one JUnit XML document: every testcase is named
// classname.name, and fails when it holds a failure or an error, skips
// when it holds skipped. It returns true when the document parsed to the
// end of its root element.
func (c *collector) junit(r io.Reader) bool {
	dec := xml.NewDecoder(r)
	dec.Strict = false
	depth, rootClosed := 0, false
	var name, status string
	inCase := false
	for {
		tok, err := dec.Token()
		if err != nil {
			// A document cut off before its root closed proves no end.
			return rootClosed && errors.Is(err, io.EOF)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "testcase":
				inCase, status = true, "pass"
				var class, n string
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "classname":
						class = a.Value
					case "name":
						n = a.Value
					}
				}
				name = n
				if class != "" {
					name = class + "." + n
				}
			case "failure", "error":
				if inCase {
					status = "fail"
				}
			case "skipped":
				if inCase && status != "fail" {
					status = "skip"
				}
			}
		case xml.EndElement:
			depth--
			if t.Name.Local == "testcase" && inCase {
				c.set(name, status)
				inCase = false
			}
			if depth == 0 {
				rootClosed = true
				return true
			}
		}
	}
}
