package history

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
)

// Realistic diffs of commits that renamed something or changed a
// signature, as `git show --format=` prints them.
const (
	goRenameDiff = `diff --git a/config/config.go b/config/config.go
index 3b18e51..a9c2f10 100644
--- a/config/config.go
+++ b/config/config.go
@@ -12,8 +12,8 @@ type Config struct {
 	Port int
 }
 
-// ParseConfig reads the configuration file at path.
-func ParseConfig(path string) (*Config, error) {
+// LoadConfig reads the configuration file at path.
+func LoadConfig(path string) (*Config, error) {
 	b, err := os.ReadFile(path)
 	if err != nil {
 		return nil, err
diff --git a/cmd/app/main.go b/cmd/app/main.go
index 1111111..2222222 100644
--- a/cmd/app/main.go
+++ b/cmd/app/main.go
@@ -20,5 +20,5 @@ func main() {
 	flag.Parse()
-	cfg, err := config.ParseConfig(*path)
+	cfg, err := config.LoadConfig(*path)
 	if err != nil {
 		log.Fatal(err)
 	}
`
	goArityDiff = `diff --git a/store/db.go b/store/db.go
--- a/store/db.go
+++ b/store/db.go
@@ -30,3 +30,3 @@
 // Open opens the database at path.
-func Open(path string) (*DB, error) {
+func Open(path string, opts *Options) (*DB, error) {
 	return open(path)
diff --git a/cmd/app/main.go b/cmd/app/main.go
--- a/cmd/app/main.go
+++ b/cmd/app/main.go
@@ -40,3 +40,3 @@ func main() {
 	defer cancel()
-	db, err := store.Open(*dbPath)
+	db, err := store.Open(*dbPath, nil)
 	if err != nil {
@@ -60,3 +60,3 @@ func migrate() error {
 	dir := os.TempDir()
-	db, err := store.Open(filepath.Join(dir, "m.db"))
+	db, err := store.Open(filepath.Join(dir, "m.db"), nil)
 	if err != nil {
`
	goCtxDiff = `diff --git a/client/client.go b/client/client.go
--- a/client/client.go
+++ b/client/client.go
@@ -8,3 +8,3 @@
 
-func Fetch(url string) ([]byte, error) {
+func Fetch(ctx context.Context, url string) ([]byte, error) {
 	req, err := http.NewRequest("GET", url, nil)
@@ -50,3 +50,3 @@ func (c *Client) All(ctx context.Context) error {
 	for _, u := range c.urls {
-		b, err := Fetch(u)
+		b, err := Fetch(ctx, u)
 		if err != nil {
`
	goDisagreeDiff = `diff --git a/store/db.go b/store/db.go
--- a/store/db.go
+++ b/store/db.go
@@ -30,2 +30,2 @@
-func Open(path string) (*DB, error) {
+func Open(path string, opts *Options) (*DB, error) {
 	return open(path)
@@ -40,4 +40,4 @@ func main() {
-	db, err := Open(*dbPath)
+	db, err := Open(*dbPath, nil)
 	if err != nil {
-	tmp, err := Open(t)
+	tmp, err := Open(t, &Options{Temp: true})
 	_ = tmp
`
	// A block of constants rewritten: two removed, one added, one
	// renamed use elsewhere; the lines do not pair.
	goConstBlockDiff = `diff --git a/keys/keys.go b/keys/keys.go
--- a/keys/keys.go
+++ b/keys/keys.go
@@ -10,4 +10,3 @@ const (
 	Enter
-	Invalid
-	BTab
+	ShiftTab
 	Up
diff --git a/term/term.go b/term/term.go
--- a/term/term.go
+++ b/term/term.go
@@ -40,3 +40,3 @@ func read(b byte) keys.Key {
 	case 9:
-		return keys.BTab
+		return keys.ShiftTab
 	}
`
	goMethodDiff = `diff --git a/server/server.go b/server/server.go
--- a/server/server.go
+++ b/server/server.go
@@ -20,2 +20,2 @@
-func (s *Server) Start(addr string) error {
+func (s *Server) ListenAndServe(addr string) error {
 	s.addr = addr
@@ -70,3 +70,3 @@ func run() error {
 	s := New()
-	return s.Start(":8080")
+	return s.ListenAndServe(":8080")
 }
`
	cRenameDiff = `diff --git a/src/buf.h b/src/buf.h
--- a/src/buf.h
+++ b/src/buf.h
@@ -1,5 +1,5 @@
 #ifndef BUF_H
 #define BUF_H
-#define BUF_SIZE 256
-int buf_fill(char *dst, const char *src);
+#define BUFFER_SIZE 256
+int buffer_fill(char *dst, const char *src);
 #endif
diff --git a/src/main.c b/src/main.c
--- a/src/main.c
+++ b/src/main.c
@@ -5,4 +5,4 @@
 int main(int argc, char **argv) {
-	char line[BUF_SIZE];
-	buf_fill(line, argv[1]);
+	char line[BUFFER_SIZE];
+	buffer_fill(line, argv[1]);
 	puts(line);
`
	cArityDiff = `diff --git a/src/num.h b/src/num.h
--- a/src/num.h
+++ b/src/num.h
@@ -3 +3 @@
-long parse_num(const char *s);
+long parse_num(const char *s, int base);
diff --git a/src/num.c b/src/num.c
--- a/src/num.c
+++ b/src/num.c
@@ -4,3 +4,3 @@
-long parse_num(const char *s) {
-	return strtol(s, NULL, 10);
+long parse_num(const char *s, int base) {
+	return strtol(s, NULL, base);
 }
diff --git a/src/main.c b/src/main.c
--- a/src/main.c
+++ b/src/main.c
@@ -9 +9 @@ int main(int argc, char **argv) {
-	long n = parse_num(argv[1]);
+	long n = parse_num(argv[1], 10);
`
	pyRenameDiff = `diff --git a/app/rows.py b/app/rows.py
--- a/app/rows.py
+++ b/app/rows.py
@@ -10,3 +10,3 @@ import csv
 
-def load_rows(path):
+def read_rows(path):
     with open(path) as f:
diff --git a/app/cli.py b/app/cli.py
--- a/app/cli.py
+++ b/app/cli.py
@@ -1,5 +1,5 @@
-from app.rows import load_rows
+from app.rows import read_rows
 
 
 def main(argv):
-    rows = load_rows(argv[1])
+    rows = read_rows(argv[1])
`
	pyArityDiff = `diff --git a/app/net.py b/app/net.py
--- a/app/net.py
+++ b/app/net.py
@@ -4,2 +4,2 @@
-def connect(host):
+def connect(host, timeout):
     return socket.create_connection((host, 80))
@@ -20,2 +20,2 @@ def main():
-    c = connect("example.org")
+    c = connect("example.org", 5)
     c.close()
`
	jsRenameDiff = `diff --git a/src/dates.js b/src/dates.js
--- a/src/dates.js
+++ b/src/dates.js
@@ -1,3 +1,3 @@
-export function fmtDate(d) {
+export function formatDate(d) {
   return d.toISOString().slice(0, 10);
 }
diff --git a/src/page.js b/src/page.js
--- a/src/page.js
+++ b/src/page.js
@@ -1,2 +1,2 @@
-import { fmtDate } from './dates.js';
+import { formatDate } from './dates.js';
 export const title = (d) => 'Report ' + formatDate(d);
`
	cRenameArityDiff = `diff --git a/buf.h b/buf.h
--- a/buf.h
+++ b/buf.h
@@ -4 +4 @@
-int buf_fill(char *dst, const char *src, int base);
+int buffer_fill(char *dst, const char *src);
diff --git a/buf.c b/buf.c
--- a/buf.c
+++ b/buf.c
@@ -4 +4 @@
-int buf_fill(char *dst, const char *src, int base) {
+int buffer_fill(char *dst, const char *src) {
diff --git a/log.c b/log.c
--- a/log.c
+++ b/log.c
@@ -6 +6 @@ void log_line(const char *msg) {
-	buf_fill(tmp, msg, 0);
+	buffer_fill(tmp, msg);
`
	tsArityDiff = `diff --git a/src/math.ts b/src/math.ts
--- a/src/math.ts
+++ b/src/math.ts
@@ -1,3 +1,3 @@
-export function clamp(x: number, lo: number): number {
+export function clamp(x: number, lo: number, hi: number): number {
   return Math.max(x, lo);
 }
diff --git a/src/ui.ts b/src/ui.ts
--- a/src/ui.ts
+++ b/src/ui.ts
@@ -3 +3 @@
-const w = clamp(width, 0);
+const w = clamp(width, 0, 100);
`
)

// pyKeywordDiff renames paginate's keyword parameter size to per_page.
const pyKeywordDiff = `diff --git a/shop/paging.py b/shop/paging.py
--- a/shop/paging.py
+++ b/shop/paging.py
@@ -1,4 +1,4 @@
-def paginate(items, page=1, size=10):
-    pages = len(items) // size
+def paginate(items, page=1, per_page=10):
+    pages = len(items) // per_page
     return pages
 
`

func report(path string, line int, msg string) contract.BugReport {
	return contract.BugReport{FilePath: path, LineNumber: line, Message: msg, ErrorType: contract.ErrTypeError}
}

// planCase is one case of a table of [Plan]: a diff, a file and its
// reports, and the patched content or the reason of the decline.
type planCase struct {
	name    string
	diff    string
	path    string
	content string
	reports []contract.BugReport
	want    string // the patched content; "" means declined
	why     string // part of the reason of a decline
}

// runPlan runs each case's Plan with the evidence of its diff.
func runPlan(t *testing.T, tests []planCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := ParseDiff(tt.diff)
			if err != nil {
				t.Fatal(err)
			}
			in := heal.FixInput{Path: tt.path, Content: tt.content, Request: contract.FixRequest{BugReport: tt.reports[0], Related: tt.reports[1:]}}
			res, err := Plan(in, Analyze(files, tt.path))
			if !wantPlan(t, res, err, tt.want, tt.why) {
				return
			}
			if res.ConfidenceScore != Confidence || res.Fixer != Name || res.FixReason == "" {
				t.Errorf("result %+v", res)
			}
		})
	}
}

func TestPlan(t *testing.T) {
	tests := []planCase{
		{
			name: "go rename of a function", diff: goRenameDiff, path: "cmd/check/main.go",
			content: "package main\n\nfunc main() {\n\tcfg, err := config.ParseConfig(\"x\") // ParseConfig\n\t_, _ = cfg, err\n}\n",
			reports: []contract.BugReport{report("cmd/check/main.go", 4, "undefined: config.ParseConfig")},
			want:    "package main\n\nfunc main() {\n\tcfg, err := config.LoadConfig(\"x\") // ParseConfig\n\t_, _ = cfg, err\n}\n",
		},
		{
			name: "go rename leaves strings alone", diff: goRenameDiff, path: "main.go",
			content: "package main\n\nfunc f() { log.Print(\"ParseConfig: \"); ParseConfig(p) }\n",
			reports: []contract.BugReport{report("main.go", 3, "undefined: ParseConfig")},
			want:    "package main\n\nfunc f() { log.Print(\"ParseConfig: \"); LoadConfig(p) }\n",
		},
		{
			name: "go rename only on the reported line", diff: goRenameDiff, path: "main.go",
			content: "package main\n\nvar a = ParseConfig\nvar b = ParseConfig\n",
			reports: []contract.BugReport{report("main.go", 4, "undefined: ParseConfig")},
			want:    "package main\n\nvar a = ParseConfig\nvar b = LoadConfig\n",
		},
		{
			name: "go rename of a method", diff: goMethodDiff, path: "server/admin.go",
			content: "package server\n\nfunc admin(s *Server) error {\n\treturn s.Start(\":9090\")\n}\n",
			reports: []contract.BugReport{report("server/admin.go", 4, "s.Start undefined (type *Server has no field or method Start)")},
			want:    "package server\n\nfunc admin(s *Server) error {\n\treturn s.ListenAndServe(\":9090\")\n}\n",
		},
		{
			name: "go struct literal missing a field", diff: goRenameDiff, path: "ansi_test.go",
			content: "package main\n\nvar s = ansiState{1, 5, 0}\n",
			reports: []contract.BugReport{report("ansi_test.go", 3, "too few values in struct literal of type ansiState")},
			why:     "its value is a choice",
		},
		{
			name: "rust initializer missing a field", diff: goRenameDiff, path: "src/ansi.rs",
			content: "fn f() -> AnsiState {\n    AnsiState { fg: 1, bg: 5 }\n}\n",
			reports: []contract.BugReport{report("src/ansi.rs", 2, "missing field `lbg` in initializer of `AnsiState`")},
			why:     "its value is a choice",
		},
		{
			name: "go rename without a renamed use is not corroborated", path: "main.go",
			diff:    strings.SplitAfter(goRenameDiff, "\t\treturn nil, err\n")[0],
			content: "package main\n\nvar a = ParseConfig\n",
			reports: []contract.BugReport{report("main.go", 3, "undefined: ParseConfig")},
			why:     "no corroboration",
		},
		{
			name: "go rename the file declares itself", diff: goRenameDiff, path: "main.go",
			content: "package main\n\nfunc ParseConfig() {}\n\nvar a = ParseConfig\n",
			reports: []contract.BugReport{report("main.go", 5, "undefined: ParseConfig")},
			why:     "declares ParseConfig itself",
		},
		{
			name: "go example named after a renamed function", diff: goRenameDiff, path: "config/example_test.go",
			content: "package config_test\n\nfunc ExampleParseConfig_file() {\n\tconfig.LoadConfig(\"x\")\n}\n",
			reports: []contract.BugReport{report("config/example_test.go", 3, "ExampleParseConfig_file refers to unknown identifier: ParseConfig")},
			want:    "package config_test\n\nfunc ExampleLoadConfig_file() {\n\tconfig.LoadConfig(\"x\")\n}\n",
		},
		{
			name: "go example whose new name the file declares", diff: goRenameDiff, path: "config/example_test.go",
			content: "package config_test\n\nfunc ExampleParseConfig() {}\n\nfunc ExampleLoadConfig() {}\n",
			reports: []contract.BugReport{report("config/example_test.go", 3, "ExampleParseConfig refers to unknown identifier: ParseConfig")},
			why:     "already declares ExampleLoadConfig",
		},
		{
			name: "go example of a name the commit did not rename", diff: goRenameDiff, path: "config/example_test.go",
			content: "package config_test\n\nfunc ExampleParse() {}\n",
			reports: []contract.BugReport{report("config/example_test.go", 3, "ExampleParse refers to unknown identifier: Parse")},
			why:     "shows no such change",
		},
		{
			name: "python keyword renamed in the declaration", diff: pyKeywordDiff, path: "shop/search.py",
			content: "def search(q, size=3):\n    return paginate(hits(q, size=size), page=1, size=size)\n",
			reports: []contract.BugReport{report("shop/search.py", 2, "TypeError: paginate() got an unexpected keyword argument 'size'")},
			want:    "def search(q, size=3):\n    return paginate(hits(q, size=size), page=1, per_page=size)\n",
		},
		{
			name: "python keyword the declaration did not rename", diff: pyKeywordDiff, path: "shop/search.py",
			content: "def search(q):\n    return paginate(q, limit=5)\n",
			reports: []contract.BugReport{report("shop/search.py", 2, "TypeError: paginate() got an unexpected keyword argument 'limit'")},
			why:     "shows no such change",
		},
		{
			name: "go arity whose added calls pass another value", path: "cmd/tool/tool.go",
			diff:    goArityDiff + "@@ -80,2 +80,3 @@ func check() error {\n \tdir := os.TempDir()\n+\tro, err := store.Open(dir, &store.Options{ReadOnly: true})\n \treturn nil\n",
			content: "package main\n\nfunc run() {\n\tdb, err := store.Open(dir)\n}\n",
			reports: []contract.BugReport{report("cmd/tool/tool.go", 4, "not enough arguments in call to store.Open")},
			why:     "calls of Open disagree",
		},
		{
			name: "go trailing nil", diff: goArityDiff, path: "cmd/tool/tool.go",
			content: "package main\n\nfunc run() {\n\tdb, err := store.Open(dir)\n}\n",
			reports: []contract.BugReport{report("cmd/tool/tool.go", 4, "not enough arguments in call to store.Open\n\thave (string)\n\twant (string, *store.Options)")},
			want:    "package main\n\nfunc run() {\n\tdb, err := store.Open(dir, nil)\n}\n",
		},
		{
			name: "go multi-line call reported at its closing line", diff: goArityDiff, path: "tool.go",
			content: "package main\n\nfunc run() {\n\tdb, err := store.Open(\n\t\tfilepath.Join(a, b),\n\t)\n}\n",
			reports: []contract.BugReport{report("tool.go", 6, "not enough arguments in call to store.Open")},
			want:    "package main\n\nfunc run() {\n\tdb, err := store.Open(\n\t\tfilepath.Join(a, b), nil,\n\t)\n}\n",
		},
		{
			name: "go ctx first", diff: goCtxDiff, path: "client/sync.go",
			content: "package client\n\nfunc sync(ctx context.Context) {\n\tb, err := Fetch(base + \"/a, b\")\n}\n",
			reports: []contract.BugReport{report("client/sync.go", 4, "not enough arguments in call to Fetch")},
			want:    "package client\n\nfunc sync(ctx context.Context) {\n\tb, err := Fetch(ctx, base + \"/a, b\")\n}\n",
		},
		{
			name: "go call sites that disagree", diff: goDisagreeDiff, path: "x.go",
			content: "package main\n\nvar db, err = Open(p)\n",
			reports: []contract.BugReport{report("x.go", 3, "not enough arguments in call to Open")},
			why:     "disagree",
		},
		{
			name: "go constant renamed in a rewritten block", diff: goConstBlockDiff, path: "term/term_test.go",
			content: "package term\n\nimport \"example.com/app/keys\"\n\nvar want = map[byte]keys.Key{9: keys.BTab}\n",
			reports: []contract.BugReport{report("term/term_test.go", 5, "undefined: keys.BTab")},
			want:    "package term\n\nimport \"example.com/app/keys\"\n\nvar want = map[byte]keys.Key{9: keys.ShiftTab}\n",
		},
		{
			name: "go constant removed and another added, no use renamed", diff: strings.SplitAfter(goConstBlockDiff, "diff --git a/term")[0], path: "term/term_test.go",
			content: "package term\n\nvar want = map[byte]keys.Key{9: keys.Invalid}\n",
			reports: []contract.BugReport{report("term/term_test.go", 3, "undefined: keys.Invalid")},
			why:     "no corroboration",
		},
		{
			name: "go call of another package's function of the same name", diff: goArityDiff, path: "x.go",
			content: "package main\n\nimport (\n\t\"os\"\n\n\t\"example.com/app/store\"\n)\n\nfunc f() { g(os.Open(p), store.Open(q)) }\n",
			reports: []contract.BugReport{report("x.go", 9, "not enough arguments in call to store.Open")},
			want:    "package main\n\nimport (\n\t\"os\"\n\n\t\"example.com/app/store\"\n)\n\nfunc f() { g(os.Open(p), store.Open(q, nil)) }\n",
		},
		{
			name: "js rename leaves another module's name alone", diff: jsRenameDiff, path: "src/x.js",
			content: "const util = require('node:util');\nconst { fmtDate } = require('./dates');\nconsole.log(util.fmtDate, fmtDate(d));\n",
			reports: []contract.BugReport{report("src/x.js", 3, "ReferenceError: fmtDate is not defined")},
			want:    "const util = require('node:util');\nconst { formatDate } = require('./dates');\nconsole.log(util.fmtDate, formatDate(d));\n",
		},
		{
			name: "go call with another arity is left alone", diff: goArityDiff, path: "x.go",
			content: "package main\n\nvar db, err = store.Open()\n",
			reports: []contract.BugReport{report("x.go", 3, "not enough arguments in call to store.Open")},
			why:     "no call of Open with 1 arguments",
		},
		{
			name: "c macro renamed", diff: cRenameDiff, path: "src/io.c",
			content: "#include \"buf.h\"\n\nvoid rd(void) {\n\tchar b[BUF_SIZE];\n\tbuf_fill(b, \"x\");\n}\n",
			reports: []contract.BugReport{
				report("src/io.c", 4, "‘BUF_SIZE’ undeclared (first use in this function)"),
				report("src/io.c", 5, "implicit declaration of function ‘buf_fill’; did you mean ‘buffer_fill’? [-Werror=implicit-function-declaration]"),
			},
			want: "#include \"buf.h\"\n\nvoid rd(void) {\n\tchar b[BUFFER_SIZE];\n\tbuffer_fill(b, \"x\");\n}\n",
		},
		{
			name: "c rename and a removed argument at once", diff: cRenameArityDiff, path: "main.c",
			content: "int main(void) {\n\tchar line[8];\n\tint n = buf_fill(line, \"hi\", 0);\n\treturn n;\n}\n",
			reports: []contract.BugReport{report("main.c", 3, "implicit declaration of function 'buf_fill'; did you mean 'buffer_fill'? [-Werror=implicit-function-declaration]")},
			want:    "int main(void) {\n\tchar line[8];\n\tint n = buffer_fill(line, \"hi\");\n\treturn n;\n}\n",
		},
		{
			name: "c rename corroborated by prototype and definition", path: "main.c",
			diff:    strings.SplitAfter(cRenameArityDiff, "+int buffer_fill(char *dst, const char *src) {\n")[0],
			content: "int main(void) {\n\treturn buf_fill(0, 0, 0) + buf_fill(0, 0, 1);\n}\n",
			reports: []contract.BugReport{report("main.c", 2, "implicit declaration of function 'buf_fill'")},
			want:    "int main(void) {\n\treturn buffer_fill(0, 0, 0) + buffer_fill(0, 0, 1);\n}\n",
		},
		{
			name: "c too few arguments", diff: cArityDiff, path: "src/cli.c",
			content: "#include \"num.h\"\n\nint run(const char *a) {\n\treturn (int)parse_num(a);\n}\n",
			reports: []contract.BugReport{report("src/cli.c", 4, "too few arguments to function 'parse_num'")},
			want:    "#include \"num.h\"\n\nint run(const char *a) {\n\treturn (int)parse_num(a, 10);\n}\n",
		},
		{
			name: "python renamed def", diff: pyRenameDiff, path: "app/report.py",
			content: "from app import rows\n\n\ndef summary(p):\n    return len(load_rows(p))  # load_rows\n",
			reports: []contract.BugReport{report("app/report.py", 5, "NameError: name 'load_rows' is not defined")},
			want:    "from app import rows\n\n\ndef summary(p):\n    return len(read_rows(p))  # load_rows\n",
		},
		{
			name: "python import of the old name", diff: pyRenameDiff, path: "app/report.py",
			content: "from app.rows import load_rows\n",
			reports: []contract.BugReport{report("app/report.py", 1, "ImportError: cannot import name 'load_rows' from 'app.rows' (/w/app/rows.py)")},
			want:    "from app.rows import read_rows\n",
		},
		{
			name: "python rename inside an f-string", diff: pyRenameDiff, path: "app/report.py",
			content: "def summary(p):\n    return f\"{len(load_rows(p))} rows of load_rows\"\n",
			reports: []contract.BugReport{report("app/report.py", 2, "NameError: name 'load_rows' is not defined")},
			want:    "def summary(p):\n    return f\"{len(read_rows(p))} rows of load_rows\"\n",
		},
		{
			name: "python missing argument", diff: pyArityDiff, path: "app/probe.py",
			content: "def probe(h):\n    return connect(h)\n",
			reports: []contract.BugReport{report("app/probe.py", 2, "TypeError: connect() missing 1 required positional argument: 'timeout'")},
			want:    "def probe(h):\n    return connect(h, 5)\n",
		},
		{
			name: "js renamed function, and its import", diff: jsRenameDiff, path: "src/list.js",
			content: "import { fmtDate } from './dates.js';\nexport const row = (d) => `<td>${d.n}</td>` + fmtDate(d.at);\n",
			reports: []contract.BugReport{report("src/list.js", 2, "ReferenceError: fmtDate is not defined")},
			want:    "import { formatDate } from './dates.js';\nexport const row = (d) => `<td>${d.n}</td>` + formatDate(d.at);\n",
		},
		{
			name: "tsc arity without a name", diff: tsArityDiff, path: "src/bar.ts",
			content: "import { clamp } from './math';\nexport const h = clamp(height, 1);\n",
			reports: []contract.BugReport{report("src/bar.ts", 2, "Expected 3 arguments, but got 2.")},
			want:    "import { clamp } from './math';\nexport const h = clamp(height, 1, 100);\n",
		},
		{
			name: "a report of another kind", diff: goRenameDiff, path: "main.go",
			content: "package main\n\nvar a = 1\n",
			reports: []contract.BugReport{report("main.go", 3, "declared and not used: a")},
			why:     "no report of a missing name",
		},
		{
			name: "another language's evidence", diff: pyRenameDiff, path: "main.go",
			content: "package main\n\nvar a = load_rows\n",
			reports: []contract.BugReport{report("main.go", 3, "undefined: load_rows")},
			why:     "shows no such change",
		},
	}
	runPlan(t, tests)
}

func TestAnalyze(t *testing.T) {
	files, err := ParseDiff(goRenameDiff + goArityDiff)
	if err != nil {
		t.Fatal(err)
	}
	ev := Analyze(files, "x.go")
	r := ev.Renames["ParseConfig"]
	if r == nil || r.New != "LoadConfig" || r.Declared != 1 || r.References != 1 {
		t.Errorf("rename = %+v", r)
	}
	ch, err := ev.change("Open")
	if err != nil {
		t.Fatal(err)
	}
	if want := (ArgChange{Delta: 1, Index: 1, Before: 1, Text: "nil", norm: "nil"}); ch != want {
		t.Errorf("change = %+v, want %+v", ch, want)
	}
	if got := ch.String(); got != `insert "nil" as argument 2 of 2` {
		t.Errorf("String = %q", got)
	}
	if n := len(ev.Signatures["Open"].Sites); n != 2 {
		t.Errorf("%d sites, want 2", n)
	}
}

func TestAnalyzeConflict(t *testing.T) {
	d := goRenameDiff + `diff --git a/other/x.go b/other/x.go
--- a/other/x.go
+++ b/other/x.go
@@ -3 +3 @@
-func ParseConfig() {}
+func ReadConfig() {}
`
	files, err := ParseDiff(d)
	if err != nil {
		t.Fatal(err)
	}
	ev := Analyze(files, "a.go")
	if _, ok := ev.Conflicts["ParseConfig"]; !ok || ev.Renames["ParseConfig"] != nil {
		t.Errorf("conflicts %v, renames %v", ev.Conflicts, ev.Renames)
	}
}

func TestRemoveArgument(t *testing.T) {
	d := `diff --git a/a.go b/a.go
--- a/a.go
+++ b/a.go
@@ -1,2 +1,2 @@
-func Log(ctx context.Context, msg string) {
+func Log(msg string) {
-	Log(ctx, "start")
+	Log("start")
`
	files, err := ParseDiff(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ content, want string }{
		{"package a\n\nfunc f() { Log(ctx, \"x\") }\n", "package a\n\nfunc f() { Log(\"x\") }\n"},
		{"package a\n\nfunc f() {\n\tLog(ctx,\n\t\t\"x\")\n}\n", "package a\n\nfunc f() {\n\tLog(\"x\")\n}\n"},
	} {
		in := heal.FixInput{Path: "b.go", Content: tc.content, Request: contract.FixRequest{BugReport: report("b.go", 3, "too many arguments in call to Log")}}
		if strings.Count(tc.content, "\n") > 3 {
			in.Request.BugReport.LineNumber = 4
		}
		res, err := Plan(in, Analyze(files, "b.go"))
		if err != nil {
			t.Fatal(err)
		}
		if res.PatchedContent != tc.want {
			t.Errorf("got %q, want %q", res.PatchedContent, tc.want)
		}
	}
}

func TestCallEdit(t *testing.T) {
	tests := []struct {
		src  string
		ch   ArgChange
		want string
	}{
		{"f()", ArgChange{Delta: 1, Index: 0, Before: 0, Text: "ctx"}, "f(ctx)"},
		{"f(a)", ArgChange{Delta: 1, Index: 0, Before: 1, Text: "ctx"}, "f(ctx, a)"},
		{"f(a, b)", ArgChange{Delta: 1, Index: 1, Before: 2, Text: "0"}, "f(a, 0, b)"},
		{"f(a, b)", ArgChange{Delta: 1, Index: 2, Before: 2, Text: "nil"}, "f(a, b, nil)"},
		{"f(a)", ArgChange{Delta: -1, Index: 0, Before: 1}, "f()"},
		{"f(a, b, c)", ArgChange{Delta: -1, Index: 1, Before: 3}, "f(a, c)"},
		{"f(a, b, c)", ArgChange{Delta: -1, Index: 2, Before: 3}, "f(a, b)"},
		{"f(\n\ta,\n\tb,\n)", ArgChange{Delta: -1, Index: 1, Before: 2}, "f(\n\ta,\n)"},
		{"f(g(1, 2), [3, 4])", ArgChange{Delta: 1, Index: 2, Before: 2, Text: "x"}, "f(g(1, 2), [3, 4], x)"},
	}
	for _, tt := range tests {
		cs := calls(tt.src, named("f"))
		if len(cs) != 1 {
			t.Fatalf("%q: %d calls", tt.src, len(cs))
		}
		got, err := applyCalls(tt.src, cs, tt.ch)
		if err != nil || got != tt.want {
			t.Errorf("%q %v: got %q, %v; want %q", tt.src, tt.ch, got, err, tt.want)
		}
	}
}

func TestDeclOf(t *testing.T) {
	tests := []struct {
		line, path string
		kind, name string
		params     int // -1: none read
	}{
		{"func (s *S) Do(ctx context.Context, n int) error {", "a.go", "func", "Do", 2},
		{"func Map[T any](xs []T, f func(T) T) []T {", "a.go", "func", "Map", 2},
		{"type Config struct {", "a.go", "type", "Config", -1},
		{"const MaxSize = 10", "a.go", "var", "MaxSize", -1},
		{"#define BUF_SIZE 256", "a.h", "define", "BUF_SIZE", -1},
		{"static unsigned long *buf_fill(char *dst, const char *src)", "a.c", "func", "buf_fill", 2},
		{"int main(void) {", "a.c", "func", "main", 1},
		{"typedef struct node node_t;", "a.h", "typedef", "node_t", -1},
		{"async def fetch(self, url, *, timeout=3):", "a.py", "def", "fetch", 4},
		{"class Parser(Base):", "a.py", "class", "Parser", -1},
		{"MAX_ROWS = 100", "a.py", "global", "MAX_ROWS", -1},
		{"export async function load(url, opts) {", "a.js", "function", "load", 2},
		{"export const add = (a, b) => a + b;", "a.ts", "arrow", "add", 2},
		{"export default class Store {", "a.ts", "class", "Store", -1},
	}
	for _, tt := range tests {
		d, ok := declOf(tt.line, tt.path, familyOf(tt.path))
		if !ok || d.kind != tt.kind || d.name != tt.name {
			t.Errorf("%q: %+v %v, want %s %s", tt.line, d, ok, tt.kind, tt.name)
			continue
		}
		if n := len(d.params); (tt.params < 0) == d.hasParams || (d.hasParams && n != tt.params) {
			t.Errorf("%q: params %q (read %v), want %d", tt.line, d.params, d.hasParams, tt.params)
		}
	}
	for _, l := range []string{"\treturn parse_num(s);", "\telse if (x)", "  x = f(1);", "\tprintf(\"%d\", x);"} {
		if d, ok := declOf(l, "a.c", famC); ok {
			t.Errorf("%q taken for a declaration: %+v", l, d)
		}
	}
}

func TestAskOf(t *testing.T) {
	tests := []struct {
		msg  string
		need need
		name string
	}{
		{"undefined: foo.Bar", needName, "Bar"},
		{"x.Run undefined (type T has no field or method Run)", needName, "Run"},
		{"not enough arguments in call to s.db.Open\n\thave (string)", needArity, "Open"},
		{"too many arguments in call to Log", needArity, "Log"},
		{"‘BUF’ undeclared (first use in this function)", needName, "BUF"},
		{"'BUF' undeclared here (not in a function)", needName, "BUF"},
		{"implicit declaration of function ‘old’ [-Werror=implicit-function-declaration]", needName, "old"},
		{"use of undeclared identifier 'x'", needName, "x"},
		{"too few arguments to function ‘g’", needArity, "g"},
		{"too few arguments to function call, expected 2, have 1", needArity, ""},
		{"NameError: name 'load' is not defined. Did you mean: 'read'?", needName, "load"},
		{"TypeError: Conn.send() missing 1 required positional argument: 'x'", needArity, "send"},
		{"TypeError: f() takes 1 positional argument but 2 were given", needArity, "f"},
		{"ReferenceError: fmtDate is not defined", needName, "fmtDate"},
		{"fmtDate is not defined", needName, "fmtDate"},
		{"toSlug is not a function", needName, "toSlug"},
		{"TypeError: utils.toSlug is not a function", needName, "toSlug"},
		{"Cannot find name 'Old'.", needName, "Old"},
		{"Expected 3 arguments, but got 2.", needArity, ""},
		{"SyntaxError: The requested module './units.js' does not provide an export named 'formatSize'", needName, "formatSize"},
		{"ExampleParse_file refers to unknown identifier: Parse", needExample, "Parse"},
		{"ExampleT_Run refers to unknown field or method: T.Run", needExample, "Run"},
	}
	for _, tt := range tests {
		a, ok := askOf(report("a", 1, tt.msg))
		if !ok || a.need != tt.need || a.name != tt.name {
			t.Errorf("%q: %+v %v, want %v %q", tt.msg, a, ok, tt.need, tt.name)
		}
	}
	if _, ok := askOf(report("a", 1, "expected ';' before '}' token")); ok {
		t.Error("a syntax error taken for a missing name")
	}
}

func TestFixerDiffSource(t *testing.T) {
	in := heal.FixInput{Workspace: "/w", Path: "main.go", Content: "package main\n\nvar a = ParseConfig\n",
		Request: contract.FixRequest{BugReport: report("main.go", 3, "undefined: ParseConfig")}}
	if _, err := (&Fixer{}).Fix(context.Background(), in); !errors.Is(err, results.ErrNotConfigured) {
		t.Errorf("no Diff: err = %v, want ErrNotConfigured", err)
	}
	calls := 0
	f := &Fixer{Diff: func(_ context.Context, ws, _ string) (string, error) {
		calls++
		if ws != "/w" {
			t.Errorf("workspace %q", ws)
		}
		return goRenameDiff, nil
	}}
	for range 2 {
		res, err := f.Fix(context.Background(), in)
		if err != nil || !strings.Contains(res.PatchedContent, "var a = LoadConfig") {
			t.Fatalf("%+v %v", res, err)
		}
	}
	if calls != 1 {
		t.Errorf("Diff called %d times, want once", calls)
	}
	bad := &Fixer{Diff: func(context.Context, string, string) (string, error) { return "", errors.New("no parent commit") }}
	if _, err := bad.Fix(context.Background(), in); !errors.Is(err, results.ErrNoFix) || !strings.Contains(err.Error(), "no parent commit") {
		t.Errorf("failing Diff: err = %v", err)
	}
	if _, err := f.Fix(context.Background(), heal.FixInput{Path: "README.md", Content: "x"}); !errors.Is(err, results.ErrNoFix) {
		t.Errorf("unknown language: err = %v", err)
	}
}

func TestMaskInterpolations(t *testing.T) {
	tests := []struct{ src, path, want string }{
		{`x = f"a {name} b {{lit}} {d['k']}" + "s {no}"`, "a.py", "x = \x01\x01\x01\x01\x01name\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01d[\x01\x01\x01]\x01\x01 + \x01\x01\x01\x01\x01\x01\x01\x01"},
		{"s = `a ${fn(x)} \\${no}` // c", "a.js", "s = \x01\x01\x01\x01\x01fn(x)\x01\x01\x01\x01\x01\x01\x01\x01\x01     "},
		{`name = "{x}"`, "a.py", "name = \x01\x01\x01\x01\x01"},
	}
	for _, tt := range tests {
		if got := mask(tt.src, tt.path); got != tt.want {
			t.Errorf("mask(%q) =\n%q, want\n%q", tt.src, got, tt.want)
		}
		if len(mask(tt.src, tt.path)) != len(tt.src) {
			t.Errorf("mask changed the length of %q", tt.src)
		}
	}
}

// wantPlan checks a plan's result: the patched content want, or, when
// want is empty, an ErrNoFix whose message holds why. It reports whether
// the plan gave a fix to check further.
func wantPlan(t *testing.T, res contract.FixResult, err error, want, why string) bool {
	t.Helper()
	if want == "" {
		if !errors.Is(err, results.ErrNoFix) || !strings.Contains(err.Error(), why) {
			t.Fatalf("err = %v, want ErrNoFix with %q (result %q)", err, why, res.PatchedContent)
		}
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.PatchedContent != want {
		t.Errorf("patched:\n%s\nwant:\n%s", res.PatchedContent, want)
	}
	return true
}
