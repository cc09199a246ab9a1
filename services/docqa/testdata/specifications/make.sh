#!/bin/sh
# Renders the manuals of this directory from their .html with Chromium and
# fonts-noto-cjk (Debian), as internal/pdftext/testdata/corpus's are.
set -eu
cd "$(dirname "$0")"
for f in *.html; do
	chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer \
		--user-data-dir="$(mktemp -d)" --print-to-pdf="${f%.html}.pdf" "$f" 2>/dev/null
done
