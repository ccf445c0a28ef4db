#!/usr/bin/env python3
"""Mine fail->pass commit pairs from a local clone's history.

Walks the history (every commit with one parent) of a local git repository (no remote is
ever contacted), picks the commits that look like a build or test fix (a
message that says so, or any small change with --all-small), and for each
one checks the parent and the commit with the same command, scoped to the
files the commit modified. A pair is a commit whose parent fails that
command and which passes it. Each pair is one JSON line of the manifest:

  {"repo", "ecosystem", "parent", "commit", "subject", "command",
   "files", "changed_lines", "parent_exit", "parent_tail"}

Usage:
  scripts/history/mine.py --repo PATH --ecosystem ECO --out MANIFEST.jsonl
      [--name NAME] [--mode build|test] [--grep REGEX] [--all-small]
      [--max-lines N] [--max-files N] [--max-candidates N] [--scratch DIR]
      [--timeout SECONDS] [--since REV] [--until REV]

Ecosystems and the command each checks with (FILES are the modified
files of that language, PKGS the Go packages holding them):
  go      build: go test -count=1 -run '^$' PKGS (compiles the package and
          its tests and runs go test's vet checks); test: go test
          -count=1 -short PKGS
  python  build: python3 -m py_compile FILES; test: python3 -m doctest FILES
  js      node --check FILES
  ts      tsc --noEmit --skipLibCheck --target es2020 --module commonjs
          --moduleResolution node --esModuleInterop FILES (tsc on the PATH)
  java    javac -proc:none -implicit:none -d $TMPDIR -sourcepath ROOT FILES
          (ROOT from each file's package declaration; main code only)
  c, cpp  gcc or g++ -fsyntax-only -I. FILES (standalone files)
  make    make -s (the project's own build)
  rust    cargo build --offline --all-targets in the crate of the files,
          the nearest Cargo.toml above them (test: cargo test --offline)

The script only reads the repository at --repo: it clones it (shared
objects) into --scratch and checks commits out there. It writes the
manifest, appending, and skips pairs the manifest already holds.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gitsnap  # noqa: E402

FIX_RE = (r"\b(fix(es|ed|ing)?|repair|unbreak|broken|revert)\b.*\b(build|compil\w*|syntax|tests?|imports?|vet|lint|typo|ci|travis|errors?|warnings?)\b"
          r"|\b(build|compile|compilation|syntax|import)\s+(fix|error|errors|failure)\b"
          r"|\bunused\b|\bundefined\b|\bmissing (import|include|argument|semicolon|comma)\b"
          r"|\bdoes(n'?t| not) (build|compile)\b|\bgo vet\b|\bgofmt\b")

EXTS = {
    "go": (".go",),
    "python": (".py",),
    "js": (".js", ".mjs", ".cjs"),
    "ts": (".ts",),
    "java": (".java",),
    "c": (".c", ".h"),
    "cpp": (".cpp", ".cc", ".cxx", ".hpp", ".h"),
    "make": (".c", ".h", ".cpp", ".cc"),
    "rust": (".rs",),
}

TAIL_LINES = 40


def git(repo, *args, check=True):
    r = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, errors="replace")
    if check and r.returncode != 0:
        raise RuntimeError("git %s: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout


def candidates(repo, args):
    """Yield (commit, parent, subject, files, changed_lines) of the
    first-parent history, newest first, that qualify."""
    rng = [(args.since + ".." + args.until) if args.since else args.until]
    try:
        out = git(repo, "log", "--no-merges", "--format=%x00%H %P%x01%s", "--numstat",
                  "--diff-filter=AMDR", *rng)
    except RuntimeError:
        # A snapshot may lack its largest blobs: read commit by commit and
        # leave out the commits whose change cannot be read.
        out = ""
        for c in git(repo, "rev-list", "--no-merges", *rng).split():
            r = subprocess.run(["git", "-C", repo, "show", "--format=%x00%H %P%x01%s", "--numstat",
                                "--diff-filter=AMDR", c], capture_output=True, text=True, errors="replace")
            if r.returncode == 0:
                out += r.stdout
    exts = EXTS[args.ecosystem]
    fix = re.compile(args.grep or FIX_RE, re.I)
    n = 0
    for rec in out.split("\x00")[1:]:
        head, _, body = rec.partition("\x01")
        ids = head.split()
        if len(ids) != 2:
            continue  # a root commit, or a merge
        subject, _, stat = body.partition("\n")
        files, lines = [], 0
        for row in stat.strip().splitlines():
            parts = row.split("\t")
            if len(parts) != 3:
                continue
            a, d, p = parts
            if a == "-":
                lines = 1 << 30  # binary
                continue
            lines += int(a) + int(d)
            if p.endswith(exts) and "=>" not in p:
                files.append(p)
        if not files or lines > args.max_lines or len(files) > args.max_files:
            continue
        if not args.all_small and not fix.search(subject):
            continue
        yield ids[0], ids[1], subject, files, lines
        n += 1
        if n >= args.max_candidates:
            return


def exists(repo, rev, path):
    return subprocess.run(["git", "-C", repo, "cat-file", "-e", "%s:%s" % (rev, path)],
                          capture_output=True).returncode == 0


def java_root(repo, rev, path):
    """The source root of a Java file: its folder less its package path."""
    text = git(repo, "show", "%s:%s" % (rev, path), check=False)
    m = re.search(r"^\s*package\s+([\w.]+)\s*;", text, re.M)
    d = os.path.dirname(path)
    if not m:
        return d or "."
    pkg = m.group(1).replace(".", "/")
    if d == pkg:
        return "."
    if d.endswith("/" + pkg):
        return d[: -len(pkg) - 1]
    return None


def command(repo, args, parent, commit, files):
    """The command both sides are checked with, or None when the commit's
    files give none (a file that only one side has, a test-only change
    of a language whose tests cannot run here)."""
    eco = args.ecosystem
    keep = [f for f in files if exists(repo, parent, f) and exists(repo, commit, f)]
    if eco == "go":
        keep = [f for f in keep if "/testdata/" not in "/" + f and not f.startswith("vendor/")]
        pkgs = sorted({"./" + (os.path.dirname(f) or ".") for f in keep})
        pkgs = [p[:-2] if p.endswith("/.") else p for p in pkgs]
        if not pkgs or not exists(repo, parent, "go.mod"):
            return None
        if args.mode == "test":
            return "go test -count=1 -short " + " ".join(pkgs)
        return "go test -count=1 -run '^$' " + " ".join(pkgs)
    if eco == "python":
        keep = [f for f in keep if f.endswith(".py")]
        if not keep:
            return None
        tool = "doctest" if args.mode == "test" else "py_compile"
        return "python3 -m %s %s" % (tool, " ".join(shlex.quote(f) for f in keep))
    if eco == "js":
        return "node --check " + " ".join(shlex.quote(f) for f in keep) if keep else None
    if eco == "ts":
        keep = [f for f in keep if not f.endswith(".d.ts") and not re.search(r"\.(test|spec)\.ts$", f)]
        if not keep:
            return None
        return ("tsc --noEmit --skipLibCheck --target es2020 --module commonjs --moduleResolution node "
                "--esModuleInterop " + " ".join(shlex.quote(f) for f in keep))
    if eco == "java":
        keep = [f for f in keep if "/test/" not in "/" + f and not f.endswith("Test.java")]
        roots = {java_root(repo, parent, f) for f in keep}
        if not keep or None in roots or len(roots) != 1:
            return None
        return "javac -proc:none -implicit:none -Xlint:none -d \"$(mktemp -d)\" -sourcepath %s %s" % (
            shlex.quote(roots.pop()), " ".join(shlex.quote(f) for f in keep))
    if eco in ("c", "cpp"):
        srcs = [f for f in keep if not f.endswith((".h", ".hpp"))]
        if not srcs:
            return None
        cc = "gcc -std=gnu11" if eco == "c" else "g++ -std=c++17"
        return "%s -fsyntax-only -I. %s" % (cc, " ".join(shlex.quote(f) for f in srcs))
    if eco == "make":
        return "make -s" if keep else None
    if eco == "rust":
        # The crate of the files: the nearest Cargo.toml above them.
        crates = set()
        for f in keep:
            d = os.path.dirname(f)
            while d and not exists(repo, parent, d + "/Cargo.toml"):
                d = os.path.dirname(d)
            crates.add(d)
        if not keep or len(crates) != 1:
            return None
        d = crates.pop()
        if not exists(repo, parent, (d + "/" if d else "") + "Cargo.toml"):
            return None
        where = " --manifest-path %s/Cargo.toml" % shlex.quote(d) if d else ""
        if args.mode == "test":
            return "cargo test --offline -q" + where
        return "cargo build --offline -q --all-targets" + where
    raise SystemExit("unknown ecosystem " + eco)


def run(cmd, cwd, timeout):
    env = dict(os.environ, GOTOOLCHAIN="local", CARGO_TERM_COLOR="never", NO_COLOR="1")
    try:
        r = subprocess.run(["sh", "-c", cmd], cwd=cwd, capture_output=True, text=True, errors="replace",
                           timeout=timeout, env=env, stdin=subprocess.DEVNULL, start_new_session=True)
        return r.returncode, (r.stdout + r.stderr)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"") + (e.stderr or b"")
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
        return 124, out


def checkout(scratch, rev):
    # A snapshot may lack its largest blobs: the commit is then checked
    # out as a copy without those files (their diffs are not checked).
    r = subprocess.run(["git", "-C", scratch, "checkout", "-q", "-f", "--detach", rev],
                       capture_output=True, text=True, errors="replace")
    if r.returncode != 0 or "invalid object" in r.stderr:
        if not gitsnap.missing(scratch, rev):
            raise RuntimeError("git checkout %s: %s" % (rev, r.stderr.strip()))
        stripped = gitsnap.strip(scratch, rev, depth=0)
        git(scratch, "read-tree", "--empty")  # the failed checkout's entries
        git(scratch, "checkout", "-q", "-f", "--detach", stripped)
    # Build products stay (target/, node_modules/) so that the next
    # commit's build is incremental; everything else untracked goes.
    git(scratch, "clean", "-q", "-fdx", "-e", "target/", "-e", "node_modules/")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", required=True)
    ap.add_argument("--ecosystem", required=True, choices=sorted(EXTS))
    ap.add_argument("--out", required=True)
    ap.add_argument("--name")
    ap.add_argument("--mode", choices=["build", "test"], default="build")
    ap.add_argument("--grep")
    ap.add_argument("--all-small", action="store_true")
    ap.add_argument("--max-lines", type=int, default=40)
    ap.add_argument("--max-files", type=int, default=4)
    ap.add_argument("--max-candidates", type=int, default=200)
    ap.add_argument("--scratch")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--since")
    ap.add_argument("--until", default="HEAD")
    args = ap.parse_args()

    repo = os.path.abspath(args.repo)
    name = args.name or os.path.basename(repo.rstrip("/"))
    seen = set()
    if os.path.exists(args.out):
        with open(args.out) as f:
            for line in f:
                p = json.loads(line)
                seen.add((p["repo"], p["commit"]))
    scratch = args.scratch or tempfile.mkdtemp(prefix="mine-")
    if not os.path.isdir(os.path.join(scratch, ".git")):
        subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", repo, scratch], check=True)
    found = checked = 0
    with open(args.out, "a") as out:
        for commit, parent, subject, files, lines in candidates(repo, args):
            if (name, commit) in seen:
                continue
            cmd = command(scratch, args, parent, commit, files)
            if cmd is None:
                continue
            checked += 1
            try:
                checkout(scratch, parent)
            except RuntimeError as e:
                print("skip %s: %s" % (commit[:12], e), file=sys.stderr)
                continue
            code, log = run(cmd, scratch, args.timeout)
            if code == 0 or code == 124:
                continue
            checkout(scratch, commit)
            ok, _ = run(cmd, scratch, args.timeout)
            if ok != 0:
                continue
            found += 1
            rec = {"repo": name, "ecosystem": args.ecosystem, "parent": parent, "commit": commit,
                   "subject": subject, "command": cmd, "files": files, "changed_lines": lines,
                   "parent_exit": code, "parent_tail": "\n".join(log.strip().splitlines()[-TAIL_LINES:])}
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print("pair %s %s %s" % (name, commit[:12], subject[:70]), file=sys.stderr)
    print("%s: %d candidates checked, %d pairs" % (name, checked, found), file=sys.stderr)
    if not args.scratch:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
