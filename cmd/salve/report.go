package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/buildinfo"
	"github.com/salve-dev/salve/internal/heal/report"
)

// formatNames lists the report formats for flag help.
func formatNames() string {
	names := make([]string, 0, len(report.Formats()))
	for _, f := range report.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// checkFormat validates --format, folding --text into it; textSet tells
// whether --text was given explicitly.
func (o *parseOptions) checkFormat(textSet bool) error {
	f, err := report.ParseFormat(o.Format)
	if err != nil {
		return fmt.Errorf("parse: --format: %w", err)
	}
	if textSet && o.Text {
		if f != report.JSON && f != report.Text {
			return fmt.Errorf("parse: --text and --format %s contradict each other", f)
		}
		f = report.Text
	}
	o.Format = string(f)
	return nil
}

// writeReports writes reports in the named format, sending the format's
// warnings (results cut to fit a limit) to stderr.
func writeReports(stdout, stderr io.Writer, format string, reports []contract.BugReport) error {
	f, err := report.ParseFormat(format)
	if err != nil {
		return err
	}
	return report.Write(stdout, f, reports, report.Options{
		ToolName:       "salve",
		ToolVersion:    buildinfo.Version(version),
		InformationURI: "https://github.com/salve-dev/salve",
		Warn:           func(msg string) { fmt.Fprintf(stderr, "salve: warning: %s\n", msg) },
	})
}
