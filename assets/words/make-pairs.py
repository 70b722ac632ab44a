#!/usr/bin/env python3
"""Makes en-pairs.tsv, the shipped word pairs, from the cleaned Google Books
n-gram lists of github.com/orgtre/google-books-ngram-frequency (CC BY 3.0):
ngrams/{1,2}grams_english.csv and ngrams/{1,2}grams_english-fiction.csv.

Each pair "a b" gets P(b | a) = count(a b) / count(a) in each corpus (books
and fiction, which has the dialogue), and the mean of the two is written in
centibels (-100: one time in ten). Kept: pairs of two words of lower-case
letters (an apostrophe inside), whose second word is in en.tsv; the
corpora split "I'm" as "I 'm", and those halves are not words.

    python3 assets/words/make-pairs.py NGRAMS_DIR > assets/words/en-pairs.tsv
"""
import csv
import math
import re
import sys
from collections import defaultdict
from pathlib import Path

WORD = re.compile(r"[a-z]+('[a-z]+)?$")


def counts(path):
    out = defaultdict(int)
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            out[row["ngram"].lower()] += int(row["freq"])
    return out


def main():
    src = Path(sys.argv[1])
    here = Path(__file__).resolve().parent
    known = set()
    for line in (here / "en.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            known.add(line.split("\t")[0])
    corpora = ["english", "english-fiction"]
    cond = defaultdict(float)
    for name in corpora:
        ones = counts(src / f"1grams_{name}.csv")
        for pair, n in counts(src / f"2grams_{name}.csv").items():
            parts = pair.split(" ")
            if len(parts) != 2 or not all(WORD.match(p) for p in parts) or parts[1] not in known:
                continue
            first = ones.get(parts[0])
            if first:
                cond[pair] += min(1.0, n / first) / len(corpora)
    print("# Word pairs (first second<TAB>P(second | first) in centibels), from the Google Books")
    print("# Ngram Corpus via github.com/orgtre/google-books-ngram-frequency, CC BY 3.0: see README.md")
    for pair, p in sorted(cond.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{pair}\t{round(100 * math.log10(p))}")


if __name__ == "__main__":
    main()
