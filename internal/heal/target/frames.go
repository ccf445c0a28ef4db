package target

import (
	"path"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// Bounds on the message the frame reader looks at: it is log text, and
// hostile.
const (
	maxMessage   = 64 << 10 // bytes read: the first and last half of this
	maxLineBytes = 4096     // longer lines are skipped
	maxFrames    = 64       // frames kept, innermost first
)

// frame is one source location a stack trace in a message names.
type frame struct {
	// path is the file as the trace spells it (slash-separated); when
	// suffix is set it is only the end of a path, to search for.
	path   string
	suffix bool
	line   int
	// fn is the function the trace names, when it names one: a hint to
	// pick the right declaration around the line.
	fn string
}

// frameRow is one stack-trace format. Its expression has the named groups
// path (or file and class, for a JVM frame), line and, when the format
// gives it, fn.
type frameRow struct {
	name string
	re   *lazyre.Regexp
	// innermostLast is set for formats that print the innermost call last
	// (Python tracebacks).
	innermostLast bool
	// build turns a match into a frame; nil means the plain groups.
	build func(g map[string]string) (frame, bool)
}

// frameRows are the stack-trace formats the reader knows.
var frameRows = []frameRow{
	{name: "python", innermostLast: true,
		re: lazyre.New(`File "(?P<path>[^"]{1,1000})", line (?P<line>\d{1,7})(?:, in (?P<fn>[\w<>.]{1,200}))?`)},
	{name: "pytest", innermostLast: true,
		re: lazyre.New(`^(?P<path>[^\s:"]{1,1000}\.py):(?P<line>\d{1,7}): (?:in (?P<fn>[\w<>.]{1,200})|[A-Z]\w{0,200}(?:Error|Exception|Failure|Exit))\s*$`)},
	{name: "go",
		re: lazyre.New(`^\s*(?P<path>[^\s:]{1,1000}\.go):(?P<line>\d{1,7})(?: \+0x[0-9a-f]{1,16})?\s*$`)},
	{name: "jvm", build: jvmFrame,
		re: lazyre.New(`^\s*at (?:[\w.$-]{1,200}/)?(?P<class>[\w$.]{1,512})\.(?P<fn>[\w$<>]{1,200})\((?P<file>[\w$-]{1,200}\.(?:java|kt|scala|groovy)):(?P<line>\d{1,7})\)`)},
	{name: "js", build: jsFrame,
		re: lazyre.New(`^\s*at (?:async )?(?:new )?(?:(?P<fn>[^\s()]{1,200}) (?:\[as [^\]]{1,200}\] )?\()?(?P<path>[^\s()]{1,1000}\.(?:js|mjs|cjs|jsx|ts|mts|cts|tsx)):(?P<line>\d{1,7}):\d{1,7}\)?\s*$`)},
	{name: "rust-panic",
		re: lazyre.New(`panicked at (?:'[^']{0,1000}', )?(?P<path>[^\s:']{1,1000}\.rs):(?P<line>\d{1,7}):\d{1,7}`)},
	{name: "rust-backtrace",
		re: lazyre.New(`^\s+at (?P<path>[^\s:]{1,1000}\.rs):(?P<line>\d{1,7})(?::\d{1,7})?\s*$`)},
	{name: "sanitizer",
		re: lazyre.New(`^\s*#\d{1,4} 0x[0-9a-fA-F]{1,16} in (?P<fn>[^\s(]{1,200})(?:\([^)]{0,400}\))? (?P<path>[^\s:]{1,1000}):(?P<line>\d{1,7})(?::\d{1,7})?`)},
	{name: "valgrind", build: baseFrame,
		re: lazyre.New(`^==\d{1,10}==\s+(?:at|by) 0x[0-9A-Fa-f]{1,16}: (?P<fn>[^\s(]{1,200}) \((?P<file>[\w.+-]{1,200}\.(?:c|cc|cpp|cxx|h|hpp)):(?P<line>\d{1,7})\)`)},
}

// readFrames returns the frames of the stack traces in msg, innermost
// first, at most maxFrames. It never fails: what it cannot read, it skips.
func readFrames(msg string) []frame {
	msg = boundMessage(msg)
	var first, last []frame
	for line := range strings.SplitSeq(msg, "\n") {
		if len(line) > maxLineBytes || len(first)+len(last) >= 4*maxFrames {
			continue
		}
		for _, row := range frameRows {
			f, ok := row.match(line)
			if !ok {
				continue
			}
			if row.innermostLast {
				last = append(last, f)
			} else {
				first = append(first, f)
			}
			break
		}
	}
	out := make([]frame, 0, len(first)+len(last))
	for i := len(last) - 1; i >= 0; i-- {
		out = append(out, last[i])
	}
	out = append(out, first...)
	if len(out) > maxFrames {
		out = out[:maxFrames]
	}
	return out
}

func (row frameRow) match(line string) (frame, bool) {
	m := row.re.FindStringSubmatch(line)
	if m == nil {
		return frame{}, false
	}
	g := map[string]string{}
	for i, name := range row.re.SubexpNames() {
		if name != "" {
			g[name] = m[i]
		}
	}
	n, err := strconv.Atoi(g["line"])
	if err != nil || n < 1 {
		return frame{}, false
	}
	var f frame
	ok := true
	if row.build != nil {
		f, ok = row.build(g)
	} else {
		f = frame{path: g["path"], fn: g["fn"]}
	}
	f.line = n
	f.path = strings.ReplaceAll(f.path, `\`, "/")
	return f, ok && cleanName(f.path)
}

// jvmFrame maps `at com.x.Calc$Inner.add(Calc.java:7)` to the path suffix
// com/x/Calc.java, searched for in the workspace, with the hint "add".
func jvmFrame(g map[string]string) (frame, bool) {
	class := g["class"]
	pkg := ""
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		pkg, class = class[:i], class[i+1:]
	}
	fn := g["fn"]
	switch {
	case fn == "<init>" || fn == "<clinit>":
		fn, _, _ = strings.Cut(class, "$")
	case strings.HasPrefix(fn, "lambda$"):
		fn, _, _ = strings.Cut(strings.TrimPrefix(fn, "lambda$"), "$")
	}
	p := g["file"]
	if pkg != "" {
		p = strings.ReplaceAll(pkg, ".", "/") + "/" + p
	}
	return frame{path: p, suffix: true, fn: fn}, true
}

// jsFrame keeps the last element of a dotted function name
// (`Calc.add` -> `add`), and drops anonymous ones.
func jsFrame(g map[string]string) (frame, bool) {
	fn := g["fn"]
	if i := strings.LastIndexByte(fn, '.'); i >= 0 {
		fn = fn[i+1:]
	}
	if strings.ContainsAny(fn, "<>") {
		fn = ""
	}
	return frame{path: strings.TrimPrefix(g["path"], "file://"), fn: fn}, true
}

// baseFrame is a frame that names only a file's base name (valgrind).
func baseFrame(g map[string]string) (frame, bool) {
	return frame{path: path.Base(g["file"]), suffix: true, fn: g["fn"]}, true
}

// boundMessage keeps the head and the tail of a long message, cut at line
// breaks.
func boundMessage(msg string) string {
	if len(msg) <= maxMessage {
		return msg
	}
	head, tail := msg[:maxMessage/2], msg[len(msg)-maxMessage/2:]
	if i := strings.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	if i := strings.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	}
	return head + "\n" + tail
}
