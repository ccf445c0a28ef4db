package suggest_test

func init() { cases = append(cases, importCases...) }

// importCases are everyday missing imports, alone or beside another slip
// of the same file, healed through salve heal: the rules tier imports,
// and the suggest tier must not rename the name to a near one instead.
var importCases = []healCase{
	{
		name: "go-two-std-imports-one-line", tools: []string{"go"}, cmd: "go build ./...",
		files: map[string]string{
			"go.mod":  "module example.com/label\n\ngo 1.22\n",
			"main.go": "package main\n\nimport \"fmt\"\n\n// label formats a count for the log.\nfunc label(n int) string {\n\treturn strings.ToUpper(\"n=\") + strconv.Itoa(n)\n}\n\nfunc main() {\n\tfmt.Println(label(42))\n}\n",
		},
		want:     []string{`rules: TYPE_ERROR error in main.go line 7 → Fix: add missing import "strconv", "strings"`},
		maxLines: 6,
	},
	{
		name: "python-stdlib-import-not-help", tools: []string{"python3"}, cmd: "python3 jobs.py",
		files: map[string]string{
			"jobs.py": "\"\"\"Priority helpers.\"\"\"\nfrom __future__ import annotations\n\nimport functools\nimport os\n\n__all__ = [\"smallest\"]\n\n\n@functools.lru_cache(maxsize=None)\ndef workers() -> int:\n    return os.cpu_count() or 1\n\n\ndef smallest(jobs: list[int], n: int = 1) -> list[int]:\n    return heapq.nsmallest(n, jobs)\n\n\nprint(smallest([3, 1, 2]), workers())\n",
		},
		want:     []string{"rules: TYPE_ERROR error in jobs.py line 16 → Fix: add the missing import heapq"},
		maxLines: 1,
	},
	{
		name: "python-colon-then-import", tools: []string{"python3"}, cmd: "python3 dump.py a b",
		files: map[string]string{
			"dump.py": "\"\"\"Print the arguments as JSON.\"\"\"\nimport sys\n\n\ndef main(args)\n    print(json.dumps(args))\n\n\nmain(sys.argv[1:])\n",
		},
		want:     []string{"add the ':' that ends the statement on line 5", "add the missing import json"},
		maxLines: 3,
	},
	{
		name: "java-semicolon-then-import", tools: []string{"javac"}, cmd: "mkdir -p out && javac -d out src/demo/Main.java",
		files: map[string]string{
			".gitignore":         "out/\n",
			"src/demo/Main.java": "package demo;\n\nimport java.util.ArrayList;\n\n/** Prints the names given. */\npublic class Main {\n    public static void main(String[] args) {\n        List<String> names = new ArrayList<>()\n        for (String a : args) {\n            names.add(a);\n        }\n        System.out.println(names);\n    }\n}\n",
		},
		want:     []string{"add the missing ';' at the end of line 8", "add the missing import java.util.List;"},
		maxLines: 3,
	},
	{
		name: "rust-std-uses", tools: []string{"cargo"}, cmd: "cargo build --quiet",
		files: map[string]string{
			"Cargo.toml":  "[package]\nname = \"words\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
			".gitignore":  "/target\n",
			"src/main.rs": "//! Counts the words of standard input.\n\nuse std::io::{self, Read};\n\nfn main() {\n    let mut text = String::new();\n    io::stdin().read_to_string(&mut text).unwrap();\n    let mut counts: HashMap<&str, usize> = HashMap::new();\n    for w in text.split_whitespace() {\n        *counts.entry(w).or_insert(0) += 1;\n    }\n    let shared = Rc::new(counts);\n    println!(\"{}\", shared.len());\n}\n",
		},
		want:     []string{"rules: TYPE_ERROR error in src/main.rs line 8 → Fix: add the missing use std::collections::HashMap; use std::rc::Rc;"},
		maxLines: 2,
	},
	{
		name: "node-default-import-of-a-module", tools: []string{"node"}, cmd: "node src/main.js",
		files: map[string]string{
			"package.json":  "{\"name\": \"conf\", \"type\": \"module\"}\n",
			"src/format.js": "export function format(doc) {\n  return JSON.stringify(doc);\n}\n",
			"src/parse.js":  "export default function parse(text) {\n  const [k, v] = text.split('=');\n  return { [k]: v };\n}\n",
			"src/main.js":   "import { format } from './format.js';\n\nconst parser = { name: 'ini' };\nconsole.log(format(parse('a=1')), parser.name);\n",
		},
		want:     []string{"rules: TYPE_ERROR error in src/main.js line 4 → Fix: add the missing import parse from './parse.js';"},
		maxLines: 1,
	},
}
