#!/usr/bin/env python3
"""Check the retrieval benchmark against the manuals installed on this machine.

For every entry of manuals.json: the file exists, its SHA-256 matches (for a
.gz file, the SHA-256 of the decompressed PDF), and pdftotext sees the stated
number of pages. For every entry of questions.json: the fields are well formed,
the manual exists, and every answer page is within the manual's page range and
has extractable text.

Standard library only; needs pdftotext (Debian package poppler-utils).
Exit status 0 when everything passes, 1 otherwise.

Usage: python3 check.py [--dir DIR]   (DIR defaults to this script's folder)
"""

import argparse
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

KINDS = {"term", "paraphrase", "scoped"}
SPLITS = {"dev", "test"}


def page_texts(pdf_path):
    """Return the text of each page, as pdftotext splits them by form feed."""
    out = subprocess.run(
        ["pdftotext", "-layout", "-enc", "UTF-8", pdf_path, "-"],
        check=True, capture_output=True,
    ).stdout.decode("utf-8", errors="replace")
    pages = out.split("\f")
    if pages and pages[-1].strip() == "":
        pages = pages[:-1]  # pdftotext ends every page, the last one too, with \f
    return pages


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=os.path.dirname(os.path.abspath(__file__)))
    args = ap.parse_args()

    if shutil.which("pdftotext") is None:
        print("FAIL: pdftotext not found (apt-get install -y poppler-utils)")
        return 1

    with open(os.path.join(args.dir, "manuals.json"), encoding="utf-8") as f:
        manuals = json.load(f)
    with open(os.path.join(args.dir, "questions.json"), encoding="utf-8") as f:
        questions = json.load(f)

    problems = []
    texts = {}  # manual id -> list of page texts
    by_id = {}

    with tempfile.TemporaryDirectory() as tmp:
        for m in manuals:
            mid = m.get("id")
            if mid in by_id:
                problems.append(f"manual {mid}: duplicate id")
                continue
            by_id[mid] = m
            path = m["path"]
            if not os.path.isfile(path):
                problems.append(f"manual {mid}: {path} not found (install package {m['package']})")
                continue
            if path.endswith(".gz") != bool(m["gzip"]):
                problems.append(f"manual {mid}: gzip flag does not match the file name {path}")
            with open(path, "rb") as f:
                data = f.read()
            pdf = path
            if m["gzip"]:
                data = gzip.decompress(data)
                pdf = os.path.join(tmp, mid + ".pdf")
                with open(pdf, "wb") as f:
                    f.write(data)
            digest = hashlib.sha256(data).hexdigest()
            if digest != m["sha256"]:
                problems.append(f"manual {mid}: sha256 {digest} != {m['sha256']}")
            try:
                pages = page_texts(pdf)
            except subprocess.CalledProcessError as e:
                problems.append(f"manual {mid}: pdftotext failed: {e.stderr.decode(errors='replace')[:200]}")
                continue
            if len(pages) != m["pages"]:
                problems.append(f"manual {mid}: pdftotext sees {len(pages)} pages, manuals.json says {m['pages']}")
            texts[mid] = pages

    seen = set()
    for q in questions:
        qid = q.get("id")
        where = f"question {qid}"
        if qid in seen:
            problems.append(f"{where}: duplicate id")
        seen.add(qid)
        m = by_id.get(q.get("manual"))
        if m is None:
            problems.append(f"{where}: unknown manual {q.get('manual')!r}")
            continue
        if q.get("lang") != m["lang"]:
            problems.append(f"{where}: lang {q.get('lang')!r} differs from the manual's {m['lang']!r}")
        if q.get("kind") not in KINDS:
            problems.append(f"{where}: kind {q.get('kind')!r} not in {sorted(KINDS)}")
        if q.get("split") not in SPLITS:
            problems.append(f"{where}: split {q.get('split')!r} not in {sorted(SPLITS)}")
        if not isinstance(q.get("question"), str) or not q["question"].strip():
            problems.append(f"{where}: empty question")
        pages = q.get("pages")
        if not isinstance(pages, list) or not pages or not all(isinstance(p, int) for p in pages):
            problems.append(f"{where}: pages must be a non-empty list of integers")
            continue
        for p in pages:
            if not 1 <= p <= m["pages"]:
                problems.append(f"{where}: page {p} outside 1..{m['pages']} of {m['id']}")
            elif m["id"] in texts and p <= len(texts[m["id"]]) and not texts[m["id"]][p - 1].strip():
                problems.append(f"{where}: page {p} of {m['id']} has no extractable text")

    # Summary
    total_pages = sum(m["pages"] for m in manuals)
    print(f"{len(manuals)} manuals, {total_pages} pages; {len(questions)} questions")
    per_manual = Counter(q["manual"] for q in questions)
    split_manual = Counter((q["manual"], q["split"]) for q in questions)
    for m in manuals:
        mid = m["id"]
        print(f"  {mid:24s} {m['lang']}  {m['pages']:5d} pages  "
              f"{per_manual[mid]:3d} questions ({split_manual[(mid, 'dev')]} dev, {split_manual[(mid, 'test')]} test)")
    for field in ("lang", "kind", "split"):
        counts = Counter(q.get(field) for q in questions)
        print(f"  by {field}: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items(), key=str)))

    if problems:
        print(f"FAIL: {len(problems)} problem(s)")
        for p in problems:
            print("  " + p)
        return 1
    print("OK: all manuals and answer pages check out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
