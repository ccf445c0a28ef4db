#!/usr/bin/env python3
"""Tables of measure.py's results, before and after, in Markdown.

Usage:
  scripts/history/figures.py --before BEFORE.jsonl --after AFTER.jsonl
      [--review REVIEW.json]

--review overrides the class, compiler_determined and note of a pair,
and its "same_behaviour" decides whether a verified green heal whose
change differs from upstream's is a false success.

Prints per ecosystem and per class: pairs, compiler-determined pairs,
healed before and after (green, verified by a fresh clone), false
successes, checkouts left untouched, and the list of the misses with
their class and the first reason of the tier that came closest.
"""

import argparse
import collections
import json


def load(p, review):
    out = {}
    with open(p) as f:
        for r in (json.loads(l) for l in f if l.strip()):
            if r.get("outcome") == "not-reproduced":
                continue
            v = review.get("%s %s" % (r["repo"], r["commit"]), {})
            for k in ("class", "compiler_determined", "note"):
                if k in v:
                    r[k] = v[k]
            green = r.get("outcome") == "green" and r.get("verified")
            if green and "same_behaviour" in v:
                r["false_success"] = not v["same_behaviour"]
            out[(r["repo"], r["commit"])] = r
    return out


def healed(r):
    return r is not None and r.get("outcome") == "green" and r.get("verified") and not r.get("false_success")


def table(title, key, before, after):
    rows = collections.OrderedDict()
    for k, a in sorted(after.items(), key=lambda kv: (key(kv[1]), kv[0])):
        rows.setdefault(key(a), []).append(k)
    print("| %s | pairs | compiler-determined | healed before | healed after | determined healed before | determined healed after | false successes (after) | untouched (after) |" % title)
    print("|---|---|---|---|---|---|---|---|---|")
    tot = collections.Counter()
    for name, keys in list(rows.items()) + [("all", list(after))]:
        c = collections.Counter()
        for k in keys:
            a, b = after[k], before.get(k)
            det = a.get("compiler_determined")
            c["pairs"] += 1
            c["det"] += det
            c["hb"] += healed(b)
            c["ha"] += healed(a)
            c["dhb"] += det and healed(b)
            c["dha"] += det and healed(a)
            c["fs"] += bool(a.get("false_success")) or bool(b and b.get("false_success"))
            c["un"] += bool(a.get("untouched"))
        label = "**all**" if name == "all" else name
        print("| %s | %d | %d | %d | %d | %d | %d | %d | %d / %d |" % (label, c["pairs"], c["det"], c["hb"], c["ha"], c["dhb"], c["dha"], c["fs"], c["un"], c["pairs"]))
        tot += c
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--review", help="a reader's verdicts, as measure.py takes them")
    args = ap.parse_args()
    review = {}
    if args.review:
        with open(args.review) as f:
            review = json.load(f)
    before, after = load(args.before, review), load(args.after, review)
    table("ecosystem", lambda r: r["ecosystem"], before, after)
    table("class", lambda r: r["class"], before, after)
    print("| repository | commit | class | before | after | why not healed |")
    print("|---|---|---|---|---|---|")
    for k, a in sorted(after.items(), key=lambda kv: (kv[1]["ecosystem"], kv[1]["class"], kv[0])):
        b = before.get(k) or {}
        why = ""
        if not healed(a):
            why = a.get("note") or ""
            if not why:
                for bug in a.get("reasons") or []:
                    tries = [t for t in bug["tries"] if not t.startswith("llm")]
                    if tries:
                        why = tries[0]
                        break
        print("| %s | %s | %s | %s | %s | %s |" % (a["repo"], a["commit"][:12], a["class"],
                                                 "healed" if healed(b) else b.get("outcome", "—"),
                                                 "healed" if healed(a) else a.get("outcome"), why.replace("|", "\\|")[:160]))


if __name__ == "__main__":
    main()
