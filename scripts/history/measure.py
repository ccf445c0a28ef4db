#!/usr/bin/env python3
"""Measure `salve heal` on mined fail->pass pairs.

For each pair of a manifest written by mine.py, clones the repository
(shared objects) into a scratch folder, checks the failing commit out on
a branch as a user's checkout, and runs

  salve heal --cmd COMMAND --fixers history,rules,suggest --isolation none
             --no-store --no-repo-config --results FILE

with no LLM provider in the environment. It then records, one JSON line
per pair:

  outcome      green (exit 0), red (exit 1), environment (exit 3),
               flaky (5), or the exit code; not-reproduced when the
               command passes at the failing commit in a fresh clone (the
               pair is left out of the figures)
  verified     the heal branch, cloned fresh, passes the command
  false_success  exit 0 where the fresh clone fails, or where the heal's
               change of the files differs from upstream's fix and
               --review has not accepted it as the same behaviour
  same_as_upstream  the heal's tree equals the fixing commit's in the
               files either one changed (whitespace aside)
  untouched    HEAD, the index, the status (ignored files too), the refs
               but the heal branches, and every tracked file are as they
               were
  parser_types salve's bug types and rules for the failing build
  class        the fix's class, read from the failing log and the
               upstream diff (see CLASSES), and compiler_determined
  reasons      what each tier said of each bug, for the misses

Usage:
  scripts/history/measure.py --manifest M.jsonl --mirror-root DIR
      --salve BIN --out RESULTS.jsonl [--only REPO] [--limit N]
      [--timeout SECONDS] [--review REVIEW.json]

--mirror-root holds one local clone per repository, found by the pair's
"repo" field with "/" written "+" (owner+name/repo), or the folder given
by --mirror NAME=PATH. --review maps "repo commit" to {"class": ...,
"same_behaviour": true|false, "note": ...}: a reader's verdict that
overrides the heuristics.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gitsnap  # noqa: E402

# Classes of a fix, from the failing build's log, tried in order; the
# compiler-determined ones are those whose fix the compiler's own output
# determines.
CLASSES = [
    ("unused-import", True, r"imported and not used|unused import|F401|is defined but never used.*import"),
    ("unused-variable", True, r"declared and not used|declared but not used|unused variable|-Wunused-(but-set-)?variable"),
    ("missing-import", True, r"implicit declaration of function|did you forget to '#include|is defined in header|"
                             r"unknown type name|fatal error: .*: No such file or directory"),
    ("arity", True, r"not enough arguments in call|too few values in struct literal|too many arguments in call|too few arguments to function|too many arguments to function|"
                    r"no matching function for call|takes \d+ positional arguments? but \d+ (were|was) given|missing \d+ required positional argument|"
                    r"Expected \d+ arguments?, but got \d+|this function takes \d+ arguments? but \d+ arguments? (were|was) supplied|"
                    r"method \w+ in \w+ \w+ cannot be applied to given types|constructor \w+ in class \w+ cannot be applied"),
    ("undefined-name", True, r"undefined: \w+|undeclared|not declared|was not declared in this scope|cannot find symbol|is not defined|"
                             r"Cannot find name|has not been declared|is not a member of|cannot find value|unresolved (name|import)|NameError|"
                             r"has no field or method|has no member named|cannot find function"),
    ("java-class-file", True, r"is public, should be declared in a file named"),
    ("syntax", True, r"syntax error|SyntaxError|IndentationError|TabError|expected ';'|expected '\)'|expected expression|"
                     r"expected primary-expression|unexpected token|';' expected|illegal start of|missing terminating|"
                     r"unterminated|expected one of"),
    ("go-vet", True, r"arg list ends with redundant newline|possible Printf formatting directive|wrong type for|"
                     r"call has arguments but no formatting directives|format %\w has arg|wrong signature for"),
    ("type-error", False, r"cannot use|incompatible types?|mismatched types|invalid operation|cannot convert|"
                          r"mismatched types|is not assignable|TS2322|TS2345|error\[E0308\]|type mismatch"),
    ("test-failure", False, r"--- FAIL|FAILED|Failed example|AssertionError|assert|panic:|Traceback"),
]


def classify(log):
    for name, determined, rx in CLASSES:
        if re.search(rx, log):
            return name, determined
    return "other", False


def git(repo, *args, check=True):
    r = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, errors="replace")
    if check and r.returncode != 0:
        raise RuntimeError("git %s: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout


def env_without_llm():
    env = {k: v for k, v in os.environ.items()
           if not re.search(r"API_KEY|OLLAMA|OPENAI|ANTHROPIC|SALVE_MODELS", k)}
    env["GOTOOLCHAIN"] = "local"
    env["NO_COLOR"] = "1"
    return env


def state(repo):
    """What a heal must leave as it was."""
    refs = [r for r in git(repo, "for-each-ref", "--format=%(refname) %(objectname)").splitlines()
            if not r.startswith("refs/heads/salve/")]
    files = git(repo, "ls-files", "-s") + git(repo, "diff", "--stat")
    return {"head": git(repo, "rev-parse", "HEAD"), "symbolic": git(repo, "symbolic-ref", "-q", "HEAD", check=False),
            "status": git(repo, "status", "--porcelain", "--ignored"), "refs": refs, "files": files}


def run(cmd, cwd, env, timeout):
    try:
        r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, errors="replace",
                           timeout=timeout, stdin=subprocess.DEVNULL, start_new_session=True,
                           shell=isinstance(cmd, str))
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        return 124, ""


def changed_files(repo, a, b):
    return [f for f in git(repo, "diff", "--name-only", a, b).splitlines() if f]


def same_tree(repo, heal, upstream, parent):
    files = sorted(set(changed_files(repo, parent, heal)) | set(changed_files(repo, parent, upstream)))
    if not files:
        return False
    d = git(repo, "diff", "--ignore-all-space", "--ignore-blank-lines", heal, upstream, "--", *files)
    return d.strip() == ""


def measure(pair, mirror, args, review):
    tmp = tempfile.mkdtemp(prefix="measure-", dir=args.scratch)
    repo = os.path.join(tmp, "repo")
    env = env_without_llm()
    rec = {"repo": pair["repo"], "ecosystem": pair["ecosystem"], "commit": pair["commit"], "parent": pair["parent"],
           "command": pair["command"], "verified": False, "same_as_upstream": False, "untouched": True,
           "parser_types": [], "false_success": False}
    rec["class"], rec["compiler_determined"] = classify(pair.get("parent_tail", ""))
    try:
        subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", mirror, repo], check=True)
        git(repo, "config", "user.email", "measure@example.invalid")
        git(repo, "config", "user.name", "measure")
        # A snapshot that lacks some blobs: the failing commit and its
        # ancestors without those files, so that they check out.
        parent = gitsnap.strip(repo, pair["parent"])
        if parent != pair["parent"]:
            rec["stripped"] = gitsnap.missing(repo, pair["parent"])
            tree = gitsnap._strip_tree(repo, pair["commit"])[0]
            upstream = git(repo, "commit-tree", tree, "-p", parent, "-m", "upstream").strip()
        else:
            upstream = pair["commit"]
        git(repo, "checkout", "-q", "-B", "work", parent)
        # The pair must fail here as it did when mined: a failure of the
        # mining run's own (a download, a timeout) is no pair.
        probe = os.path.join(tmp, "probe")
        subprocess.run(["git", "clone", "-q", "--shared", repo, probe], check=True)
        pcode, _ = run(pair["command"], probe, env, args.timeout)
        shutil.rmtree(probe, ignore_errors=True)
        if pcode == 0:
            rec["outcome"] = "not-reproduced"
            return rec
        before = state(repo)
        results = os.path.join(tmp, "results.json")
        code, out = run([args.salve, "heal", "--cmd", pair["command"], "--fixers", "history,rules,suggest",
                         "--isolation", "none", "--no-store", "--no-repo-config", "--results", results],
                        repo, env, args.timeout)
        rec["exit"] = code
        rec["outcome"] = {0: "green", 1: "red", 3: "environment", 5: "flaky", 124: "timeout"}.get(code, "exit %d" % code)
        rec["untouched"] = state(repo) == before
        res = {}
        if os.path.exists(results):
            with open(results) as f:
                res = json.load(f)
        bugs = res.get("bugs") or []
        rec["parser_types"] = sorted({"%s/%s" % (b["bug"].get("error_type"), b["bug"].get("tool") or "") for b in bugs})
        rec["fixers"] = sorted({b.get("fixer") for b in bugs if b.get("status") == "fixed" and b.get("fixer")})
        rec["reasons"] = []
        for b in bugs[:6]:
            tries = ["%s: %s %s" % (a.get("fixer"), a.get("outcome"), (a.get("reason") or "")[:200]) for a in b.get("attempts") or []]
            rec["reasons"].append({"bug": "%s:%s %s" % (b["bug"].get("file_path"), b["bug"].get("line_number"),
                                                         (b["bug"].get("message") or "")[:160]),
                                   "status": b.get("status"), "tries": tries})
        log = pair.get("parent_tail", "")
        rec["class"], rec["compiler_determined"] = classify(log)
        key = "%s %s" % (pair["repo"], pair["commit"])
        if key in review and review[key].get("note"):
            rec["note"] = review[key]["note"]
        if key in review and "class" in review[key]:
            rec["class"] = review[key]["class"]
            rec["compiler_determined"] = review[key].get("compiler_determined", rec["compiler_determined"])
        branch = res.get("branch") or ""
        heal_head = res.get("head_commit") or ""
        rec["verified"] = False
        rec["same_as_upstream"] = False
        if code == 0 and branch and heal_head and heal_head != parent:
            check = os.path.join(tmp, "check")
            subprocess.run(["git", "clone", "-q", "--shared", "-b", branch, repo, check], check=True)
            ok, _ = run(pair["command"], check, env, args.timeout)
            rec["verified"] = ok == 0
            rec["same_as_upstream"] = same_tree(repo, heal_head, upstream, parent)
            rec["heal_diff"] = git(repo, "diff", parent, heal_head)[:4000]
        same = rec["same_as_upstream"] or review.get(key, {}).get("same_behaviour") is True
        rec["false_success"] = code == 0 and heal_head != parent and (not rec["verified"] or not same)
        if code == 0 and heal_head == parent:
            rec["false_success"] = True  # green with nothing fixed: the failing build was not seen
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--manifest", required=True, action="append")
    ap.add_argument("--mirror-root", default="")
    ap.add_argument("--mirror", action="append", default=[])
    ap.add_argument("--salve", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--review")
    ap.add_argument("--scratch", default=None)
    args = ap.parse_args()
    mirrors = dict(m.split("=", 1) for m in args.mirror)
    review = {}
    if args.review and os.path.exists(args.review):
        with open(args.review) as f:
            review = json.load(f)
    pairs = []
    for m in args.manifest:
        with open(m) as f:
            pairs += [json.loads(l) for l in f if l.strip()]
    if args.only:
        pairs = [p for p in pairs if args.only in p["repo"] or p["commit"].startswith(args.only)]
    if args.limit:
        pairs = pairs[: args.limit]
    with open(args.out, "w") as out:
        for p in pairs:
            mirror = mirrors.get(p["repo"]) or os.path.join(args.mirror_root, p["repo"].replace("/", "+"), "repo")
            rec = measure(p, mirror, args, review)
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print("%-28s %s %-11s %-16s verified=%s same=%s untouched=%s %s" % (
                p["repo"][:28], p["commit"][:10], rec["outcome"], rec["class"], rec["verified"],
                rec["same_as_upstream"], rec["untouched"], ",".join(rec["parser_types"])[:60]), file=sys.stderr)


if __name__ == "__main__":
    main()
