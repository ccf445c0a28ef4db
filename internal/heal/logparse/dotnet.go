package logparse

import (
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

// .NET, MSVC and Swift: MSBuild's canonical error format (csc, vbc, fsc,
// cl.exe and every tool MSBuild runs), .NET stack traces (dotnet test,
// unhandled exceptions), XCTest and Swift Testing failures and Swift's
// run-time traps. Their paths are often Windows paths; see normalise.

func init() {
	register(
		&Row{Name: "msbuild", Family: "dotnet", Tool: "msbuild", Hint: ": error |: fatal error ", ErrWord: true,
			Pattern:  `^(?:\s*\d+>)?\s*(?P<file>(?:[A-Za-z]:[\\/])?[^\s(:][^(:]*?)\((?P<line>\d+)(?:,(?P<col>\d+))?(?:[-,]\d+)*\)\s?: (?P<sev>error|warning|fatal error) (?P<code>[A-Z]{1,4}\d+)\s?: (?P<msg>.*?)(?: \[[^\[\]]+\])?$`,
			Classify: msbuildClassify, Confidence: 0.95, Generic: true,
			Doc: "MSBuild's canonical format, used by csc, vbc, fsc and MSVC's cl: File.cs(line,col): error CS0103: message [project]"},
		&Row{Name: "dotnet-stack", Family: "dotnet", Tool: "dotnet",
			Doc: "dotnet test failures (Failed Name, Error Message:, Stack Trace:) and unhandled .NET exceptions: the deepest workspace frame (at X in File.cs:line N)"},
		&Row{Name: "xctest", Family: "swift", Tool: "xctest", Hint: ".swift:", ErrWord: true,
			Pattern: `^(?P<file>[^\s:]+\.swift):(?P<line>\d+): error: (?P<test>-\[[\w. ]+\]|[\w.]+) : (?P<msg>.*)$`,
			Type:    contract.ErrLogic, Confidence: 0.9,
			Doc: "XCTest (swift test, xcodebuild): file.swift:line: error: Suite.testName : XCTAssertEqual failed: ..."},
		&Row{Name: "swift-testing", Family: "swift", Tool: "swift-testing", Pre: swiftTestingStart,
			Pattern: `^\S*\s*Test (?P<test>.+?) recorded an issue at (?P<file>[^\s:]+\.swift):(?P<line>\d+):(?:(?P<col>\d+):)? (?P<msg>.*)$`,
			Type:    contract.ErrLogic, Confidence: 0.9,
			Doc: "Swift Testing: Test name() recorded an issue at File.swift:line:col: Expectation failed: ..."},
		&Row{Name: "swift-fatal", Family: "swift", Tool: "swift", Hint: "Fatal error", ErrWord: true,
			Pattern:  `^(?P<file>[^\s:]+\.swift):(?P<line>\d+): Fatal error(?:: (?P<msg>.*))?$`,
			Classify: swiftFatal, Confidence: 0.8,
			Doc: "Swift run-time traps: File.swift:line: Fatal error: Unexpectedly found nil ... (not the standard library's own files)"},
	)
	addHandler(95, func() handler { return &dotnetStack{} })
}

// swiftTestingStart is a cheap test for Swift Testing's lines: a symbol,
// then "Test ".
func swiftTestingStart(s string) bool {
	return strings.Contains(s[:min(len(s), 16)], "Test ") && strings.Contains(s, "recorded an issue at")
}

// swiftFatal drops traps that the standard library reports inside its own
// sources (Swift/Array.swift: Fatal error: Index out of range).
func swiftFatal(m *match) (contract.ErrorType, bool) {
	f := m.get("file")
	for _, lib := range []string{"Swift/", "_Concurrency/", "Foundation/", "FoundationEssentials/", "XCTest/"} {
		if hasPrefix(f, lib) {
			return "", false
		}
	}
	// Swift 5.8 and later name the file by its #fileID, Module/File.swift.
	// Without a workspace to match it, SwiftPM's layout gives the path.
	if m.p.res.files == nil && strings.Count(f, "/") == 1 && !hasPrefix(f, "Sources/") && !hasPrefix(f, "Tests/") {
		dir := "Sources/"
		if hasSuffix(f[:strings.IndexByte(f, '/')], "Tests") {
			dir = "Tests/"
		}
		m.set("file", dir+f)
	}
	return contract.ErrLogic, true
}

// msbuildClassify reads the diagnostic code: MSVC's and the C# compiler's
// codes whose class the message does not make plain, analyzers (CA, IDE,
// SA) as LINTING, warnings dropped (they do not fail the build unless
// promoted, and then they are printed as errors).
func msbuildClassify(m *match) (contract.ErrorType, bool) {
	sev, code, msg := m.get("sev"), m.get("code"), m.get("msg")
	if sev == "warning" {
		return "", false
	}
	if hasPrefix(code, "TS") {
		return tsClassify(m)
	}
	switch code {
	case "CS0246", "CS0234", "CS0400", "CS8019", "IDE0005", "BC30002", "BC40056", "C1083", "C1034", "FS0039":
		if code == "FS0039" && !strings.Contains(msg, "namespace or module") {
			return contract.ErrTypeError, true
		}
		return contract.ErrImport, true
	case "C2220", "CS0168", "CS0219", "CS0162", "CS0414", "CS0649", "CS1591":
		return contract.ErrLinting, true
	}
	switch {
	case hasPrefix(code, "CA") || hasPrefix(code, "IDE") || hasPrefix(code, "SA") ||
		hasPrefix(code, "RCS") || hasPrefix(code, "CS8") && strings.Contains(msg, "null"):
		return contract.ErrLinting, true
	case hasPrefix(code, "CS1") && len(code) == 6 && !reCSSemantic.MatchString(msg):
		return contract.ErrSyntax, true // CS1002 ; expected, CS1513 } expected, CS1525 invalid expression term
	case hasPrefix(code, "BC30") && strings.Contains(msg, "expected"):
		return contract.ErrSyntax, true
	}
	return classifyMessage(msg, contract.ErrTypeError), true
}

// reCSSemantic marks the CS1xxx errors that are not parse errors.
var reCSSemantic = lazyre.New(`does not contain a definition|No overload|Argument \d|cannot convert|does not exist|is inaccessible|not all code paths|must declare a body|is a method|Cannot|cannot`)

var (
	reDotnetFailed = lazyre.New(`^\s*(?:Failed|X) (\S+) \[[^\]]*\]$`)
	reDotnetAt     = lazyre.New(`^\s*at (.+?) in (.+?):line (\d+)\s*$`)
	reDotnetExc    = lazyre.New(`^(?:Unhandled [Ee]xception\. |Unhandled exception: )?((?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*(?:Exception|Error))(?:: (.*))?$`)
)

// dotnetStack reads a failed test's block (dotnet test's console logger:
// "Failed Name [3 ms]", "Error Message:", "Stack Trace:") and unhandled
// exceptions, and reports the deepest workspace frame. It only consumes
// lines of that shape: a block that does not go on as dotnet test's or the
// runtime's does ends at once, and the line is left to the other readers.
type dotnetStack struct {
	phase int // 0 idle; 1 after "Failed", 2 in the message, 3 in the frames
	test  string
	msg   string
	exc   string
	found *finding
	n     int
}

// dotnetLeads start a failed test (Failed, or X) and an unhandled
// exception.
var dotnetLeads = leads("FXU")

func (d *dotnetStack) line(p *parser, s string) bool {
	if d.phase == 0 && p.quiet(dotnetLeads) {
		return false
	}
	if d.phase != 0 {
		d.n++
		t := strings.TrimSpace(s)
		switch {
		case t == "Error Message:" && d.phase == 1:
			d.phase = 2
			return true
		case t == "Stack Trace:" && d.phase == 2:
			d.phase = 3
			return true
		case d.phase == 2 && t != "" && d.n < 100:
			if len(d.msg) < 600 {
				if d.msg != "" {
					d.msg += "\n"
				}
				d.msg += own(t)
			}
			if d.exc == "" {
				if m := reDotnetExc.FindStringSubmatch(t); m != nil {
					d.exc = own(m[1])
				}
			}
			return true
		case d.phase == 3 && hasPrefix(t, "at "):
			if m := reDotnetAt.FindStringSubmatch(s); m != nil && d.found == nil {
				if _, res := p.res.resolve(m[2], p.base()); res != resDrop {
					p.noteFrame(normalise(m[2]))
					d.found = &finding{file: own(m[2]), line: atoi(m[3]), base: own(p.base()), tool: "dotnet", conf: 0.75, row: "dotnet-stack"}
				}
			}
			return true
		case d.phase == 3 && (hasPrefix(t, "--- End of") || hasPrefix(t, "---> ")):
			return true
		}
		d.end(p)
	}
	if len(s) > 8 && s[len(s)-1] == ']' && strings.Contains(s, "Failed ") {
		if m := reDotnetFailed.FindStringSubmatch(s); m != nil {
			*d = dotnetStack{phase: 1, test: own(m[1])}
			return true
		}
	}
	if len(s) > 10 && s[0] == 'U' && hasPrefix(s, "Unhandled") {
		if m := reDotnetExc.FindStringSubmatch(s); m != nil {
			*d = dotnetStack{phase: 3, exc: own(m[1]), msg: own(s)}
			return true
		}
	}
	return false
}

func (d *dotnetStack) end(p *parser) {
	f := d.found
	test, exc, msg := d.test, d.exc, d.msg
	*d = dotnetStack{}
	if f == nil {
		return
	}
	f.test, f.msg = test, msg
	f.typ = dotnetExcType(exc)
	if test != "" {
		f.conf, f.tool = 0.85, "dotnet test"
	}
	p.emit(*f)
}

func (d *dotnetStack) flush(p *parser) {
	if d.phase != 0 {
		d.end(p)
	}
}

// dotnetExcType maps a .NET exception to an error type: a type or member
// the runtime could not bind is TYPE_ERROR, a missing assembly IMPORT,
// assertion failures and the rest LOGIC.
func dotnetExcType(exc string) contract.ErrorType {
	name := exc[strings.LastIndexByte(exc, '.')+1:]
	switch name {
	case "InvalidCastException", "MissingMethodException", "MissingFieldException", "MissingMemberException", "RuntimeBinderException":
		return contract.ErrTypeError
	case "TypeLoadException", "DllNotFoundException":
		return contract.ErrImport
	}
	return contract.ErrLogic
}
