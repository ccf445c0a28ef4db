#!/usr/bin/env python3
"""mess.py RAW RUN_ROOT ROOT_AS MESS_JSON: print the recorded log RAW with
RUN_ROOT replaced by ROOT_AS and the CI noise named in MESS_JSON added, the
way CI systems wrap a tool's output. Deterministic: the same input gives the
same log."""
import json
import os
import sys

raw, run, root_as, mess = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
text = open(raw, encoding="utf-8", errors="replace").read()
if root_as != run:
    text = text.replace(run, root_as)
# The recording user's home is not part of the fixture: show it as a CI
# user's, so that toolchain paths (pyenv, rustup, cargo) keep their shape.
home = os.environ.get("HOME", "")
if len(home) > 1:
    text = text.replace(home.rstrip("/") + "/", "/home/ci/")
lines = text.split("\n")
if lines and lines[-1] == "":
    lines.pop()

def stamp(i, sep="T", frac=7):
    s, ms = divmod(i * 137, 1000)
    return "2026-11-23%s03:%02d:%02d.%s" % (sep, (s // 60) % 60, s % 60, ("%03d" % ms + "0" * 9)[:frac])

out = []
for i, l in enumerate(lines):
    if "ansi" in mess:
        for word, col in (("error", "31"), ("warning", "33"), ("FAIL", "31"), ("note", "36")):
            l = l.replace(word, "\x1b[1;%sm%s\x1b[0m" % (col, word))
    if "buildkit" in mess:
        l = "#9 %d.%03d %s" % (i // 50, (i * 37) % 1000, l)
    if "gha" in mess or "azure" in mess:
        l = stamp(i) + "Z " + l
    if "jenkins" in mess:
        l = "[" + stamp(i, frac=3) + "Z] " + l
    if "gitlab" in mess:
        l = stamp(i, frac=6) + "Z 00O " + l
    out.append(l)
if "gitlab" in mess:
    out.insert(0, "section_start:1700000000:step_script\r\x1b[0K\x1b[0K\x1b[36;1mExecuting \"step_script\" stage of the job script\x1b[0;m")
    out.append("section_end:1700000100:step_script\r\x1b[0K")
if "gha" in mess:
    out.insert(0, "2026-11-23T03:00:00.0000000Z ##[group]Run make test")
    out.append("2026-11-23T03:59:59.0000000Z ##[error]Process completed with exit code 1.")
if "progress" in mess:
    out.insert(0, "Downloading 10%\rDownloading 50%\rDownloading 100%")
nl = "\r\n" if "crlf" in mess else "\n"
sys.stdout.write(nl.join(out) + nl)
