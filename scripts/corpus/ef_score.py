#!/usr/bin/env python3
"""ef_score.py ERRORFORMAT CORPUS EFM...: score reviewdog's errorformat CLI on
the logparse corpus the way `salve parse --score` scores logparse: recall and
precision on (file_path, line_number). errorformat has no notion of a
workspace, so its file names are made repo-relative here (the case's root and
"./" are stripped) to give it every chance."""
import json
import os
import subprocess
import sys

ef, corpus, efm = sys.argv[1], sys.argv[2], sys.argv[3:]
exp = found = hits = cases = 0
for fam in sorted(os.listdir(corpus)):
    for case in sorted(os.listdir(os.path.join(corpus, fam))):
        d = os.path.join(corpus, fam, case)
        if not os.path.exists(os.path.join(d, "log.txt")):
            continue
        cases += 1
        meta = json.load(open(os.path.join(d, "meta.json")))
        root = (meta.get("root") or "").rstrip("/") + "/"
        want = {(e["file_path"], e["line_number"]) for e in json.load(open(os.path.join(d, "expected.json")))}
        res = subprocess.run([ef, "-f", "{{.Filename}}\t{{.Lnum}}"] + efm, stdin=open(os.path.join(d, "log.txt"), "rb"),
                             capture_output=True, text=True, errors="replace")
        got = set()
        for line in res.stdout.splitlines():
            if "\t" not in line:
                continue
            f, l = line.rsplit("\t", 1)
            if not l.isdigit() or int(l) < 1 or not f:
                continue
            f = f.replace("file://", "")
            if root != "/" and f.startswith(root):
                f = f[len(root):]
            while f.startswith("./"):
                f = f[2:]
            got.add((f, int(l)))
        exp += len(want)
        found += len(got)
        hits += len(want & got)
print("errorformat on %d cases: expected %d, found %d, matched %d, recall %.4f, precision %.4f" % (
    cases, exp, found, hits, hits / max(exp, 1), hits / max(found, 1)))
