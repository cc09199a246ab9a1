#!/usr/bin/env python3
"""Writes the PDFs of this folder: document titles and outlines (bookmarks), read by TestOutline*.

outline.pdf      six pages, an information dictionary Title in UTF-16 with whitespace runs and a
                 control character, and a nested outline whose entries point at their pages in
                 every way producers write: /Dest arrays, /Dest names (the catalog's /Dests),
                 GoTo actions with arrays and with named destinations (the /Names tree); plus
                 entries that must be skipped (a URI action, a page number past the end, a blank
                 title), an adjacent duplicate, ten entries on one page, a 250-character title
                 and a last entry pointing back to page 1.
no-outline.pdf   two pages, an information dictionary whose Title is blank, no outline.
outline-cycle.pdf  two pages whose outline loops both ways: two entries are each other's next
                 sibling, and one of them has its parent as its child.
outline-shared-title.pdf  one page, two entries each other's next sibling that share one title
                 object of 1040 bytes: the walk stops at its budget of title bytes read (the same
                 file with an 8 MB title kept an instance busy past a 20 s deadline without it).

Python only, no other tool. Run from this folder: python3 make.py
"""


class PDF:
    """A minimal PDF writer: objects numbered in order, a classic xref table."""

    def __init__(self):
        self.objs = []

    def add(self, body=b""):
        self.objs.append(body)
        return len(self.objs)

    def set(self, num, body):
        self.objs[num - 1] = body

    def bytes(self, root, info=None):
        out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        offs = []
        for i, o in enumerate(self.objs, 1):
            offs.append(len(out))
            out += b"%d 0 obj\n" % i + o + b"\nendobj\n"
        x = len(out)
        out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(self.objs) + 1)
        for o in offs:
            out += b"%010d 00000 n \n" % o
        trailer = b"/Size %d /Root %d 0 R" % (len(self.objs) + 1, root)
        if info:
            trailer += b" /Info %d 0 R" % info
        out += b"trailer\n<< %s >>\nstartxref\n%d\n%%%%EOF\n" % (trailer, x)
        return bytes(out)


def text(s):
    """A PDF text string: UTF-16BE with its byte order mark, as producers write non-Latin titles."""
    return b"<FEFF" + s.encode("utf-16-be").hex().upper().encode() + b">"


def pages_doc(pdf, n):
    """n pages of one line each; returns (pages tree, [page objects])."""
    font = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    tree = pdf.add()
    kids = []
    for i in range(1, n + 1):
        line = b"BT /F1 12 Tf 72 720 Td (Text of page %d.) Tj ET" % i
        content = pdf.add(b"<< /Length %d >>\nstream\n" % len(line) + line + b"\nendstream")
        kids.append(pdf.add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792]"
                            b" /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>" % (tree, font, content)))
    pdf.set(tree, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), n))
    return tree, kids


def outline(pdf, entries, parent):
    """Writes entries [(title bytes, target bytes, children)] under parent; returns their numbers."""
    nums = [pdf.add() for _ in entries]
    for i, (title, target, children) in enumerate(entries):
        d = b"/Title %s /Parent %d 0 R %s" % (title, parent, target)
        if i > 0:
            d += b" /Prev %d 0 R" % nums[i - 1]
        if i + 1 < len(nums):
            d += b" /Next %d 0 R" % nums[i + 1]
        if children:
            kids = outline(pdf, children, nums[i])
            d += b" /First %d 0 R /Last %d 0 R /Count %d" % (kids[0], kids[-1], len(kids))
        pdf.set(nums[i], b"<< " + d + b" >>")
    return nums


def write_outline():
    pdf = PDF()
    tree, p = pages_doc(pdf, 6)

    def dest(page, fit=b"/Fit"):
        return b"/Dest [%d 0 R %s]" % (p[page - 1], fit)

    def goto(page):
        return b"/A << /S /GoTo /D [%d 0 R /FitH 792] >>" % p[page - 1]

    steps = [(b"(Step %d)" % i, dest(5) if i % 2 else goto(5), []) for i in range(1, 11)]
    entries = [
        (b"(Introduction)", dest(1, b"/XYZ 0 792 0"), [
            (b"(Safety)", goto(1), []),
            (b"(Symbols)", dest(2), []),
        ]),
        (b"(Maintenance)", goto(3), [
            (b"(Engine oil)", b"/Dest /oil", [  # a name of the catalog's /Dests (PDF 1.1)
                (text("Öl-Spezifikation"), b"/A << /S /GoTo /D (grade) >>", []),  # the /Names tree
            ]),
            (b"(Tyres)", dest(4), [
                (b"(  Tyres\t)", dest(4), []),  # the same title once cleaned: dropped
            ] + steps),
        ]),
        (b"(Website)", b"/A << /S /URI /URI (https://example.com/manual) >>", []),
        (b"(Missing page)", b"/Dest [99 /Fit]", []),
        (b"(   )", dest(6), []),
        (b"(Index)", goto(6), []),
        (text("Ü" * 250), dest(6), []),
        (b"(Contents)", dest(1), []),  # back to page 1: in force from page 1 on
    ]
    root_outline = pdf.add()
    top = outline(pdf, entries, root_outline)
    pdf.set(root_outline, b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (top[0], top[-1], len(top)))
    names = pdf.add(b"<< /Names [(grade) [%d 0 R /Fit]] >>" % p[3])
    root = pdf.add(b"<< /Type /Catalog /Pages %d 0 R /Outlines %d 0 R /PageMode /UseOutlines"
                   b" /Dests << /oil [%d 0 R /Fit] >> /Names << /Dests %d 0 R >> >>" % (tree, root_outline, p[2], names))
    info = pdf.add(b"<< /Title %s /Producer (make.py) >>" % text("  Service Manual\r\n\t\u2014 Model\u0001 X  "))
    return pdf.bytes(root, info)


def write_no_outline():
    pdf = PDF()
    tree, _ = pages_doc(pdf, 2)
    root = pdf.add(b"<< /Type /Catalog /Pages %d 0 R >>" % tree)
    info = pdf.add(b"<< /Title ( \t ) /Author (make.py) >>")
    return pdf.bytes(root, info)


def write_cycle():
    pdf = PDF()
    tree, p = pages_doc(pdf, 2)
    root_outline, a, b, c = pdf.add(), pdf.add(), pdf.add(), pdf.add()
    pdf.set(root_outline, b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count 1 >>" % (a, a))
    pdf.set(a, b"<< /Title (Loop A) /Parent %d 0 R /Dest [%d 0 R /Fit] /First %d 0 R /Last %d 0 R >>" % (root_outline, p[0], b, c))
    # B and C are each other's next sibling, and B's child is its parent A.
    pdf.set(b, b"<< /Title (Loop B) /Parent %d 0 R /A << /S /GoTo /D [%d 0 R /Fit] >> /Next %d 0 R /First %d 0 R /Last %d 0 R >>"
            % (a, p[1], c, a, a))
    pdf.set(c, b"<< /Title (Loop C) /Parent %d 0 R /Dest [%d 0 R /Fit] /Next %d 0 R /Prev %d 0 R >>" % (a, p[1], b, b))
    root = pdf.add(b"<< /Type /Catalog /Pages %d 0 R /Outlines %d 0 R >>" % (tree, root_outline))
    return pdf.bytes(root)


def write_shared_title():
    pdf = PDF()
    tree, p = pages_doc(pdf, 1)
    root_outline, a, b, title = pdf.add(), pdf.add(), pdf.add(), pdf.add()
    pdf.set(title, b"(" + b"Shared title " * 80 + b")")  # 1040 bytes
    pdf.set(root_outline, b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count 2 >>" % (a, b))
    # A and B are each other's next sibling and share one title object.
    for this, other in ((a, b), (b, a)):
        pdf.set(this, b"<< /Title %d 0 R /Parent %d 0 R /Dest [%d 0 R /Fit] /Next %d 0 R >>" % (title, root_outline, p[0], other))
    root = pdf.add(b"<< /Type /Catalog /Pages %d 0 R /Outlines %d 0 R >>" % (tree, root_outline))
    return pdf.bytes(root)


for name, data in [("outline.pdf", write_outline()), ("no-outline.pdf", write_no_outline()),
                   ("outline-cycle.pdf", write_cycle()), ("outline-shared-title.pdf", write_shared_title())]:
    with open(name, "wb") as f:
        f.write(data)
