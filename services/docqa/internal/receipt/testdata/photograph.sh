#!/bin/sh
# Makes "photographs" of the corpus's receipts: each receipt's text (after
# its header's ---) printed in a receipt printer's monospace (a CJK font
# for Chinese) on a white slip with margins, laid on a grey table, turned
# by a few degrees (a different angle for each), blurred a little as a
# phone camera does, with Gaussian noise, grey, saved as a JPEG of quality
# 55. Deterministic: the same corpus makes the same images.
#
# Usage: photograph.sh OUTDIR [SAMPLE.txt ...]   (default: dev/*.txt heldout/*.txt)
# Needs ImageMagick's convert.
set -eu
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- "$here"/dev/*.txt "$here"/heldout/*.txt
mkdir -p "$out"
latin=DejaVu-Sans-Mono
cjk=/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
[ -f "$cjk" ] || cjk=Noto-Sans-CJK-SC-Regular
i=0
for f in "$@"; do
	i=$((i + 1))
	set_name=$(basename "$(dirname "$f")")
	name=$set_name-$(basename "$f" .txt)
	text=$(mktemp)
	sed '1,/^---$/d' "$f" >"$text"
	font=$latin
	if LC_ALL=C.UTF-8 grep -qP '\p{Han}' "$text"; then font=$cjk; fi
	# Angles -3.5 .. +3.5 degrees, never 0; noise 0.3 .. 0.6.
	angle=$(awk -v i="$i" 'BEGIN { a = ((i * 37) % 15 - 7) / 2; if (a == 0) a = 1.5; print a }')
	noise=$(awk -v i="$i" 'BEGIN { print 0.3 + ((i * 7) % 4) / 10 }')
	# The text as an argument (the usual policy forbids label:@file); %
	# and \ are ImageMagick's escapes, doubled.
	label=$(sed -e 's/\\/\\\\/g' -e 's/%/%%/g' "$text")
	convert -background white -fill black -font "$font" -pointsize 26 label:"$label" \
		-bordercolor white -border 40x50 \
		-background '#9a9a9a' -rotate "$angle" \
		-blur 0x0.6 -attenuate "$noise" +noise Gaussian \
		-colorspace Gray -strip -quality 55 "$out/$name.jpg"
	rm -f "$text"
done
