package report

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// SARIF limits that GitHub code scanning documents for an upload: it
// keeps the first 5,000 results of a run (by severity) and rejects more
// than 25,000; a gzip-compressed file may be at most 10 MB. Salve writes at
// most MaxSARIFResults, the most severe first, cuts each message at
// MaxSARIFMessage bytes, and drops results from the end until the
// compressed log fits in MaxSARIFGzipBytes, warning each time.
const (
	MaxSARIFResults   = 5000
	MaxSARIFMessage   = 8 << 10
	MaxSARIFGzipBytes = 10 << 20
)

// sarifSchemaURI is the OASIS SARIF 2.1.0 schema, as the standard asks
// every log to name it.
const sarifSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool              sarifTool         `json:"tool"`
	Results           []sarifResult     `json:"results"`
	Invocations       []sarifInvocation `json:"invocations,omitempty"`
	ColumnKind        string            `json:"columnKind,omitempty"`
	Properties        map[string]any    `json:"properties,omitempty"`
	AutomationDetails *sarifAutomation  `json:"automationDetails,omitempty"`
}

type sarifAutomation struct {
	ID string `json:"id,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name,omitempty"`
	ShortDescription     sarifMultiText `json:"shortDescription"`
	DefaultConfiguration *sarifConfig   `json:"defaultConfiguration,omitempty"`
	Properties           map[string]any `json:"properties,omitempty"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifMultiText struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMultiText    `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string         `json:"level"`
	Message sarifMultiText `json:"message"`
}

func sarifLevel(l level) string {
	switch l {
	case levelWarning:
		return "warning"
	case levelNote:
		return "note"
	}
	return "error"
}

// sarifURI turns a repository-relative path into a relative URI reference:
// each segment percent-encoded, so spaces, '#' and '?' survive. An absolute
// path (the parser keeps one it could not place in the workspace) becomes
// a file: URI without a base.
func sarifURI(p string) (uri string, relative bool) {
	p = cleanPath(p)
	if strings.HasPrefix(p, "/") {
		return (&url.URL{Scheme: "file", Path: p}).String(), false
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/"), true
}

func writeSARIF(w io.Writer, reports []contract.BugReport, o Options) error {
	order := bySeverity(reports)
	var notes []sarifNotification
	note := func(msg string) {
		notes = append(notes, sarifNotification{Level: "warning", Message: sarifMultiText{Text: msg}})
		o.warn("sarif: %s", msg)
	}
	if len(order) > MaxSARIFResults {
		note(fmt.Sprintf("%d results exceed the %d that code scanning keeps per run; the %d most severe are written", len(order), MaxSARIFResults, MaxSARIFResults))
		order = order[:MaxSARIFResults]
	}
	fps := fingerprints(reports)
	cut := 0
	build := func(order []int) sarifLog {
		run := sarifRun{
			Tool:        sarifTool{Driver: sarifDriver{Name: o.tool(), Version: o.ToolVersion, InformationURI: o.InformationURI, Rules: []sarifRule{}}},
			Results:     make([]sarifResult, 0, len(order)),
			ColumnKind:  "unicodeCodePoints",
			Invocations: []sarifInvocation{{ExecutionSuccessful: true, ToolExecutionNotifications: notes}},
		}
		ruleIdx := map[string]int{}
		for _, i := range order {
			r := reports[i]
			id := ruleID(r)
			ri, ok := ruleIdx[id]
			if !ok {
				ri = len(run.Tool.Driver.Rules)
				ruleIdx[id] = ri
				rule := sarifRule{ID: id, ShortDescription: sarifMultiText{Text: title(r)}, DefaultConfiguration: &sarifConfig{Level: sarifLevel(levelOf(r))}}
				rule.Properties = map[string]any{"error_type": string(r.ErrorType)}
				if r.Tool != "" {
					rule.Properties["tool"] = r.Tool
				}
				run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, rule)
			}
			msg, was := capMessage(r.Message, MaxSARIFMessage)
			if was {
				cut++
			}
			if strings.TrimSpace(msg) == "" {
				msg = title(r)
			}
			uri, rel := sarifURI(r.FilePath)
			loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri}}}
			if rel {
				loc.PhysicalLocation.ArtifactLocation.URIBaseID = "%SRCROOT%"
			}
			if r.LineNumber >= 1 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: r.LineNumber}
				if r.Column >= 1 {
					loc.PhysicalLocation.Region.StartColumn = r.Column
				}
			}
			res := sarifResult{
				RuleID: id, RuleIndex: ri, Level: sarifLevel(levelOf(r)),
				Message:             sarifMultiText{Text: msg},
				Locations:           []sarifLocation{loc},
				PartialFingerprints: map[string]string{"salveFingerprint/v1": fps[i]},
				Properties:          map[string]any{"error_type": string(r.ErrorType)},
			}
			if r.TestName != nil && *r.TestName != "" {
				res.Properties["test_name"] = *r.TestName
			}
			if r.ConfidenceScore != nil {
				res.Properties["confidence_score"] = *r.ConfidenceScore
			}
			run.Results = append(run.Results, res)
		}
		return sarifLog{Schema: sarifSchemaURI, Version: "2.1.0", Runs: []sarifRun{run}}
	}
	log := build(order)
	if cut > 0 {
		note(fmt.Sprintf("%d messages were longer than %d bytes and were cut", cut, MaxSARIFMessage))
		log = build(order)
	}
	data, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		return err
	}
	// Drop results from the least severe end until the compressed log
	// fits the upload limit.
	for len(order) > 0 && gzipSize(data) > MaxSARIFGzipBytes {
		keep := len(order) * 3 / 4
		note(fmt.Sprintf("the compressed log exceeds %d bytes; only the %d most severe results are kept", MaxSARIFGzipBytes, keep))
		order = order[:keep]
		if data, err = json.MarshalIndent(build(order), "", "  "); err != nil {
			return err
		}
	}
	data = append(data, '\n')
	_, err = w.Write(data)
	return err
}

func gzipSize(b []byte) int {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Len()
}
