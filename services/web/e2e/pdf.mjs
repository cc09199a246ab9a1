import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';

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

// makeScannedPdf writes an image-only PDF (a scanned manual: no text layer):
// each page of textPdf rendered by pdftoppm as an 8-bit gray image at dpi and
// drawn over the whole page, deflated. Needs poppler-utils (.ci/run installs it).
export function makeScannedPdf(textPdf, { dpi = 150 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'carhub-scan-'));
  try {
    writeFileSync(join(dir, 'text.pdf'), textPdf);
    execFileSync('pdftoppm', ['-gray', '-r', String(dpi), join(dir, 'text.pdf'), join(dir, 'page')]);
    const images = readdirSync(dir).filter((f) => f.endsWith('.pgm')).sort().map((f) => readPgm(readFileSync(join(dir, f))));
    const objects = [];
    const add = (body) => {
      objects.push(body);
      return objects.length;
    };
    const catalog = add(null);
    const pagesObj = add(null);
    const kids = [];
    for (const img of images) {
      const [w, h] = [img.width * 72 / dpi, img.height * 72 / dpi].map((v) => v.toFixed(2));
      const data = deflateSync(img.pixels);
      const image = add(Buffer.concat([
        Buffer.from(`<< /Type /XObject /Subtype /Image /Width ${img.width} /Height ${img.height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${data.length} >>\nstream\n`, 'latin1'),
        data, Buffer.from('\nendstream', 'latin1')]));
      const draw = `q ${w} 0 0 ${h} 0 0 cm /Im0 Do Q`;
      const content = add(`<< /Length ${draw.length} >>\nstream\n${draw}\nendstream`);
      kids.push(add(`<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /XObject << /Im0 ${image} 0 R >> >> /Contents ${content} 0 R >>`));
    }
    objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObj} 0 R >>`;
    objects[pagesObj - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
    const parts = [Buffer.from('%PDF-1.4\n', 'latin1')];
    let size = parts[0].length;
    const offsets = [];
    objects.forEach((body, i) => {
      offsets.push(size);
      const bytes = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'), Buffer.from('\nendobj\n', 'latin1')]);
      parts.push(bytes);
      size += bytes.length;
    });
    let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
    for (const o of offsets) tail += `${String(o).padStart(10, '0')} 00000 n \n`;
    tail += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${size}\n%%EOF\n`;
    parts.push(Buffer.from(tail, 'latin1'));
    return Buffer.concat(parts);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** readPgm reads a binary PGM (P5, maxval 255): its size and rows of gray pixels. */
function readPgm(buf) {
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(buf.subarray(0, 64).toString('latin1'));
  if (!header) throw new Error('pdftoppm did not write an 8-bit PGM');
  const width = Number(header[1]);
  const height = Number(header[2]);
  return { width, height, pixels: buf.subarray(header[0].length, header[0].length + width * height) };
}
