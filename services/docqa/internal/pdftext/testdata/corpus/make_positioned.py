#!/usr/bin/env python3
"""Writes the corpus files of text placed glyph by glyph, and their pdftotext references:

- gen-tex-accents.pdf: accents drawn as glyphs of their own, as TeX does with its OT1 fonts
  (\\'e, \\"u, \\=a, \\v{c}, \\r{u}, \\c{c}, \\d{h}): the accent first, moved over (or under) the
  letter by a kern, then a kern back and the letter. Words are set as pdfTeX sets them, one TJ
  array a line with the word spaces as kerns and no space characters. A page each of French,
  German, Czech, transliterated Arabic, and one of other accents (tilde, breve, double acute,
  ogonek).
- gen-glyph-by-glyph.pdf: every glyph placed on its own (a Tm per glyph, as troff and some
  converters write), no space characters, justified lines whose word gaps vary, tight letter
  spacing and kerned pairs (To, AV, Wa); and a page whose word gaps are kerns while space
  characters, their advance taken back by a kern, stand inside words (as in pdfcpu's
  TheGoProgrammingLanguageCh1.pdf, where PDFium alone read "gro und"); then troff's way
  (scaled_line), word gaps by turns spaces and kerns (mixed_line) and letter-spaced text
  (tracked_line), which PDFium spaces right and which must stay right.

Run from this folder: python3 make_positioned.py (Python 3 and Debian's poppler-utils, at
generation time only).
"""
import subprocess
import unicodedata

# Times-Roman advance widths (Adobe's AFM, thousandths of the font size) of the glyphs used.
WIDTHS = {
    "space": 250, "quoteright": 333, "comma": 250, "hyphen": 333, "period": 250, "colon": 278,
    "A": 722, "B": 667, "C": 667, "D": 722, "E": 611, "F": 556, "G": 722, "H": 722, "I": 333,
    "J": 389, "K": 722, "L": 611, "M": 889, "N": 722, "O": 722, "P": 556, "Q": 722, "R": 667,
    "S": 556, "T": 611, "U": 722, "V": 722, "W": 944, "X": 722, "Y": 722, "Z": 611,
    "a": 444, "b": 500, "c": 444, "d": 500, "e": 444, "f": 333, "g": 500, "h": 500, "i": 278,
    "j": 278, "k": 500, "l": 278, "m": 778, "n": 500, "o": 500, "p": 500, "q": 500, "r": 333,
    "s": 389, "t": 278, "u": 500, "v": 500, "w": 722, "x": 500, "y": 500, "z": 444,
    "germandbls": 500, "Lslash": 611, "dotlessi": 278,
    "acute": 333, "grave": 333, "dieresis": 333, "macron": 333, "caron": 333, "breve": 333,
    "ring": 333, "tilde": 333, "circumflex": 333, "cedilla": 333, "dotaccent": 333,
    "hungarumlaut": 333, "ogonek": 333, "uni0323": 333, "uni02BE": 278, "uni02BF": 278,
}
DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
WIDTHS.update({d: 500 for d in DIGITS})
ASCII = {"'": "quoteright", ",": "comma", "-": "hyphen", ".": "period", ":": "colon", " ": "space"}
ASCII.update({str(i): d for i, d in enumerate(DIGITS)})
# Codes 128 and up name the glyphs outside ASCII (the font's /Differences).
EXTRA = ["germandbls", "Lslash", "dotlessi", "acute", "grave", "dieresis", "macron", "caron", "breve",
         "ring", "tilde", "circumflex", "cedilla", "dotaccent", "hungarumlaut", "ogonek", "uni0323",
         "uni02BE", "uni02BF"]
CODE = {name: 128 + i for i, name in enumerate(EXTRA)}
for c in range(33, 127):
    ch = chr(c)
    name = ASCII.get(ch, ch)
    if name in WIDTHS:
        CODE[name] = c
CODE["space"] = 32
ACCENTS = {"acute", "grave", "dieresis", "macron", "caron", "breve", "ring", "tilde", "circumflex", "cedilla",
           "dotaccent", "hungarumlaut", "ogonek", "uni0323"}


def font_object():
    widths = [WIDTHS.get(next((n for n, c in CODE.items() if c == code), ""), 0) for code in range(32, 256)]
    diffs = " ".join("%d /%s" % (CODE[n], n) for n in EXTRA)
    return ("<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /FirstChar 32 /LastChar 255 /Widths [%s]"
            " /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [%s] >> >>"
            % (" ".join(map(str, widths)), diffs)).encode()


def pdf_string(codes):
    out = bytearray(b"(")
    for c in codes:
        if c in b"()\\" or c < 32 or c > 126:
            out += b"\\%03o" % c
        else:
            out.append(c)
    return bytes(out + b")")


def parse(word):
    """A word in a TeX-like notation: letters, and {accent}letter pairs such as {acute}e or
    {caron}{dotlessi}. Returns a list of (accent or None, glyph name)."""
    out, i = [], 0
    while i < len(word):
        acc = None
        if word[i] == "{" and word[i + 1:word.index("}", i)] in ACCENTS:
            j = word.index("}", i)
            acc, i = word[i + 1:j], j + 1
        if word[i] == "{":
            j = word.index("}", i)
            name, i = word[i + 1:j], j + 1
        else:
            name, i = ASCII.get(word[i], word[i]), i + 1
        out.append((acc, name))
    return out


def tex_line(words, x, y, size=12, width=460):
    """One justified line as pdfTeX writes it: a TJ array, accents by kerns, word spaces as kerns."""
    parsed = [parse(w) for w in words]
    natural = sum(WIDTHS[n] for w in parsed for _, n in w)
    gap = (width * 1000 / size - natural) / max(1, len(words) - 1)
    gap = max(250, min(gap, 500))  # TeX stretches spaces to 2x at most
    arr = []
    run = []

    def flush():
        if run:
            arr.append(pdf_string(bytes(run)))
            run.clear()

    for k, w in enumerate(parsed):
        if k:
            flush()
            arr.append(b"%d" % -round(gap))
        for acc, name in w:
            if acc:
                wl, wa = WIDTHS[name], WIDTHS[acc]
                flush()
                arr.append(b"%d" % -round((wl - wa) / 2))  # over the letter's middle
                run.append(CODE[acc])
                flush()
                arr.append(b"%d" % round((wl + wa) / 2))  # back to the letter's start
            run.append(CODE[name])
    flush()
    return b"BT /F1 %d Tf %d %d Td [%s] TJ ET" % (size, x, y, b" ".join(arr))


def glyph_line(words, x, y, size=12, width=0, kern=None, track=0):
    """One line with every glyph placed by its own Tm, no space characters: justified to width
    when given (word gaps stretch), else gaps of a third of the font size; kern maps a pair of
    letters to an adjustment (thousandths), track adds to every letter's advance."""
    kern = kern or {}
    names = [[ASCII.get(ch, ch) for ch in w] for w in words]
    natural = sum(WIDTHS[n] + track for w in names for n in w)
    gap = 333
    if width:
        gap = (width * 1000 / size - natural) / max(1, len(words) - 1)
    out, pos = [b"BT /F1 %d Tf" % size], 0.0
    for k, w in enumerate(names):
        if k:
            pos += gap
        for i, n in enumerate(w):
            out.append(b"1 0 0 1 %.2f %d Tm %s Tj" % (x + pos * size / 1000, y, pdf_string(bytes([CODE[n]]))))
            pos += WIDTHS[n] + track
            if i + 1 < len(w):
                pos += kern.get(words[k][i:i + 2], 0)
    out.append(b"ET")
    return b"\n".join(out)


def stray_space_line(words, x, y, size=12):
    """One line as some converters write it (pdfcpu's TheGoProgrammingLanguageCh1.pdf): a TJ
    array whose word gaps are kerns with no space character, and with space characters inside
    words that a kern of their width takes back, so that they stand for nothing."""
    arr = []
    for k, w in enumerate(words):
        if k:
            arr.append(b"-300")
        names = [ASCII.get(ch, ch) for ch in w]
        for i, n in enumerate(names):
            arr.append(pdf_string(bytes([CODE[n]])))
            if i == len(names) // 2 and len(names) > 3:
                arr.append(pdf_string(b" "))
                arr.append(b"%d" % WIDTHS["space"])
    return b"BT /F1 %d Tf %d %d Td [%s] TJ ET" % (size, x, y, b" ".join(arr))


def scaled_line(words, x, y, size=12):
    """One line as troff's PDF output writes it (the Go book chapter): a font size of 1 scaled
    up by the text matrix, a TJ array with the word gaps as kerns of 0.15 to 0.19 of the
    font size, no space characters, and small kerns between some letters."""
    arr = []
    for k, w in enumerate(words):
        if k:
            arr.append(b"%d" % -(150 + 20 * (k % 3)))
        names = [ASCII.get(ch, ch) for ch in w]
        for i, n in enumerate(names):
            arr.append(pdf_string(bytes([CODE[n]])))
            if i % 3 == 1:
                arr.append(b"%d" % (12 - 9 * (i % 2)))
    return b"BT /F1 1 Tf -0.0001 Tc %d 0 0 %d %d %d Tm [%s] TJ ET" % (size, size, x, y, b" ".join(arr))


def mixed_line(words, x, y, size=12):
    """One TJ array a line whose word gaps are space characters and kerns by turns."""
    arr = []
    for k, w in enumerate(words):
        if k % 2:
            arr.append(b"-300")
        elif k:
            arr.append(pdf_string(b" "))
        arr.append(pdf_string(bytes(CODE[ASCII.get(ch, ch)] for ch in w)))
    return b"BT /F1 %d Tf %d %d Td [%s] TJ ET" % (size, x, y, b" ".join(arr))


def tracked_line(words, x, y, size=10):
    """One TJ array a line of letter-spaced text (Tc: 0.15 of the font size between letters),
    word gaps as kerns and no space characters."""
    arr = []
    for k, w in enumerate(words):
        if k:
            arr.append(b"-400")
        arr.append(pdf_string(bytes(CODE[ASCII.get(ch, ch)] for ch in w)))
    return b"BT /F1 %d Tf 1.5 Tc %d %d Td [%s] TJ ET" % (size, x, y, b" ".join(arr))


class PDF:
    def __init__(self):
        self.objs = []

    def add(self, body):
        self.objs.append(body)
        return len(self.objs)

    def write(self, name, pages):
        self.objs = []
        font = self.add(font_object())
        parent = self.add(b"")
        root = self.add(b"<< /Type /Catalog /Pages %d 0 R >>" % parent)
        kids = []
        for content in pages:
            s = self.add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
            kids.append(self.add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792]"
                                 b" /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>" % (parent, font, s)))
        self.objs[parent - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
            b" ".join(b"%d 0 R" % k for k in kids), len(kids))
        out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        offs = []
        for i, o in enumerate(self.objs, 1):
            offs.append(len(out))
            out += b"%d 0 obj\n" % i + o + b"\nendobj\n"
        x = len(out)
        out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(self.objs) + 1)
        for o in offs:
            out += b"%010d 00000 n \n" % o
        out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(self.objs) + 1, root, x)
        with open(name, "wb") as f:
            f.write(bytes(out))


def page(lines, setter, **kw):
    return b"\n".join(setter(l.split(), 72, 700 - 20 * i, **kw) for i, l in enumerate(lines))


TEX = [
    [  # French
        "L'{acute}el{grave}eve na{dieresis}{dotlessi}f a visit{acute}e le ch{circumflex}ateau o{grave}u",
        "No{dieresis}el est f{circumflex}et{acute}e chaque ann{acute}ee par le gar{cedilla}con.",
        "La t{circumflex}ache d{acute}elicate se r{grave}egle {grave}a c{circumflex}ot{acute}e de l'h{circumflex}opital.",
        "{acute}Etienne pr{acute}ef{grave}ere le caf{acute}e cr{grave}eme du Fran{cedilla}cais.",
    ],
    [  # German
        "M{dieresis}uller f{dieresis}ahrt {dieresis}uber die Br{dieresis}ucke nach K{dieresis}oln.",
        "Die Gr{dieresis}o{germandbls}e der B{dieresis}aume ist sch{dieresis}on und {dieresis}uberall gleich.",
        "{dieresis}Ubung macht den M{dieresis}uhlenbauer zum gl{dieresis}ucklichen Meister.",
    ],
    [  # Czech
        "P{caron}r{acute}{dotlessi}li{caron}s {caron}zlu{caron}tou{caron}ck{acute}y k{ring}u{caron}n {acute}up{caron}el {caron}d{acute}abelsk{acute}e {acute}ody.",
        "{caron}C{acute}ape{caron}cek {caron}r{acute}{dotlessi}k{acute}a, {caron}ze v {caron}Cesk{acute}ych Bud{caron}ejovic{acute}{dotlessi}ch pr{caron}s{acute}{dotlessi}.",
        "T{caron}re{caron}sn{caron}e kv{caron}et{ring}u na zahrad{caron}e st{acute}al{acute}y.",
    ],
    [  # transliterated Arabic
        "Mu{uni0323}hammad ibn M{macron}us{macron}a al-Khw{macron}arizm{macron}{dotlessi} wrote in Ba{dotaccent}gd{macron}ad.",
        "Al-Q{macron}ahira, Dima{caron}sq and {uni0323}Halab were cities of the {uni0323}had{macron}{dotlessi}th scholars.",
        "Ibn Ba{uni0323}t{uni0323}t{macron}u{uni0323}ta wrote the Ri{uni0323}hla about al-Ma{dotaccent}grib.",
    ],
    [  # other accents
        "S{tilde}ao Paulo, se{tilde}nor, Br{breve}aila, Erd{hungarumlaut}os, m{ogonek}aka, {Lslash}{acute}od{acute}z.",
    ],
]

GLYPHS = [
    "This chapter is a tour of the basic components of the engine and its service schedule.",
    "We hope to provide enough information and examples to get you off the ground quickly.",
    "To check the oil, park on level ground, wait five minutes and pull the dipstick out.",
    "AVOID Water in the fuel: drain the filter every 20000 kilometres or each year.",
]
KERN = {"To": -80, "AV": -135, "VO": -40, "Wa": -80, "wa": -25, "ye": -15, "ev": -25, "rt": 0}

w = PDF()
w.write("gen-tex-accents.pdf", [page(lines, tex_line) for lines in TEX])
w.write("gen-glyph-by-glyph.pdf", [
    page(GLYPHS, glyph_line, width=468, kern=KERN),  # justified: word gaps stretched
    page(GLYPHS, glyph_line, kern=KERN, track=-12),  # tight: a third of the font size, letters closer
    page(GLYPHS, stray_space_line),
    page(GLYPHS, scaled_line),
    page(GLYPHS, mixed_line),
    page([h for l in GLYPHS for h in (" ".join(l.split()[:len(l.split()) // 2]), " ".join(l.split()[len(l.split()) // 2:]))],
         tracked_line),
])
# pdftotext 22.12 puts some accents on the wrong letter (a dot below on the letter before, the
# ogonek apart) and keeps dotless i's: the expected text is written from the source instead.
MARKS = {"acute": "\u0301", "grave": "\u0300", "dieresis": "\u0308", "macron": "\u0304", "caron": "\u030c",
         "breve": "\u0306", "ring": "\u030a", "tilde": "\u0303", "circumflex": "\u0302", "cedilla": "\u0327",
         "dotaccent": "\u0307", "hungarumlaut": "\u030b", "ogonek": "\u0328", "uni0323": "\u0323"}
CHARS = {"germandbls": "ß", "Lslash": "Ł", "dotlessi": "ı", "uni02BE": "ʾ", "uni02BF": "ʿ"}
CHARS.update({v: k for k, v in ASCII.items()})


def spell(word):
    out = ""
    for acc, name in parse(word):
        ch = CHARS.get(name, name)
        if acc:
            if ch == "ı" and acc not in ("cedilla", "ogonek", "uni0323"):
                ch = "i"
            ch = unicodedata.normalize("NFC", ch + MARKS[acc])
        out += ch
    return out


with open("gen-tex-accents.expected.txt", "w", encoding="utf-8") as f:
    f.write("".join("\n".join(" ".join(spell(w) for w in line.split()) for line in lines) + "\n\f" for lines in TEX))
for name in ["gen-tex-accents", "gen-glyph-by-glyph"]:
    subprocess.run(["pdftotext", "-q", "-enc", "UTF-8", name + ".pdf", name + ".pdftotext.txt"], check=True)
