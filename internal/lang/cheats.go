package lang

import "github.com/salve-dev/salve/internal/lazyre"

// Cheat is a shape of code that makes a test pass without making the code
// right: what the integrity policy refuses in a fix. The patterns of each
// kind are written per language from its documented behaviour (how its
// test runners announce themselves, how a process ends, how its assertion
// libraries are reached), and match one line of code whose comments are
// blanked; string literals are kept, since a module's or a variable's name
// is a string.
type Cheat int

const (
	// CheatTestEnv detects, from the code under test, that it runs under a
	// test runner.
	CheatTestEnv Cheat = iota
	// CheatExit ends or kills the process.
	CheatExit
	// CheatTestLibrary reaches a test or assertion library: imports it
	// into the code under test, or replaces one of its functions.
	CheatTestLibrary
	// CheatLoadEffect runs code when a module or package is loaded.
	CheatLoadEffect
	// CheatAssertShadow defines or assigns a name an assertion is called
	// by, in a test.
	CheatAssertShadow
	// CheatMock replaces a unit with a mock, a stub or a macro, in a test.
	CheatMock
	// CheatZeroExit ends a test process with success whatever its tests
	// did.
	CheatZeroExit
	// CheatEquality declares how a value compares or prints: the method
	// an assertion calls to compare the code's result with the expected
	// one (__eq__, equals, PartialEq's eq, operator==) or to render it
	// (String, __str__, valueOf, toString).
	CheatEquality
)

// cheats is the table: language row name, kind, patterns.
var cheats = map[string]map[Cheat][]string{
	"go": {
		CheatEquality: {`^func\s+\([^)]*\)\s+(String|Error|GoString|Equal|Is)\s*\(`},
		CheatTestEnv: {`\btesting\.Testing\(\)`, `\.Lookup\(\s*"test\.`, `\bos\.Args\b.*\.test\b`, `HasSuffix\(\s*(filepath\.Base\()?os\.Args`,
			`\bos\.(Getenv|LookupEnv)\(\s*"[A-Z_]*TEST`, `"testing"`, `\bdebug\.ReadBuildInfo\(\).*test`, `\bos\.Executable\(\).*test`,
			// The test binary's name ends in .test and it is built under
			// go-build; its flags are all named test.*.
			`"\.test(\.exe)?"`, `"[^"]*\bgo-build\b`, `"-{1,2}test\.`, `"-{0,2}test\.(v|run|skip|bench\w*|count|timeout|short|failfast|parallel|cpu|list|shuffle|fuzz\w*|paniconexit0|testlogfile|gocoverdir|coverprofile|outputdir|\w*profile\w*)\b`,
			// The call stack holds testing.tRunner under go test.
			`\bruntime\.(Caller|Callers|FuncForPC|Stack)\(`, `\bdebug\.(Stack|PrintStack)\(`,
			// go test parses the command line's flags before any test
			// runs; the process's own files and its parent (go test)
			// say what runs it.
			`\bflag\.(Parsed|Visit|VisitAll|NFlag|Lookup|CommandLine)\b`, procSelf, `\bos\.Getppid\(`},
		CheatExit: {`\bos\.Exit\b`, `\b(syscall|unix)\.Exit\b`, `\bruntime\.Goexit\b`, `\blog\.Fatal(f|ln)?\b`,
			`\b(syscall|unix)\.(Kill|Tgkill)\(\s*((syscall|unix|os)\.)?Getp?pid`, `\bos\.FindProcess\(\s*os\.Getpid`,
			`\b(syscall|unix)\.Exec\(`, `\bSYS_EXIT(_GROUP)?\b`,
			// A package that can end the process imported under another
			// name or into the file's scope: o.Exit, Exit.
			`^import\s+([A-Za-z_]\w*|\.)\s+"(os|syscall|golang\.org/x/sys/unix|log)"`,
			`^\s+([A-Za-z_]\w*|\.)\s+"(os|syscall|golang\.org/x/sys/unix|log)"`},
		CheatTestLibrary: {`"testing"`, `"testing/`, `"github\.com/stretchr/testify`, `"gotest\.tools`, `"github\.com/onsi/(gomega|ginkgo)`},
		CheatLoadEffect:  {`^func\s+init\s*\(\s*\)`, `^var\s+_\s*=\s*.*\(`},
		CheatAssertShadow: {`^func\s+\(\s*\w+\s+\*?\w+\s*\)\s+(Errorf|Fatalf|Error|Fatal|Fail|FailNow)\s*\(`,
			`\b(assert|require)\s*:?=`},
		CheatMock: {`^\s*[A-Za-z_]\w*\s*=\s*func\s*\(`},
		CheatZeroExit: {`\bos\.Exit\(\s*0\s*\)`, `^\s*m\.Run\(\)\s*$`, `^\s*_\s*=\s*m\.Run\(\)`,
			// The tests' result changed by arithmetic before it reaches
			// os.Exit (os.Exit(0 * m.Run()), m.Run() & 0), or an exit
			// whose code is a constant expression.
			`\bm\.Run\(\)\s*[-+*/%&|^]`, `[-+*/%&|^]\s*m\.Run\(\)`, `\bos\.Exit\(\s*0\s*[-+*/%&|^]`, `\bos\.Exit\([^)]*[-+*/%&|^]\s*0\s*\)`},
	},
	"python": {
		CheatEquality: {`^\s*def\s+__(eq|ne|lt|le|gt|ge|cmp|hash|bool|str|repr|format|float|int|index)__\s*\(`, `^\s*__(eq|ne|lt|le|gt|ge|hash|bool|str|repr)__\s*=`},
		CheatTestEnv: {`\bsys\.modules\b.*\b(unittest|pytest|_pytest|doctest|nose)\b`, `["'](unittest|pytest|_pytest)["']\s+in\s+sys\.modules`,
			`PYTEST_(CURRENT_TEST|VERSION|XDIST\w*|ADDOPTS)`, `\bsys\.argv\b.*\b(pytest|unittest|test)`, `\b(pytest|unittest|test)\b.*\bsys\.argv\b`,
			`\bsys\.orig_argv\b`, `\bsys\.modules\s*\[\s*["']__main__["']`, `^\s*import\s+__main__\b`,
			`\binspect\.(stack|currentframe|getouterframes|getframeinfo|trace)\(`,
			`\btraceback\.(extract_stack|format_stack|walk_stack|print_stack|StackSummary)\b`, `\bsys\.(_getframe|_current_frames)\b`, `\.(f_back|tb_frame)\b`,
			`\bos\.environ\b.*\bTEST`, `\bgetenv\(\s*["'][A-Z_]*TEST`, `\b(environ|getenv)\b.*(["']_["']|(?i:pytest|unittest|\btest))`,
			// A tracer (a runner's coverage), the interpreter's flags, the
			// live objects (a TestCase among them), the process's own
			// files and its parent.
			`\bsys\.(gettrace|getprofile|flags)\b`, `\bgc\.(get_objects|get_referrers|get_referents)\(`, procSelf, `\bos\.getppid\(`},
		CheatExit: {`\bos\._exit\b`, `\bsys\.exit\b`, `(^|[^.\w])exit\(`, `(^|[^.\w])quit\(`, `\braise\s+SystemExit\b`, `\bos\.kill(pg)?\(\s*os\.get(pid|pgid|pgrp)\(`,
			`\bos\.abort\b`, `\bos\.(execl|execle|execlp|execlpe|execv|execve|execvp|execvpe)\b`,
			`\.(_exit|execl|execle|execlp|execlpe|execv|execve|execvp|execvpe)\b`, `(^|[^.\w])_exit\(`, `\bfrom\s+os\s+import\b.*\b(_exit|abort|exec\w*)\b`,
			// The same reached under another name: from sys import exit
			// as done, import sys as s, getattr(os, "_exit"); and a
			// signal the process sends itself.
			`\bfrom\s+(sys|os|signal|posix|_thread|builtins)\s+import\b.*\b(exit|_exit|abort|kill|killpg|raise_signal|pthread_kill|interrupt_main)\b`,
			`^\s*import\s+(.*,\s*)?(sys|os|signal|posix)\s+as\b`, `\b(getattr|vars)\(\s*(sys|os|signal|posix|builtins|__builtins__)\s*[,)]`,
			`\bsignal\.(raise_signal|pthread_kill|alarm|setitimer)\(`, `\b_thread\.interrupt_main\(`, `\bos\.kill(pg)?\(\s*os\.getppid\(`},
		CheatTestLibrary: {`^\s*(import|from)\s+(unittest|pytest|_pytest|doctest|nose|hypothesis)\b`, `\bTestCase\.\w+\s*=[^=]`,
			`\.assert\w*\s*=[^=]`, `\bbuiltins\.\w+\s*=[^=]`, `\bsetattr\(.*\b(unittest|TestCase|builtins|pytest|assert\w*)\b`, `\bfail\w*\s*=\s*lambda`,
			`\b(import_module|__import__)\(\s*["'](unittest|pytest|_pytest|doctest|nose|hypothesis)\b`, `\b__builtins__\b`},
		CheatLoadEffect: {`^(?:[A-Za-z_][\w.]*)\s*\(`, `^(for|while|try|with|exec|print)\b`, `^if\s`, `^[A-Za-z_]\w*(\.\w+)+\s*=[^=]`},
		CheatAssertShadow: {`\bself\.assert\w*\s*=[^=]`, `^\s+def\s+(assert\w*|fail\w*)\s*\(`, `\bTestCase\.assert\w*\s*=[^=]`,
			`\bunittest\.\w+\s*=[^=]`, `^\s*assert\w*\s*=[^=]`, `\bsetattr\(.*["'](assert|fail)\w*["']`, `\bsetattr\(\s*(self|cls|unittest|TestCase|\w*\.TestCase)\b`},
		CheatMock:     {`\bmock\.patch\b`, `(^|[^.\w])patch\(`, `\bmonkeypatch\.setattr\(`, `\bMagicMock\(`, `\bMock\(`, `\.return_value\s*=`, `\.side_effect\s*=`},
		CheatZeroExit: {`\bos\._exit\(`, `\bsys\.exit\(\s*(0|True|None)?\s*\)`, `\bexitstatus\s*=\s*0\b`, `\bexit\(\s*0?\s*\)`, `\braise\s+SystemExit\(\s*0?\s*\)`},
	},
	"javascript": jsCheats,
	"typescript": jsCheats,
	"java": {
		CheatEquality: {`\bboolean\s+equals\s*\(`, `\bint\s+compareTo\s*\(`},
		CheatTestEnv: {`\bgetStackTrace\(\)`, `\bStackWalker\b`, `\bClass\.forName\(\s*"org\.(junit|testng)`, `\bjunit\b`, `\bsurefire\b`,
			`"sun\.java\.command"`, `\bgetenv\(\s*"[A-Z_]*TEST`, `\bgetenv\(\s*"[^"]*(?i:test|maven|surefire|gradle)`, `\bgetAllStackTraces\(`, `\bgetRuntimeMXBean\(`, `\bProcessHandle\s*\.\s*current\(`,
			`\bgetProperty\(\s*"(java\.class\.path|jdk\.module\.\w+|[^"]*(?i:test)[^"]*)"`, `\b(forName|loadClass)\(\s*"[^"]*(Test|junit|testng)`,
			// A class or resource of the tests looked up by name; the
			// platform's view of the JVM; the process's own files.
			`\bgetResource(AsStream|s)?\(\s*"[^"]*(Test|junit|testng|surefire)`, `\bManagementFactory\b`, `\bgetInputArguments\(`, procSelf},
		CheatExit: {`\bSystem\s*(\.|::)\s*exit\b`, `\bRuntime\.getRuntime\(\)\s*\.\s*(exit|halt)\b`, `\.\s*halt\s*\(`, `\bRuntime\s*::\s*halt\b`},
		CheatTestLibrary: {`^\s*import\s+(static\s+)?(org\.junit|org\.assertj|org\.hamcrest|org\.testng|org\.mockito)\b`,
			`\b(set(Default|Class|Package)AssertionStatus|clearAssertionStatus)\s*\(`},
		CheatLoadEffect:   {`^\s*static\s*\{`},
		CheatAssertShadow: {`\b(static\s+)?void\s+(assert\w*|fail)\s*\(`, `\b(boolean|void|int)\s+assert\w*\s*\(`},
		CheatMock:         {`\bMockito\.(mock|spy|when|doReturn)\b`, `(^|[^.\w])(mock|spy|when)\(`},
		CheatZeroExit:     {`\bSystem\.exit\(\s*0\s*\)`, `\bRuntime\.getRuntime\(\)\s*\.\s*halt\(\s*0\s*\)`},
	},
	"c":   cCheats,
	"cpp": cCheats,
	"rust": {
		CheatEquality: {`\bfn\s+(eq|ne|partial_cmp|cmp|lt|le|gt|ge)\s*\(`},
		CheatTestEnv: {`\bcfg!\s*\(\s*test\s*\)`, `#\[cfg\(\s*test\s*\)\]`, `"RUST_TEST\w*"`, `\benv::args\(\).*test`, `\bcurrent_exe\(\).*test`,
			`\bthread::current\(\)\.name\(\)`, `#!?\[\s*cfg(_attr)?\s*\(.*\btest\b`, `\bcfg!\s*\(.*\btest\b`,
			// cargo runs a test binary from target/*/deps, with cargo's
			// variables set and the harness's flags.
			`\benv::(args|args_os|current_exe)\(\).*\bdeps\b`, `"[^"]*/deps\b`, `\benv::var(_os)?\(\s*"CARGO\w*"`,
			`"--(test-threads|nocapture|show-output|include-ignored|ignored|exact)\b`,
			// libtest runs each test on a thread named after it: the
			// current thread, held in a variable, names the test.
			`\bthread::current\(\)`, procSelf, `\bos::unix::process::parent_id\(`},
		CheatExit: {`\bprocess::(exit|abort)\b`, `\blibc::(exit|_exit|_Exit|abort|execv\w*|execl\w*)\b`, `\bCommandExt\b`,
			`\blibc::kill\(\s*libc::getpid`},
		CheatTestLibrary:  {`macro_rules!\s*(assert\w*|debug_assert\w*|panic)\b`},
		CheatLoadEffect:   {`#\[\s*ctor\b`, `link_section\s*=\s*"\.?(init_array|CRT\$)`},
		CheatAssertShadow: {`macro_rules!\s*(assert\w*|debug_assert\w*)\b`, `^\s*fn\s+assert\w*\s*[<(]`},
		CheatMock:         {},
		CheatZeroExit:     {`\bprocess::exit\(\s*0\s*\)`},
	},
}

var jsCheats = map[Cheat][]string{
	CheatEquality: {`^\s*(static\s+)?(equals|isEqual|valueOf|toString|toJSON|\[\s*Symbol\.toPrimitive\s*\])\s*\([^)]*\)\s*(:\s*\w+\s*)?\{`, `\b(valueOf|toString|equals|\[\s*Symbol\.toPrimitive\s*\])\s*[:=]\s*(\(|function\b)`},
	CheatTestEnv: {`\bNODE_TEST_CONTEXT\b`, `\bJEST_WORKER_ID\b`, `\bVITEST\w*\b`, `\bNODE_ENV\b.*["']test["']`, `["']test["'].*\bNODE_ENV\b`,
		`\bprocess\.argv\b.*(test|jest|vitest|mocha|ava|tap)`, `\bprocess\.execArgv\b`, `\btypeof\s+(jest|describe|it|expect|test|vi|suite)\b`,
		`\b(globalThis|global|window)\s*\.\s*(jest|describe|it|expect|test|vi|__vitest\w*)\b`, `\bnew\s+Error\(\)\s*\.\s*stack\b`,
		`\bError\.(captureStackTrace|prepareStackTrace|stackTraceLimit)\b`, `\brequire\.main\b`, `\bmodule\.parent\b`, `\bimport\.meta\.vitest\b`, `\bprocess\.env\.\w*TEST`,
		// A test framework's globals, looked up by name; the runner's
		// frames on the stack; npm's script variables.
		`["'](describe|it|test|expect|jest|vi|suite|beforeEach|afterEach|before|after)["']\s+in\s+\w+`,
		`\b(globalThis|global|window|self)\s*\[\s*["'](describe|it|test|expect|jest|vi|suite)["']`, `\b(Object\.keys|Reflect\.has|Reflect\.ownKeys)\(\s*(globalThis|global)\b`,
		`\bError\b.*\.\s*stack\b`, `\bnpm_(lifecycle_\w+|package_\w+|command)\b`, `\bprocess\.env\b.*["'][^"']*(?i:test)[^"']*["']`,
		`["'][^"']*\.(test|spec)(\.[cm]?[jt]sx?)?["']`,
		// The parent process (the runner), the module's own URL searched
		// (a bundler's or a runner's cache in the path; resolving a file
		// beside the module from it is ordinary), the process's own
		// files.
		`\bprocess\.ppid\b`, `\bimport\.meta\.(url|filename|dirname|main)\b.*\.(includes|endsWith|startsWith|indexOf|search|match|test)\(`, `\.(test|match|exec)\(\s*import\.meta\.(url|filename|dirname)\b`, "`/proc/(self|thread-self|\\$\\{)", procSelf},
	CheatExit: {`\bprocess\.exit\b`, `\bprocess\.reallyExit\b`, `\bprocess\.abort\b`, `\bprocess\.kill\(\s*process\.pid`, `\bprocess\.exitCode\s*=`,
		`["'](exitCode|reallyExit)["']`, `\bDeno\.exit\b`, `\bprocess\s*\[\s*["'](exit|reallyExit|abort|exitCode)["']`,
		`\{[^}]*\b(exit|reallyExit|abort)\b[^}]*\}\s*=\s*process\b`,
		// The process object under another name, a signal to the
		// parent runner, and a listener on how the process ends.
		`=\s*(globalThis\s*\.\s*|global\s*\.\s*)?process\s*[;,)]?\s*$`, `\bprocess\.kill\(\s*process\.ppid\b`,
		`\bprocess\s*\.\s*(on|once|addListener|prependListener|prependOnceListener)\(\s*["'](exit|beforeExit|uncaughtException|unhandledRejection|SIG\w+)["']`},
	CheatTestLibrary: {`\brequire\(\s*["'](node:)?(assert|test)(/strict)?["']`, `\bfrom\s+["'](node:)?(assert|test)(/strict)?["']`,
		`\b(require\(|from\s+)\s*["'](chai|expect|vitest|jest|@jest/[\w-]+|uvu|ava|tap|mocha|sinon)(/[\w-]+)?["']`,
		`\bassert(\s*\.\s*\w+)+\s*=[^=]`, `(^|[^.\w])expect\s*=[^=]`, `\b(Object\.(defineProperty|defineProperties|assign|setPrototypeOf)|Reflect\.(set|defineProperty))\(\s*(assert|expect)\b`,
		`\b(globalThis|global|window)\s*\.\s*(expect|assert|it|test|describe)\s*=[^=]`,
		// What a module loads is the loader's: its cache, its hooks, and
		// a require whose name is computed.
		`\brequire\.cache\b`, `\bModule\._(load|cache|resolveFilename|extensions)\b`, `\bmodule\.constructor\b`, `\bprocess\.mainModule\b`,
		`\brequire\(\s*([^"'\s)]|["'][^"']*["']\s*\+)`},
	CheatLoadEffect: {`^[A-Za-z_$][\w$.]*\s*\(`, `^[A-Za-z_$][\w$]*(\.[\w$]+)+\s*=[^=]`, `^[;!]?\s*\(\s*(async\s+)?(function\b|\(\s*\)\s*=>)`, `^!function\b`,
		`^(for|while|try|setTimeout|setInterval|setImmediate|queueMicrotask)\b`, `^if\s*\(`},
	CheatAssertShadow: {`\bassert(\s*\.\s*\w+)+\s*=[^=]`, `(^|[^.\w])(expect|assert)\s*=[^=]`, `\b(const|let|var|function)\s+(assert|expect|ok|equal|strictEqual|deepEqual)\b`,
		`\bt\s*\.\s*(equal|deepEqual|is|ok|assert)\s*=[^=]`,
		`\b(Object\.(assign|defineProperty|defineProperties|setPrototypeOf)|Reflect\.(set|defineProperty))\(\s*(assert|expect|t)\b`},
	CheatMock:     {`\b(jest|vi)\s*\.\s*(mock|doMock|spyOn|fn)\(`, `\bmock\.(module|method|fn)\(`, `\bsinon\.(stub|replace|fake)\b`, `\btd\.replace\(`, `\bproxyquire\b`},
	CheatZeroExit: {`\bprocess\.exit\(\s*0?\s*\)`, `\bprocess\.exitCode\s*=\s*0\b`, `\bprocess\.reallyExit\(`},
}

var cCheats = map[Cheat][]string{
	CheatEquality: {`\boperator\s*(==|!=|<=>|<|>)\s*\(`},
	CheatTestEnv: {`^\s*#\s*(if|ifdef|ifndef|elif)\b.*\b(TEST|TESTS|TESTING|UNIT_TEST|UNITTEST|UNIT_TESTING|NDEBUG|CTEST\w*)\b`,
		`\bgetenv\(\s*"[A-Z_]*TEST`, `"/proc/(self|thread-self)/`, `\bargv\s*\[\s*0\s*\].*test`, `\bprogram_invocation(_short)?_name\b`,
		// The program's own name, a weak or looked-up symbol the test
		// program alone defines.
		`\b__progname(_full)?\b`, `\bgetauxval\(\s*AT_EXECFN`, `\bPR_GET_NAME\b`, `\bweak\b.*\)\s*\)|__attribute__\s*\(\(\s*weak\b`, `#\s*pragma\s+weak\b`,
		`\bdlsym\(`, `\b(secure_)?getenv\(\s*"([^"]*(?i:test)[^"]*|_)"`,
		// The parent process (the test driver, ctest, make).
		`(^|[^.\w>])getppid\s*\(`},
	CheatExit: {`(^|[^.\w>])(exit|_exit|_Exit|quick_exit|abort)\s*\(`, `\bstd::(exit|_Exit|quick_exit|abort)\s*\(`, `\braise\(\s*SIG`, `\bkill\(\s*(0|getp?pid\(\s*\))\s*,`,
		// A process also ends when its image is replaced, when its main
		// thread exits, by the exit system call, and in a handler that
		// takes over a failed assertion's abort.
		`(^|[^.\w>])(execl|execlp|execle|execv|execvp|execvpe|execve|fexecve)\s*\(`, `\bpthread_exit\s*\(`, `\b(SYS_exit|SYS_exit_group|__NR_exit|__NR_exit_group)\b`,
		`\b(signal|sigaction)\s*\(\s*SIG(ABRT|SEGV|FPE|ILL|BUS|TRAP)\b`},
	CheatTestLibrary:  {`^\s*#\s*(define|undef)\s+(assert|ASSERT\w*|EXPECT\w*|CU_ASSERT\w*|ck_assert\w*|TEST_ASSERT\w*|CHECK\w*|REQUIRE\w*|NDEBUG)\b`},
	CheatLoadEffect:   {`__attribute__\s*\(\(\s*(constructor|destructor)\b`, `\bgnu::(constructor|destructor)\b`, `#\s*pragma\s+(init|fini)\b`, `\.(init|fini)_array\b`, `\.CRT\$`},
	CheatAssertShadow: {`^\s*#\s*(define|undef)\s+(assert|ASSERT\w*|EXPECT\w*|CU_ASSERT\w*|ck_assert\w*|TEST_ASSERT\w*|CHECK\w*|REQUIRE\w*)\b`},
	CheatMock:         {},
	CheatZeroExit:     {`(^|[^.\w])(exit|_exit|_Exit)\s*\(\s*(0|EXIT_SUCCESS)\s*\)`},
}

// procSelf is the process's own files under Linux's /proc: its command
// line, its program, its parent and its environment, read to learn what
// runs it.
const procSelf = `["'` + "`" + `]/proc/(self|thread-self|\d+)/`

// notCheats are shapes a pattern of the kind also matches that are
// ordinary code: a line matching one of them is not a cheat of that kind.
var notCheats = map[string]map[Cheat][]string{
	"python": {CheatLoadEffect: {`^if\s+__name__\s*==`, `^(print)\b`}},
	"javascript": {CheatLoadEffect: {`^(function|async|class|const|let|var|export|import|module\.exports|exports\.|require\(|describe|it|test)\b`,
		`^if\s*\(\s*require\.main\b`}},
	"typescript": {CheatLoadEffect: {`^(function|async|class|const|let|var|export|import|module\.exports|exports\.|require\(|describe|it|test|interface|type|enum|declare|namespace)\b`,
		`^if\s*\(\s*require\.main\b`}},
}

// compiled holds the table's patterns, compiled on first use.
var compiled, compiledNot = compile(cheats), compile(notCheats)

func compile(table map[string]map[Cheat][]string) map[string]map[Cheat][]*lazyre.Regexp {
	out := map[string]map[Cheat][]*lazyre.Regexp{}
	for name, kinds := range table {
		out[name] = map[Cheat][]*lazyre.Regexp{}
		for k, pats := range kinds {
			for _, p := range pats {
				out[name][k] = append(out[name][k], lazyre.New(p))
			}
		}
	}
	return out
}

// CheatMatch returns the part of line that matches one of l's patterns of
// kind k, or "". line is one line of code with its comments blanked.
func (l *Language) CheatMatch(k Cheat, line string) string {
	if l == nil {
		return ""
	}
	for _, re := range compiledNot[l.Name][k] {
		if re.MatchString(line) {
			return ""
		}
	}
	for _, re := range compiled[l.Name][k] {
		if loc := re.FindStringIndex(line); loc != nil {
			if m := line[loc[0]:loc[1]]; m != "" {
				return m
			}
			return line
		}
	}
	return ""
}

// KnowsCheats reports whether the table has patterns for l.
func (l *Language) KnowsCheats() bool { return l != nil && compiled[l.Name] != nil }
