package logparse

import (
	"path"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

func init() {
	register(
		&Row{Name: "javac", Family: "java", Tool: "javac", Hint: ".java:",
			Pattern:  `^(?P<file>[^\s:][^:]*\.java):(?P<line>\d+): (?P<sev>error|warning): (?P<msg>.*)$`,
			Classify: javacClassify, Detail: javacDetail, Confidence: 0.95,
			Doc: "javac (and Gradle's compileJava): File.java:line: error: message"},
		&Row{Name: "maven-compiler", Family: "java", Tool: "maven", Hint: ":[",
			Pattern:  `^\[(?P<sev>ERROR|WARNING)\] (?:file:)?(?P<file>\S+\.(?:java|kt|scala|groovy)):\[(?P<line>\d+)(?:,(?P<col>\d+))?\] (?P<msg>.*)$`,
			Classify: javacClassify, Detail: mavenDetail, Confidence: 0.95,
			Doc: "maven-compiler-plugin: [ERROR] /path/File.java:[line,col] message"},
		&Row{Name: "kotlinc", Family: "java", Tool: "kotlinc", Pre: kotlinStart,
			Pattern:  `^(?P<sev>e|w): (?:file://)?(?P<file>\S+\.kts?):(?P<line>\d+):(?P<col>\d+):? (?P<msg>.*)$`,
			Classify: javacClassify, Confidence: 0.95,
			Doc: "kotlinc and Gradle's Kotlin plugin: e: file:///path/A.kt:line:col message"},
		&Row{Name: "kotlinc-legacy", Family: "java", Tool: "kotlinc", Pre: kotlinStart,
			Pattern:  `^(?P<sev>e|w): (?P<file>\S+\.kts?): \((?P<line>\d+), (?P<col>\d+)\): (?P<msg>.*)$`,
			Classify: javacClassify, Confidence: 0.95,
			Doc: "the Kotlin Gradle plugin before 1.7: e: /path/A.kt: (line, col): message"},
		&Row{Name: "java-stack", Family: "java", Tool: "java",
			Doc: "Java and Kotlin stack traces and JUnit failures (Maven surefire, Gradle): the root cause's (last Caused by:) first frame outside the JDK and test frameworks"},
	)
	addHandler(90, func() handler { return &javaStack{} })
}

// kotlinStart is a cheap test for kotlinc's "e: " and "w: " lines.
func kotlinStart(s string) bool {
	return len(s) > 3 && (s[0] == 'e' || s[0] == 'w') && s[1] == ':' && s[2] == ' '
}

// mavenDetail reads the "symbol:" and "location:" lines Maven prints
// under a javac error (indented, or after "[ERROR]" in its recap), which
// the message keeps as javacDetail does.
func mavenDetail(f *finding, s string, _ int) bool {
	t := strings.TrimSpace(strings.TrimPrefix(s, "[ERROR]"))
	if !hasPrefix(t, "symbol:") && !hasPrefix(t, "location:") {
		return false
	}
	f.msg += "\n  " + t
	return true
}

// javacClassify keeps errors and, after "-Werror", warnings; the message
// decides the type, with TYPE_ERROR as default.
func javacClassify(m *match) (contract.ErrorType, bool) {
	sev := strings.ToLower(m.get("sev"))
	msg := m.get("msg")
	if sev == "warning" || sev == "w" {
		if m.p.ctx.werror || strings.Contains(msg, "-Werror") {
			return contract.ErrLinting, true
		}
		// javac names -Werror only after the warnings: keep them aside.
		if len(m.p.ctx.javaWarn) < 200 {
			m.p.ctx.javaWarn = append(m.p.ctx.javaWarn, finding{file: own(m.get("file")), line: m.num("line"), col: m.num("col"),
				typ: contract.ErrLinting, msg: own(msg), tool: m.row.Tool, sev: "warning", conf: 0.85, base: m.p.base(), row: m.row.Name})
			if m.row.Detail != nil {
				m.p.holdWarn(len(m.p.ctx.javaWarn)-1, m.row.Detail) // its caret gives its column
			}
		}
		return "", false
	}
	if hasPrefix(msg, "cannot find symbol") && strings.Contains(m.line, "import ") {
		return contract.ErrImport, true
	}
	return classifyMessage(msg, contract.ErrTypeError), true
}

var (
	reJavaExc  = lazyre.New(`^\s*(?:Exception in thread "[^"]*" |Caused by: )?((?:[a-zA-Z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error|Failure|Throwable|Failed)[\w$]*)(?::\s*(.*))?$`)
	reSurefOld = lazyre.New(`^\[ERROR\] (\w+)\(([\w.$]+)\)\s+Time elapsed.*<<< (?:FAILURE|ERROR)!`)
	reSurefNew = lazyre.New(`^\[ERROR\] ([\w.$]+)\.(\w+)\s+--\s+Time elapsed.*<<< (?:FAILURE|ERROR)!`)
	reGradleF  = lazyre.New(`^(\S+) > (\S+?)(?:\(\))? FAILED$`)
	reGradleAt = lazyre.New(`^\s+([\w.$]+(?:Exception|Error|Failure)\w*) at (\S+\.(?:java|kt|groovy|scala)):(\d+)$`)
)

// foreignJava are class prefixes of the JDK, build tools and test
// frameworks; their frames are never the report.
var foreignJava = []string{"java.", "javax.", "jdk.", "sun.", "com.sun.", "org.junit.", "junit.", "org.opentest4j.",
	"org.apache.maven.", "org.gradle.", "worker.org.gradle.", "kotlin.", "scala.", "org.testng.", "org.assertj.",
	"org.hamcrest.", "org.mockito.", "org.springframework.", "net.bytebuddy.", "org.codehaus.", "com.google.common."}

// javaStack reads exceptions, their frames and the JUnit runners' test
// headers. A trace with "Caused by:" sections is reported at its root
// cause (the last section): at that section's first workspace frame, the
// deepest one; when the root cause has none of its own, in the frames it
// shares with the enclosing trace ("... N more").
type javaStack struct {
	active   bool
	sections []javaSection
	supp     bool // inside a "Suppressed:" block, whose frames are not the trace's
	test     string
	class    string
}

// javaSection is one exception of a trace: the first, or a Caused by.
type javaSection struct {
	msg    string
	frames int      // frames read
	ws     []javaWs // workspace frames, by index (bounded)
	more   int      // "... N more": the last N frames of the enclosing section
}

// javaWs is a workspace frame at an index of its section.
type javaWs struct {
	idx int
	f   finding
}

func (j *javaStack) line(p *parser, s string) bool {
	if len(s) < 4 {
		j.end(p)
		return false
	}
	switch s[0] {
	case '[':
		if hasPrefix(s, "[INFO] ") {
			p.ctx.maven = true
		}
		if hasPrefix(s, "[ERROR] ") {
			if m := reSurefOld.FindStringSubmatch(s); m != nil {
				j.end(p)
				j.test, j.class = m[1], m[2]
				return true
			}
			if m := reSurefNew.FindStringSubmatch(s); m != nil {
				j.end(p)
				j.test, j.class = m[2], m[1]
				return true
			}
		}
	case '>':
		if hasPrefix(s, "> Task ") {
			p.ctx.maven = true
		}
	}
	if hasSuffix(s, " FAILED") && strings.Contains(s, " > ") {
		if m := reGradleF.FindStringSubmatch(s); m != nil {
			j.end(p)
			j.test, j.class = m[2], m[1]
			return true
		}
	}
	if j.test != "" && isDigit(s[len(s)-1]) && gradleAtShape(s) {
		if m := reGradleAt.FindStringSubmatch(s); m != nil {
			f := finding{file: javaPath(p, j.class, m[2]), line: atoi(m[3]), typ: javaExcType(m[1], ""), msg: strings.TrimSpace(s),
				test: j.test, tool: "gradle", conf: 0.8, base: p.base(), row: "java-stack"}
			p.emit(f)
			return true
		}
	}
	if m := javaFrame(s); m != nil {
		if !j.active || len(j.sections) == 0 || j.supp {
			return true
		}
		sec := &j.sections[len(j.sections)-1]
		idx := sec.frames
		sec.frames++
		cls := m[1] + m[2]
		if javaForeign(cls) || len(sec.ws) >= 64 {
			return true
		}
		sec.ws = append(sec.ws, javaWs{idx: idx, f: finding{file: own(javaPath(p, cls, m[4])), line: atoi(m[5]),
			tool: "java", conf: 0.75, base: own(p.base()), row: "java-stack"}})
		return true
	}
	t := s
	if j.active && (s[0] == ' ' || s[0] == '\t') {
		t = trimIndent(s)
		if hasPrefix(t, "Suppressed: ") {
			j.supp = true
			return true
		}
	}
	if javaExcHead(s) && p.hasErrWord(s) {
		if m := reJavaExc.FindStringSubmatch(s); m != nil && !hasPrefix(s, "[") {
			if j.active && strings.Contains(s, "Caused by: ") {
				if !hasPrefix(s, "Caused by: ") {
					return true // a suppressed exception's cause
				}
				j.supp = false
				if len(j.sections) >= 16 {
					j.sections = append(j.sections[:1], j.sections[2:]...)
				}
				j.sections = append(j.sections, javaSection{msg: own(strings.TrimSpace(s))})
				return true
			}
			j.end(p)
			j.active = true
			j.sections = append(j.sections[:0], javaSection{msg: own(strings.TrimSpace(s))})
			return true
		}
	}
	if j.active && hasPrefix(t, "... ") {
		if n := atoi(strings.TrimPrefix(t, "... ")); n > 0 && !j.supp && len(j.sections) > 0 {
			j.sections[len(j.sections)-1].more = n
		}
		return true
	}
	if j.active && !hasPrefix(s, "\t") && !hasPrefix(s, " ") {
		j.end(p)
	}
	return false
}

// end reports the trace read so far, at its root cause.
func (j *javaStack) end(p *parser) {
	if !j.active {
		return
	}
	j.active, j.supp = false, false
	secs := j.sections
	j.sections = j.sections[:0]
	if len(secs) == 0 {
		return
	}
	root := secs[len(secs)-1]
	loc := javaRootFrame(secs)
	if loc == nil {
		return
	}
	f := *loc
	m := reJavaExc.FindStringSubmatch(root.msg)
	name := ""
	if m != nil {
		name = m[1]
	}
	f.typ, f.msg, f.test = javaExcType(name, root.msg), strings.TrimPrefix(root.msg, "Caused by: "), j.test
	if len(secs) > 1 {
		f.msg = secs[0].msg + "\n" + root.msg
	}
	if f.test != "" {
		f.conf = 0.85
	}
	p.emit(f)
}

// javaRootFrame finds the deepest workspace frame of the root cause: its
// own first workspace frame, else the first workspace frame among the
// frames it shares with the enclosing section ("... N more"), and so on
// outwards; failing that, the outermost section's first workspace frame.
func javaRootFrame(secs []javaSection) *finding {
	from := 0 // in the current section, frames from this index are the root cause's
	for k := len(secs) - 1; k >= 0; k-- {
		for _, w := range secs[k].ws {
			if w.idx >= from {
				return &w.f
			}
		}
		if k > 0 {
			from = secs[k-1].frames - secs[k].more
			if secs[k].more == 0 {
				from = secs[k-1].frames // nothing shared
			}
		}
	}
	for _, sec := range secs {
		if len(sec.ws) > 0 {
			return &sec.ws[0].f
		}
	}
	return nil
}

// javaFrame reads "\tat pkg.Class.method(File.java:12)", with an optional
// module prefix ("java.base/"). It returns the groups of the old regular
// expression: package with its dot, class, method, file, line.
func javaFrame(s string) []string {
	// Most lines do not end with ')': a cheap test before the trimming.
	e := len(s) - 1
	for e >= 0 && (s[e] == ' ' || s[e] == '\t' || s[e] == '\r') {
		e--
	}
	if e < 0 || s[e] != ')' {
		return nil
	}
	t := strings.TrimSpace(s)
	if !hasPrefix(t, "at ") || !hasSuffix(t, ")") {
		return nil
	}
	t = t[3 : len(t)-1]
	open := strings.IndexByte(t, '(')
	if open <= 0 {
		return nil
	}
	name, loc := t[:open], t[open+1:]
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	c := strings.LastIndexByte(loc, ':')
	if c <= 0 || !allDigits(loc[c+1:]) {
		return nil
	}
	file := loc[:c]
	switch path.Ext(file) {
	case ".java", ".kt", ".scala", ".groovy":
	default:
		return nil
	}
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 || strings.ContainsAny(name, " ") {
		return nil
	}
	cls, method := name[:dot], name[dot+1:]
	pkg, simple := "", cls
	if k := strings.LastIndexByte(cls, '.'); k >= 0 {
		pkg, simple = cls[:k+1], cls[k+1:]
	}
	return []string{s, pkg, simple, method, file, loc[c+1:]}
}

// gradleAtShape is a cheap test before reGradleAt: the line is indented,
// and its first word names an exception, error or failure and is followed
// by " at ". The expression's class is that word, which holds no blank.
func gradleAtShape(s string) bool {
	u := trimLeftRESpace(s)
	word, rest, _ := strings.Cut(u, " ")
	return len(u) < len(s) && hasPrefix(rest, "at ") &&
		(strings.Contains(word, "Exception") || strings.Contains(word, "Error") || strings.Contains(word, "Failure"))
}

// javaExcHead is a cheap test before reJavaExc: the line starts with a
// dotted class name, after "Exception in thread ..." or "Caused by: ".
func javaExcHead(s string) bool { return dottedHead(javaExcStart(s)) }

// javaExcStart is s from where its exception's class name would start.
func javaExcStart(s string) string {
	s = trimIndent(s)
	if hasPrefix(s, "Caused by: ") {
		s = s[len("Caused by: "):]
	} else if hasPrefix(s, "Exception in thread ") {
		if i := strings.Index(s, `" `); i > 0 {
			s = s[i+2:]
		}
	}
	return s
}

// dottedHead reports whether the head of s, up to its first colon, is a
// dotted name: a dot after its first byte, and no blank or slash. It
// scans once, and most lines end the scan at their first blank.
func dottedHead(s string) bool {
	dot := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ':':
			return dot > 0
		case ' ', '\t', '/':
			return false
		case '.':
			if dot < 0 {
				dot = i
			}
		}
	}
	return dot > 0
}

func (j *javaStack) flush(p *parser) { j.end(p) }

func javaForeign(cls string) bool {
	for _, f := range foreignJava {
		if hasPrefix(cls, f) {
			return true
		}
	}
	return false
}

// javaPath turns a class name and its source file name into a path. With
// a workspace index the path is matched by suffix; otherwise a Maven or
// Gradle log gets the conventional src/{main,test}/{java,kotlin} prefix.
func javaPath(p *parser, cls, file string) string {
	pkg := ""
	if i := strings.LastIndexByte(cls, '.'); i >= 0 {
		pkg = strings.ReplaceAll(cls[:i], ".", "/")
		// Nested classes: the package ends before the first capitalised element.
		parts := strings.Split(pkg, "/")
		for k, el := range parts {
			if el != "" && el[0] >= 'A' && el[0] <= 'Z' {
				pkg = strings.Join(parts[:k], "/")
				break
			}
		}
	}
	rel := path.Join(pkg, file)
	if p.res.files != nil {
		if m := p.res.suffixMatch(rel); m != "" {
			return m
		}
		return rel
	}
	if !p.ctx.maven {
		return rel
	}
	simple := cls[strings.LastIndexByte(cls, '.')+1:]
	dir := "main"
	if hasSuffix(simple, "Test") || hasSuffix(simple, "Tests") || hasSuffix(simple, "IT") || hasPrefix(simple, "Test") {
		dir = "test"
	}
	lang := "java"
	if hasSuffix(file, ".kt") {
		lang = "kotlin"
	}
	return path.Join("src", dir, lang, rel)
}

// javaExcType maps a Java exception to an error type.
func javaExcType(name, msg string) contract.ErrorType {
	simple := name[strings.LastIndexByte(name, '.')+1:]
	switch simple {
	case "ClassNotFoundException", "NoClassDefFoundError":
		return contract.ErrImport
	case "NoSuchMethodError", "NoSuchFieldError", "ClassCastException", "IncompatibleClassChangeError", "AbstractMethodError":
		return contract.ErrTypeError
	}
	return contract.ErrLogic
}
