#!/usr/bin/env python3
"""Makes en-pairs.tsv, the shipped word pairs, from SymSpell's English word
and word-pair counts (made by Wolf Garbe from the Google Books Ngram data,
CC BY 3.0), as the symspellpy 6.10.1 package ships them (MIT):
frequency_dictionary_en_82_765.txt ("word count") and
frequency_bigramdictionary_en_243_342.txt ("first second count").

Each pair "a b" gets P(b | a) = count(a b) / count(a), written in centibels
(-100: one time in ten). Kept: pairs of two words of lower-case letters (an
apostrophe inside) that are both in en.tsv (only listed words are offered,
and the keyboard knows the word before only if it is listed). Written in
alphabetical order of the first word and then the second, the order the
keyboard keeps them in, so loading them sorts nothing.

    pip download symspellpy==6.10.1 --no-deps && unzip symspellpy-6.10.1-py3-none-any.whl
    python3 assets/words/make-pairs.py symspellpy > assets/words/en-pairs.tsv
"""
import math
import re
import sys
from pathlib import Path

WORD = re.compile(r"[a-z]+('[a-z]+)?$")


def main():
    src = Path(sys.argv[1])
    here = Path(__file__).resolve().parent
    known = set()
    for line in (here / "en.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            known.add(line.split("\t")[0])
    counts = []
    after = {}
    for line in (src / "frequency_bigramdictionary_en_243_342.txt").read_text(encoding="utf-8").splitlines():
        a, b, n = line.split()
        after[a] = after.get(a, 0) + int(n)
        if WORD.match(a) and WORD.match(b) and a in known and b in known:
            counts.append((a, b, int(n)))
    pairs = sorted((a, b, n / after[a]) for a, b, n in counts)
    print("# Word pairs (first second<TAB>P(second | first) in centibels), from SymSpell's English")
    print("# word-pair counts (Wolf Garbe; Google Books Ngram data, CC BY 3.0): see README.md")
    for a, b, p in pairs:
        print(f"{a} {b}\t{round(100 * math.log10(p))}")


if __name__ == "__main__":
    main()
