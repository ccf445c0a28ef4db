# Outlines Python sources for salve's test-target resolver. It only parses
# them with ast.parse; it never imports or runs them. Each line of stdin is
# a JSON request {"files": [{"src": "...", "refs": bool}]}; each answer is
# one JSON line: per file its defs (qualified name, kind, first line with
# decorators, def line, last line, parameters), its imports, and, when
# asked, its references (maximal dotted names read, with their line and
# whether they are called).
import ast
import json
import sys
import warnings

MAX_FILES = 64
MAX_ITEMS = 20000
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    parts.append(node.id if isinstance(node, ast.Name) else "?")
    parts.reverse()
    return ".".join(parts)


def outline(src, want_refs):
    try:
        tree = ast.parse(src)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as e:
        return {"err": type(e).__name__}
    parent = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parent[child] = node
    defs, imports, refs = [], [], []
    for node in ast.walk(tree):
        if len(defs) + len(imports) + len(refs) > MAX_ITEMS:
            break
        if isinstance(node, SCOPES):
            names, p = [node.name], parent.get(node)
            while p is not None:
                if isinstance(p, SCOPES):
                    names.append(p.name)
                p = parent.get(p)
            names.reverse()
            args = []
            if not isinstance(node, ast.ClassDef):
                a = node.args
                args = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs][:64]
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            defs.append({"q": ".".join(names), "k": "class" if isinstance(node, ast.ClassDef) else "def",
                         "l": first, "d": node.lineno, "e": node.end_lineno or node.lineno, "a": args})
        elif isinstance(node, ast.Import):
            for al in node.names:
                imports.append({"m": al.name, "a": al.asname or "", "l": node.lineno})
        elif isinstance(node, ast.ImportFrom):
            for al in node.names:
                imports.append({"m": node.module or "", "lv": node.level or 0, "n": al.name,
                                "a": al.asname or "", "l": node.lineno})
        elif want_refs and isinstance(node, (ast.Name, ast.Attribute)):
            p = parent.get(node)
            if isinstance(p, ast.Attribute) or not isinstance(getattr(node, "ctx", None), ast.Load):
                continue
            refs.append({"r": dotted(node), "l": node.lineno,
                         "c": isinstance(p, ast.Call) and p.func is node})
    return {"defs": defs, "imports": imports, "refs": refs}


def main():
    warnings.simplefilter("ignore")
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    while True:
        line = inp.readline()
        if not line:
            return
        try:
            req = json.loads(line)
            files = req.get("files", [])[:MAX_FILES]
        except (ValueError, AttributeError):
            files = []
        res = []
        for f in files:
            try:
                res.append(outline(str(f.get("src", "")), bool(f.get("refs"))))
            except Exception as e:  # a hostile source must not end the session
                res.append({"err": type(e).__name__})
        out.write(json.dumps(res, separators=(",", ":")).encode("utf-8") + b"\n")
        out.flush()


main()
