#!/usr/bin/env python3
"""Writes ja-ruby.pdf: Japanese with ruby (furigana), set as TeX's ruby packages set it: each ruby
run drawn in the content stream right after (or right before) its base characters, in a font of half
the size, raised above them; and its pdftotext reference.

The font is KozMinPro-Regular, not embedded, in the predefined UniJIS-UCS2-H CMap (Adobe-Japan1),
every glyph 1000 units wide (/DW 1000): text is placed by code, the width of each run known. Every
run is two characters or more: PDFium drops a text object of a single character in a non-embedded
CJK font (testdata/README.md).

Run from this folder: python3 make_ruby.py (Python 3 and Debian's poppler-utils, at generation
time only).
"""
import subprocess

SIZE, RUBY = 12, 6  # base and ruby font sizes
LEAD = 26           # line pitch: room for the ruby above each line

# Lines of (base, ruby) pairs: ruby "" is plain text. "<" marks a ruby drawn before its base.
PAGES = [
    [
        [("車両", "しゃりょう"), ("の日常", ""), ("点検", "てんけん"), ("について", "")],
        [("毎日の", ""), ("点検", "てんけん"), ("では、タイヤの", ""), ("空気圧", "くうきあつ"), ("とエンジン", ""), ("油量", "ゆりょう"), ("を見て", "")],
        [("確認", "かくにん"), ("してください。", ""), ("冬季", "<とうき"), ("には", ""), ("暖機", "<だんき"), ("運転", "<うんてん"), ("が長くなり、", "")],
        [("燃費", "ねんぴ"), ("が下がる", ""), ("傾向", "けいこう"), ("があります。", "")],
        [("ブレーキパッドの", ""), ("残量", "ざんりょう"), ("が三ミリ", ""), ("以下", "いか"), ("になったら", ""), ("交換", "こうかん"), ("してください。", "")],
    ],
]


def hexs(s):
    return s.encode("utf-16-be").hex().upper().encode()


def line_ops(pairs, x, y):
    ops = []
    for base, ruby in pairs:
        w = SIZE * len(base)
        base_op = b"/F1 %d Tf 1 0 0 1 %.2f %.2f Tm <%s> Tj" % (SIZE, x, y, hexs(base))
        if ruby:
            before = ruby.startswith("<")
            ruby = ruby.lstrip("<")
            rw = RUBY * len(ruby)
            rx = x + (w - rw) / 2
            ruby_op = b"/F1 %d Tf 1 0 0 1 %.2f %.2f Tm <%s> Tj" % (RUBY, rx, y + SIZE, hexs(ruby))
            ops += [ruby_op, base_op] if before else [base_op, ruby_op]
        else:
            ops.append(base_op)
        x += w
    return ops


class PDF:
    def __init__(self):
        self.objs = []

    def add(self, body):
        self.objs.append(body)
        return len(self.objs)

    def bytes(self, root):
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
        return bytes(out)


p = PDF()
fd = p.add(b"<< /Type /FontDescriptor /FontName /KozMinPro-Regular /Flags 6 /FontBBox [-195 -272 1110 1075]"
           b" /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 740 /StemV 86 >>")
cid = p.add(b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /KozMinPro-Regular"
            b" /CIDSystemInfo << /Registry (Adobe) /Ordering (Japan1) /Supplement 4 >> /FontDescriptor %d 0 R /DW 1000 >>" % fd)
font = p.add(b"<< /Type /Font /Subtype /Type0 /BaseFont /KozMinPro-Regular /Encoding /UniJIS-UCS2-H /DescendantFonts [%d 0 R] >>" % cid)
pages = p.add(b"")
root = p.add(b"<< /Type /Catalog /Pages %d 0 R >>" % pages)
kids = []
for lines in PAGES:
    ops = [b"BT"]
    y = 720
    for pairs in lines:
        ops += line_ops(pairs, 72, y)
        y -= LEAD
    ops.append(b"ET")
    data = b"\n".join(ops)
    s = p.add(b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream")
    kids.append(p.add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>" % (pages, font, s)))
p.objs[pages - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
with open("ja-ruby.pdf", "wb") as f:
    f.write(p.bytes(root))
subprocess.run(["pdftotext", "-q", "-enc", "UTF-8", "ja-ruby.pdf", "ja-ruby.pdftotext.txt"], check=True)
