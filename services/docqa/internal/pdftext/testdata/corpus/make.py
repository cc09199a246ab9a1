#!/usr/bin/env python3
"""Writes the generated files of this corpus (gen-*.pdf): one small PDF for each way in which real
files defeated the old home-made text interpreter, and their pdftotext references.

Run from this folder: python3 make.py
Needs (generation time only, never at test time): Debian's poppler-utils (pdftotext, the
reference) and qpdf (encryption).
"""
import base64
import os
import subprocess
import zlib


class PDF:
    """A minimal PDF writer: objects numbered in order, a classic xref table."""

    def __init__(self):
        self.objs = []

    def add(self, body):
        self.objs.append(body)
        return len(self.objs)

    def stream(self, data, extra=b""):
        return self.add(b"<< /Length %d %s>>\nstream\n" % (len(data), extra) + data + b"\nendstream")

    def page_doc(self, contents, fonts, extra_objs=None):
        """A one-page document per element of contents (bytes or (bytes, filter dict entries))."""
        pages = self.add(b"")
        self.root = self.add(b"<< /Type /Catalog /Pages %d 0 R >>" % pages)
        res = b"<< /Font << " + b" ".join(b"/%s %d 0 R" % (k.encode(), v) for k, v in fonts.items()) + b" >> >>"
        kids = []
        for c in contents:
            data, extra = c if isinstance(c, tuple) else (c, b"")
            s = self.stream(data, extra)
            kids.append(self.add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources %s /Contents %d 0 R >>" % (pages, res, s)))
        self.objs[pages - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
        return self.root

    def bytes(self, startxref_delta=0, tail=b""):
        out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        offs = []
        for i, o in enumerate(self.objs, 1):
            offs.append(len(out))
            out += b"%d 0 obj\n" % i + o + b"\nendobj\n"
        x = len(out)
        out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(self.objs) + 1)
        for o in offs:
            out += b"%010d 00000 n \n" % o
        out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(self.objs) + 1, self.root, x + startxref_delta)
        return bytes(out) + tail


def helvetica(pdf, encoding=b"/WinAnsiEncoding"):
    return pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding %s >>" % encoding)


def text_lines(lines, size=12, x=72, y=720, font=b"F1"):
    out = [b"BT /%s %d Tf %d TL %d %d Td" % (font, size, size + 4, x, y)]
    for line in lines:
        out.append(b"(%s) Tj T*" % line)
    out.append(b"ET")
    return b"\n".join(out)


MANUAL = [
    b"Check the tyre pressure every month and before a long journey.",
    b"The recommended pressure for the front tyres is 2.4 bar when cold.",
    b"Replace the cabin air filter every 15000 kilometres or once a year.",
    b"Use only coolant approved by the manufacturer; never mix two types.",
]


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


# --- stream filters the old interpreter could not decode --------------------------------------

def lzw_encode(data):
    """LZW as PDF's LZWDecode reads it (EarlyChange 1, 9 to 12 bit codes, MSB first)."""
    table = {bytes([i]): i for i in range(256)}
    next_code, width = 258, 9
    bits, nbits, out = 0, 0, bytearray()

    def emit(code):
        nonlocal bits, nbits
        bits = (bits << width) | code
        nbits += width
        while nbits >= 8:
            nbits -= 8
            out.append((bits >> nbits) & 0xFF)

    emit(256)  # clear table
    w = b""
    for b in data:
        wc = w + bytes([b])
        if wc in table:
            w = wc
            continue
        emit(table[w])
        table[wc] = next_code
        next_code += 1
        if next_code + 1 > (1 << width) and width < 12:  # early change
            width += 1
        if next_code >= 4094:
            emit(256)
            table = {bytes([i]): i for i in range(256)}
            next_code, width = 258, 9
        w = bytes([b])
    if w:
        emit(table[w])
    emit(257)  # end of data
    if nbits:
        out.append((bits << (8 - nbits)) & 0xFF)
    return bytes(out)


def runlength_encode(data):
    out = bytearray()
    i = 0
    while i < len(data):
        j = i
        while j < len(data) and j - i < 128 and data[j] == data[i]:
            j += 1
        if j - i >= 2:
            out += bytes([257 - (j - i), data[i]])
            i = j
            continue
        j = i
        while j < len(data) and j - i < 128 and not (j + 1 < len(data) and data[j + 1] == data[j]):
            j += 1
        j = max(j, i + 1)
        out += bytes([j - i - 1]) + data[i:j]
        i = j
    return bytes(out + b"\x80")


p = PDF()
f1 = helvetica(p)
page1 = text_lines([b"LZW: " + MANUAL[0], MANUAL[1]])
page2 = text_lines([b"ASCIIHex: " + MANUAL[2]])
page3 = text_lines([b"RunLength: " + MANUAL[3], b"Engine oil: 5W-30, capacity 4.2 litres......"])
page4 = text_lines([b"Flate over ASCII85 is the last one: " + MANUAL[0]])
a85 = base64.a85encode(zlib.compress(page4)) + b"~>"
p.page_doc([
    (lzw_encode(page1), b"/Filter /LZWDecode "),
    (page2.hex().encode() + b">", b"/Filter /ASCIIHexDecode "),
    (runlength_encode(page3), b"/Filter /RunLengthDecode "),
    (a85, b"/Filter [/ASCII85Decode /FlateDecode] "),
], {"F1": f1})
write("gen-filters.pdf", p.bytes())

# --- a damaged file tail: bytes after %%EOF and a wrong startxref (xref repair) ------------------
p = PDF()
f1 = helvetica(p)
p.page_doc([text_lines([b"This file has a wrong startxref offset and bytes after its end.", MANUAL[1]])], {"F1": f1})
write("gen-broken-xref.pdf", p.bytes(startxref_delta=-37, tail=b"\r\n<html>garbage appended by a mail gateway</html>\n" * 3))

# --- a simple font with /BaseEncoding and /Differences: quotes, dashes, euro -------------------
p = PDF()
enc = p.add(b"<< /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [ 164 /Euro 166 /endash ] >>")
f1 = helvetica(p, b"%d 0 R" % enc)
# WinAnsi: 0x93/0x94 curly double quotes, 0x91/0x92 single, 0x97 em dash, 0x80 euro;
# the Differences put the euro at 164 and an en dash at 166.
content = text_lines([
    b"The \x93service interval\x94 is 15000 km \x97 or one year.",
    b"It\x92s \x91cheap\x92: the inspection costs 89 \x80, the oil 35 \xa4.",
    b"Pages 12\xa614 describe the brakes.",
])
p.page_doc([content], {"F1": f1})
write("gen-base-encoding.pdf", p.bytes())

# --- rotated text set word by word (no space characters), and fake bold -------------------------
p = PDF()
f1 = helvetica(p)
rotated = b"BT /F1 14 Tf 0 1 -1 0 100 200 Tm (Rotated) Tj 10 0 Td (heading) Tj 12 0 Td (text) Tj ET\n"
# Words placed one by one along a rotated baseline, each with its own Tm and no space characters.
x = 0
for w in [b"Tyre", b"pressure", b"warning", b"light"]:
    rotated += b"BT /F1 12 Tf 0 1 -1 0 300 %d Tm (%s) Tj ET\n" % (150 + x, w)
    x += len(w) * 8 + 6
rotated += text_lines([b"Upright text after the rotated heading."], y=700, x=150)
fake_bold = b""
for dx in (0, 0.4, 0.8):
    fake_bold += b"BT /F1 16 Tf %.1f 700 Td (Warning: hot surface) Tj ET\n" % (72 + dx)
fake_bold += text_lines([b"Do not touch the exhaust after driving."], y=670)
p.page_doc([rotated, fake_bold], {"F1": f1})
write("gen-rotated-fakebold.pdf", p.bytes())

# --- /ActualText: what a span means, whatever its glyphs are -----------------------------------
p = PDF()
f1 = helvetica(p)
actual = (b"BT /F1 12 Tf 72 700 Td (The brake fluid is ) Tj "
          b"/Span << /ActualText (DOT 4) >> BDC (D0T-4) Tj EMC "
          b"( and must be changed every two years.) Tj ET")
p.page_doc([actual], {"F1": f1})
write("gen-actualtext.pdf", p.bytes())

# --- a font descriptor quirk a validator refuses: /StemV [80] -----------------------------------
p = PDF()
fd = p.add(b"<< /Type /FontDescriptor /FontName /Arial /Flags 32 /FontBBox [-665 -325 2000 1040]"
           b" /ItalicAngle 0 /Ascent 905 /Descent -212 /CapHeight 716 /StemV [80] >>")
widths = b" ".join(b"556" for _ in range(32, 127))
f1 = p.add(b"<< /Type /Font /Subtype /TrueType /BaseFont /Arial /FirstChar 32 /LastChar 126 /Widths [%s]"
           b" /Encoding /WinAnsiEncoding /FontDescriptor %d 0 R >>" % (widths, fd))
p.page_doc([text_lines([b"A font descriptor with StemV written as an array.", MANUAL[2]])], {"F1": f1})
write("gen-stemv-array.pdf", p.bytes())

# --- CJK in predefined CMaps without ToUnicode: Adobe-GB1 in GBK, Adobe-Japan1 in Shift-JIS ------
zh = "冬季请使用防冻型玻璃清洗液，并检查雨刮片是否老化。"
ja = "タイヤの空気圧は月に一度点検してください。"
p = PDF()
fdz = p.add(b"<< /Type /FontDescriptor /FontName /STSong-Light /Flags 6 /FontBBox [-25 -254 1000 880]"
            b" /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 880 /StemV 93 >>")
cz = p.add(b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light"
           b" /CIDSystemInfo << /Registry (Adobe) /Ordering (GB1) /Supplement 4 >> /FontDescriptor %d 0 R /DW 1000 >>" % fdz)
fz = p.add(b"<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /GBK-EUC-H /DescendantFonts [%d 0 R] >>" % cz)
fdj = p.add(b"<< /Type /FontDescriptor /FontName /KozMinPro-Regular /Flags 6 /FontBBox [-195 -272 1110 1075]"
            b" /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 740 /StemV 86 >>")
cj = p.add(b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /KozMinPro-Regular"
           b" /CIDSystemInfo << /Registry (Adobe) /Ordering (Japan1) /Supplement 4 >> /FontDescriptor %d 0 R /DW 1000 >>" % fdj)
fj = p.add(b"<< /Type /Font /Subtype /Type0 /BaseFont /KozMinPro-Regular /Encoding /90ms-RKSJ-H /DescendantFonts [%d 0 R] >>" % cj)
p.page_doc([
    b"BT /F1 14 Tf 72 700 Td <" + zh.encode("gbk").hex().encode() + b"> Tj ET",
    b"BT /F2 14 Tf 72 700 Td <" + ja.encode("shift_jis").hex().encode() + b"> Tj ET",
], {"F1": fz, "F2": fj})
write("zh-ja-predefined-cmaps.pdf", p.bytes())

# --- encryption: an owner password only (opens without one, copying restricted) -----------------
p = PDF()
f1 = helvetica(p)
p.page_doc([text_lines([b"This manual opens without a password.", b"Its owner password forbids copying.", MANUAL[1]])], {"F1": f1})
write("gen-plain.tmp.pdf", p.bytes())
subprocess.run(["qpdf", "--encrypt", "", "owner-secret", "256", "--extract=n", "--modify=none", "--",
                "gen-plain.tmp.pdf", "gen-owner-password-aes256.pdf"], check=True)
subprocess.run(["qpdf", "--allow-weak-crypto", "--encrypt", "", "owner-secret", "128", "--use-aes=n", "--extract=n", "--",
                "gen-plain.tmp.pdf", "gen-owner-password-rc4.pdf"], check=True)
subprocess.run(["qpdf", "--encrypt", "user-secret", "owner-secret", "256", "--",
                "gen-plain.tmp.pdf", "../bad/user-password-aes256.pdf"], check=True)
os.remove("gen-plain.tmp.pdf")

# --- references -----------------------------------------------------------------------------------
for name in ["gen-filters", "gen-broken-xref", "gen-base-encoding", "gen-rotated-fakebold", "gen-actualtext",
             "gen-stemv-array", "zh-ja-predefined-cmaps",
             "gen-owner-password-aes256", "gen-owner-password-rc4"]:
    subprocess.run(["pdftotext", "-q", "-enc", "UTF-8", name + ".pdf", name + ".pdftotext.txt"], check=True)
