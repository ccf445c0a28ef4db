package history

import (
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
)

// Diffs of Java commits that renamed something and missed a use, as
// `git show --format=` prints them.
const (
	// A method renamed, with the calls of its own file renamed.
	javaMethodDiff = `diff --git a/src/main/java/org/graph/Trees.java b/src/main/java/org/graph/Trees.java
--- a/src/main/java/org/graph/Trees.java
+++ b/src/main/java/org/graph/Trees.java
@@ -20,6 +20,6 @@ public class Trees {
   // An empty tree of n nodes.
-  public static List<List<Integer>> createGraph(int n) {
+  public static List<List<Integer>> createEmptyGraph(int n) {
     List<List<Integer>> g = new ArrayList<>(n);
     for (int i = 0; i < n; i++) g.add(new ArrayList<>());
     return g;
   }
@@ -60,3 +60,3 @@ public class Trees {
   static void example() {
-    List<List<Integer>> tree = createGraph(5);
+    List<List<Integer>> tree = createEmptyGraph(5);
     addEdge(tree, 0, 1);
`
	// A class renamed after its file, its other class merged into it;
	// no use renamed.
	javaClassDiff = `diff --git a/src/main/java/org/math/Transform.java b/src/main/java/org/math/Transform.java
--- a/src/main/java/org/math/Transform.java
+++ b/src/main/java/org/math/Transform.java
@@ -3,6 +3,6 @@
 package org.math;
 
-class FFT {
+public class Transform {
 
-  static long p = 4300210177L;
+  private static long p = 4300210177L;
 
@@ -40,7 +40,6 @@ class FFT {
     return w;
   }
-}
 
-public class Transform {
+  /* Example usage */
 
   public static void main(String[] args) {
`
	// A parameter renamed; the body's uses renamed but one.
	javaParamDiff = `diff --git a/src/main/java/org/ds/Table.java b/src/main/java/org/ds/Table.java
--- a/src/main/java/org/ds/Table.java
+++ b/src/main/java/org/ds/Table.java
@@ -30,4 +30,4 @@ public class Table {
 
-  public Table(long[] v) {
-    n = v.length;
+  public Table(long[] values) {
+    n = values.length;
     dp = new long[n];
`
	// A method inlined into the constructor, its only caller: the body
	// kept names the method's parameter v, where the constructor's
	// values is meant.
	javaInlineDiff = `diff --git a/src/main/java/org/ds/MinTable.java b/src/main/java/org/ds/MinTable.java
--- a/src/main/java/org/ds/MinTable.java
+++ b/src/main/java/org/ds/MinTable.java
@@ -35,7 +35,3 @@ public class MinTable {
 
   public MinTable(long[] values) {
-    init(values);
-  }
-
-  private void init(long[] v) {
     n = v.length;
     P = (int) (Math.log(n) / Math.log(2));
`
	// One method replaced by two of the same kind; no use renamed.
	javaSplitDiff = `diff --git a/src/main/java/shop/Invoice.java b/src/main/java/shop/Invoice.java
--- a/src/main/java/shop/Invoice.java
+++ b/src/main/java/shop/Invoice.java
@@ -12,4 +12,8 @@ public class Invoice {
 
-  public long total() {
+  public long net() {
     return cents;
   }
+
+  public long gross() {
+    return cents + cents * rate / 100;
+  }
`
	// A local variable renamed; javac misses a method of that name.
	javaVarDiff = `diff --git a/src/main/java/shop/Cart.java b/src/main/java/shop/Cart.java
--- a/src/main/java/shop/Cart.java
+++ b/src/main/java/shop/Cart.java
@@ -12,3 +12,3 @@ public class Cart {
   long sum() {
-    long total = 0;
+    long amount = 0;
     for (Item i : items) {
`
)

func javac(path string, line int, kind, name string) contract.BugReport {
	return report(path, line, "cannot find symbol\n  symbol:   "+kind+" "+name+"\n  location: class X")
}

func TestPlanJava(t *testing.T) {
	runPlan(t, []planCase{
		{
			name: "a method renamed, a call missed in another file", diff: javaMethodDiff, path: "src/main/java/org/graph/Iso.java",
			content: "class Iso {\n  void t() {\n    List<List<Integer>> t = Trees.createGraph(10); // createGraph\n  }\n}\n",
			reports: []contract.BugReport{javac("src/main/java/org/graph/Iso.java", 3, "method", "createGraph(int)")},
			want:    "class Iso {\n  void t() {\n    List<List<Integer>> t = Trees.createEmptyGraph(10); // createGraph\n  }\n}\n",
		},
		{
			name: "a class renamed, a qualifier missed (javac: variable)", diff: javaClassDiff, path: "src/main/java/org/math/Transform.java",
			content: "public class Transform {\n  public static void main(String[] args) {\n    long[] r = FFT.multiply(a, b);\n  }\n}\n",
			reports: []contract.BugReport{javac("src/main/java/org/math/Transform.java", 3, "variable", "FFT")},
			want:    "public class Transform {\n  public static void main(String[] args) {\n    long[] r = Transform.multiply(a, b);\n  }\n}\n",
		},
		{
			name: "a class renamed, a constructor call missed", diff: javaClassDiff, path: "src/main/java/org/math/Demo.java",
			content: "class Demo {\n  Object o = new FFT();\n}\n",
			reports: []contract.BugReport{javac("src/main/java/org/math/Demo.java", 2, "class", "FFT")},
			want:    "class Demo {\n  Object o = new Transform();\n}\n",
		},
		{
			name: "a parameter renamed, a use in the body missed", diff: javaParamDiff, path: "src/main/java/org/ds/Table.java",
			content: "public class Table {\n  public Table(long[] values) {\n    n = values.length;\n    dp[0] = v[0];\n  }\n}\n",
			reports: []contract.BugReport{javac("src/main/java/org/ds/Table.java", 4, "variable", "v")},
			want:    "public class Table {\n  public Table(long[] values) {\n    n = values.length;\n    dp[0] = values[0];\n  }\n}\n",
		},
		{
			name: "a method inlined into its one caller: its parameter is the call's argument", diff: javaInlineDiff, path: "src/main/java/org/ds/MinTable.java",
			content: "public class MinTable {\n  public MinTable(long[] values) {\n    n = v.length;\n    dp[0] = v[0];\n  }\n}\n",
			reports: []contract.BugReport{javac("src/main/java/org/ds/MinTable.java", 3, "variable", "v"), javac("src/main/java/org/ds/MinTable.java", 4, "variable", "v")},
			want:    "public class MinTable {\n  public MinTable(long[] values) {\n    n = values.length;\n    dp[0] = values[0];\n  }\n}\n",
		},
		{
			name: "a method removed with two calls: no one argument", path: "src/main/java/org/ds/MinTable.java",
			diff:    strings.NewReplacer("-    init(values);\n", "-    init(values);\n-    init(copy);\n", "@@ -35,7 +35,3 @@", "@@ -35,8 +35,3 @@").Replace(javaInlineDiff),
			content: "public class MinTable {\n  public MinTable(long[] values) {\n    n = v.length;\n  }\n}\n",
			reports: []contract.BugReport{javac("src/main/java/org/ds/MinTable.java", 3, "variable", "v")},
			why:     "v: the breaking commit shows no such change",
		},
		{
			name: "one method replaced by two: two candidates", diff: javaSplitDiff, path: "src/main/java/shop/Report.java",
			content: "class Report {\n  long due(Invoice i) {\n    return i.total();\n  }\n}\n",
			reports: []contract.BugReport{javac("src/main/java/shop/Report.java", 3, "method", "total()")},
			why:     "by 2 of the same kind (net, gross): which one a use of total means is a choice",
		},
		{
			name: "javac misses a method, the commit renamed a variable", diff: javaVarDiff, path: "src/main/java/shop/Shop.java",
			content: "class Shop {\n  long due(Cart c) {\n    return c.total();\n  }\n}\n",
			reports: []contract.BugReport{javac("src/main/java/shop/Shop.java", 3, "method", "total()")},
			why:     "javac misses the method total, and the commit renamed a declaration of another kind (var)",
		},
		{
			name: "no symbol line: a declaration renamed alone is no corroboration", diff: javaClassDiff, path: "src/main/java/org/math/Demo.java",
			content: "class Demo {\n  Object o = new FFT();\n}\n",
			reports: []contract.BugReport{report("src/main/java/org/math/Demo.java", 2, "cannot find symbol")},
			why:     "the breaking commit shows no such change",
		},
		{
			name: "the file declares the old name itself", diff: javaClassDiff, path: "src/main/java/org/math/Demo.java",
			content: "class Demo {\n  static class FFT {}\n  Object o = new FFT();\n}\n",
			reports: []contract.BugReport{javac("src/main/java/org/math/Demo.java", 3, "class", "FFT")},
			why:     "declares FFT itself",
		},
	})
}

func TestDeclOfJava(t *testing.T) {
	tests := []struct {
		line       string
		kind, name string
		params     int // -1: none read
	}{
		{"public class FastFourierTransform {", "class", "FastFourierTransform", -1},
		{"@Deprecated final class FFT<T> extends Base {", "class", "FFT", -1},
		{"  public record Point(int x, int y) {", "class", "Point", -1},
		{"  public Table(long[] values, int n) {", "ctor", "Table", 2},
		{"  public static List<List<Integer>> createGraph(int n) {", "method", "createGraph", 1},
		{"  @Override public <T extends Comparable<T>> T[] sort(T[] xs) {", "method", "sort", 1},
		{"  private long queryMin(int l, int r) {", "method", "queryMin", 2},
		{"    int length = r - l + 1;", "var", "length", -1},
		{"  private static final Map<String, Integer> COUNTS = new HashMap<>();", "var", "COUNTS", -1},
		{"  private int[][] it;", "var", "it", -1},
	}
	for _, tt := range tests {
		d, ok := declOf(tt.line, "A.java", famJava)
		if !ok || d.kind != tt.kind || d.name != tt.name {
			t.Errorf("%q: %+v %v, want %s %s", tt.line, d, ok, tt.kind, tt.name)
			continue
		}
		if n := len(d.params); (tt.params < 0) == d.hasParams || (d.hasParams && n != tt.params) {
			t.Errorf("%q: params %q (read %v), want %d", tt.line, d.params, d.hasParams, tt.params)
		}
	}
	for _, l := range []string{"    return helper(x);", "    throw new IllegalStateException(msg);", "    x = compute(1);", "    return total;",
		"    List<List<Integer>> tree = createGraph(10);", "import java.util.List;", "package org.math;", "    if (x == y) {"} {
		if d, ok := declOf(l, "A.java", famJava); ok && (d.kind != "var" || d.name == "createGraph") {
			t.Errorf("%q taken for a declaration: %+v", l, d)
		}
	}
}

// rustRenameDiff renames a function and the calls of its own crate but
// one, as rustc then reports (E0425).
const rustRenameDiff = `diff --git a/src/trees.rs b/src/trees.rs
--- a/src/trees.rs
+++ b/src/trees.rs
@@ -4,4 +4,4 @@ use std::collections::HashMap;
 /// An empty tree of n nodes.
-pub fn create_graph(n: usize) -> Vec<Vec<usize>> {
+pub fn create_empty_graph(n: usize) -> Vec<Vec<usize>> {
     vec![Vec::new(); n]
 }
@@ -30,3 +30,3 @@ pub fn center(tree: &[Vec<usize>]) -> Vec<usize> {
 fn example() {
-    let mut tree = create_graph(5);
+    let mut tree = create_empty_graph(5);
     add_edge(&mut tree, 0, 1);
`

func TestPlanRust(t *testing.T) {
	files, err := ParseDiff(rustRenameDiff)
	if err != nil {
		t.Fatal(err)
	}
	content := "use crate::trees::create_graph;\n\nfn main() {\n    let t = create_graph(10);\n}\n"
	in := heal.FixInput{Path: "src/main.rs", Content: content,
		Request: contract.FixRequest{BugReport: report("src/main.rs", 4, "cannot find function `create_graph` in this scope")}}
	res, err := Plan(in, Analyze(files, in.Path))
	if err != nil {
		t.Fatal(err)
	}
	want := "use crate::trees::create_empty_graph;\n\nfn main() {\n    let t = create_empty_graph(10);\n}\n"
	if res.PatchedContent != want {
		t.Fatalf("got\n%s\nwant\n%s", res.PatchedContent, want)
	}
	// Without the renamed call the declaration alone corroborates nothing.
	files, _ = ParseDiff(strings.SplitAfter(rustRenameDiff, "     vec![Vec::new(); n]\n }\n")[0])
	if _, err := Plan(in, Analyze(files, in.Path)); err == nil || !strings.Contains(err.Error(), "no corroboration") {
		t.Fatalf("got %v, want a decline for want of corroboration", err)
	}
	for _, tt := range []struct{ line, kind, name string }{
		{"pub(crate) async fn load<T: Read>(r: T, n: usize) -> io::Result<()> {", "fn", "load"},
		{"pub struct Graph {", "type", "Graph"},
		{"static mut COUNT: usize = 0;", "const", "COUNT"},
		{"    let mut total = 0;", "let", "total"},
	} {
		if d, ok := declOf(tt.line, "a.rs", famRust); !ok || d.kind != tt.kind || d.name != tt.name {
			t.Errorf("%q: %+v %v, want %s %s", tt.line, d, ok, tt.kind, tt.name)
		}
	}
}

func TestJavaParam(t *testing.T) {
	for _, tt := range []struct{ in, name, typ string }{
		{"long [ ] v", "v", "long [ ]"},
		{"final Map < String , Integer > m", "m", "final Map < String , Integer >"},
		{"int ... xs", "xs", "int ..."},
		{"v", "", ""},
	} {
		if n, ty := javaParam(tt.in); n != tt.name || ty != tt.typ {
			t.Errorf("javaParam(%q) = %q %q, want %q %q", tt.in, n, ty, tt.name, tt.typ)
		}
	}
}
