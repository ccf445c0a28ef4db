"""Commits of a snapshot that lacks some blobs (a stored copy leaves out
its largest files), made whole for tools that check them out.

strip(repo, rev, depth) returns a commit whose tree is rev's without the
files whose blobs are missing, on a chain of the same kind of copies of
rev's first-parent ancestors, depth commits deep: their diffs are the
originals' but for the missing files. A rev with no missing blob in it
or its ancestors is returned as it is.
"""

import subprocess


def _git(repo, *args, inp=None, env=None):
    r = subprocess.run(["git", "-C", repo, *args], input=inp, capture_output=True, text=True, errors="replace", env=env)
    if r.returncode != 0:
        raise RuntimeError("git %s: %s" % (" ".join(args[:3]), r.stderr.strip()))
    return r.stdout


def missing(repo, rev):
    """The paths of rev's tree whose blobs the repository lacks."""
    rows = [l.split("\t", 1) for l in _git(repo, "ls-tree", "-r", rev).splitlines()]
    blobs = [(meta.split()[2], path) for meta, path in rows if meta.split()[1] == "blob"]
    if not blobs:
        return []
    out = _git(repo, "cat-file", "--batch-check", inp="\n".join(b for b, _ in blobs) + "\n")
    return [path for (b, path), line in zip(blobs, out.splitlines()) if line.endswith(" missing")]


def _strip_tree(repo, rev):
    import os
    import tempfile
    gone = missing(repo, rev)
    if not gone:
        return _git(repo, "rev-parse", rev + "^{tree}").strip(), False
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, GIT_INDEX_FILE=os.path.join(d, "index"))
        _git(repo, "read-tree", rev, env=env)
        _git(repo, "rm", "-q", "--cached", "--ignore-unmatch", "--", *gone, env=env)
        return _git(repo, "write-tree", env=env).strip(), True


def strip(repo, rev, depth=8):
    chain = [rev]
    for _ in range(depth):
        r = subprocess.run(["git", "-C", repo, "rev-parse", "-q", "--verify", chain[-1] + "^1"], capture_output=True, text=True)
        if r.returncode != 0:
            break
        chain.append(r.stdout.strip())
    trees = [_strip_tree(repo, c) for c in chain]
    if not any(changed for _, changed in trees):
        return rev
    parent = None
    for c, (tree, _) in reversed(list(zip(chain, trees))):
        msg = _git(repo, "log", "-1", "--format=%B", c)
        args = ["commit-tree", tree] + (["-p", parent] if parent else [])
        env = None
        parent = _git(repo, *args, inp=msg, env=env).strip()
    return parent
