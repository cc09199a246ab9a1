#!/usr/bin/env python3
"""Writes the hand-made PDFs of this folder: two with hostile structure, one old-style CJK font.

pdftotext 22.12 reads all three: "Self painting form / in form", "冬季要使用防冻型玻璃水。" and
"cyclic tree" (with "Loop in Pages tree" errors). Run from this folder: python3 make.py
"""


def build(objs, name):
    out = bytearray(b"%PDF-1.4\n")
    offs = []
    for i, o in enumerate(objs, 1):
        offs.append(len(out))
        out += b"%d 0 obj\n" % i + o + b"\nendobj\n"
    x = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for o in offs:
        out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, x)
    open(name, "wb").write(out)


font = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"

# A form XObject that paints itself twice: 2^depth paintings without a guard.
page = b"BT /F1 12 Tf 72 700 Td (Self painting form) Tj ET /X1 Do"
form = b"/X1 Do /X1 Do BT /F1 12 Tf 72 650 Td (in form) Tj ET"
build([
    b"<< /Type /Catalog /Pages 2 0 R >>",
    b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources 6 0 R /Contents 4 0 R >>",
    b"<< /Length %d >>\nstream\n" % len(page) + page + b"\nendstream",
    font,
    b"<< /Font << /F1 5 0 R >> /XObject << /X1 7 0 R >> >>",
    b"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources 6 0 R /Length %d >>\nstream\n" % len(form)
    + form + b"\nendstream",
], "self-painting-form.pdf")

# A page tree whose Kids name their own node twice.
page2 = b"BT /F1 12 Tf 72 700 Td (cyclic tree) Tj ET"
build([
    b"<< /Type /Catalog /Pages 2 0 R >>",
    b"<< /Type /Pages /Kids [2 0 R 2 0 R 3 0 R] /Count 1 >>",
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    b"<< /Length %d >>\nstream\n" % len(page2) + page2 + b"\nendstream",
    font,
], "cyclic-page-tree.pdf")

# Chinese text in a Type0 font with the predefined UniGB-UCS2-H CMap and no ToUnicode map
# (non-embedded STSong-Light, as older Chinese PDFs do): the codes are the UTF-16 text.
text = "冬季要使用防冻型玻璃水。"
content = b"BT /F1 14 Tf 72 700 Td <" + text.encode("utf-16-be").hex().upper().encode() + b"> Tj ET"
build([
    b"<< /Type /Catalog /Pages 2 0 R >>",
    b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
    b"<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /UniGB-UCS2-H /DescendantFonts [6 0 R] >>",
    b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light"
    b" /CIDSystemInfo << /Registry (Adobe) /Ordering (GB1) /Supplement 4 >> /FontDescriptor 7 0 R /DW 1000 >>",
    b"<< /Type /FontDescriptor /FontName /STSong-Light /Flags 6 /FontBBox [-25 -254 1000 880]"
    b" /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 880 /StemV 93 >>",
], "zh-ucs2-stsong.pdf")
