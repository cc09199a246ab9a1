#!/usr/bin/env python3
"""Writes the hand-made hostile PDFs of this folder (valid syntax, hostile structure).

pdftotext 22.12 reads both: "Self painting form / in form" and "cyclic tree" (with
"Loop in Pages tree" errors). Run from this folder: python3 make.py
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
