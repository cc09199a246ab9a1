// makePdf writes a small valid PDF: one page per entry of pages, each a few
// lines of Helvetica text, with a correct cross-reference table; title, when
// given, is the document information dictionary's Title; pageLabels, when
// given, is the catalog's /PageLabels number tree as PDF source (the printed
// page numbers), e.g. '<< /Nums [0 << /S /r >> 2 << /S /D /P (A-) >>] >>'.
export function makePdf(pages, { title, pageLabels } = {}) {
  const objects = [];
  const add = (body) => {
    objects.push(body);
    return objects.length;
  };
  const catalog = add(null);
  const pagesObj = add(null);
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const kids = [];
  for (const lines of pages) {
    const text = lines
      .map((l, i) => `BT /F1 12 Tf 72 ${740 - i * 18} Td (${l.replace(/[\\()]/g, (c) => '\\' + c)}) Tj ET`)
      .join('\n');
    const content = add(`<< /Length ${Buffer.byteLength(text)} >>\nstream\n${text}\nendstream`);
    kids.push(add(`<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`));
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObj} 0 R${pageLabels ? ` /PageLabels ${pageLabels}` : ''} >>`;
  const info = title === undefined ? 0 : add(`<< /Title (${title.replace(/[\\()]/g, (c) => '\\' + c)}) >>`);
  objects[pagesObj - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  let out = '%PDF-1.4\n';
  const offsets = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${info ? ` /Info ${info} 0 R` : ''} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
