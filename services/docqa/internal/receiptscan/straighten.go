package receiptscan

import (
	"image"
	"math"
)

// Straightening tells Tesseract's page layout what a receipt is: a column
// of text on a slip. A phone photo has the slip turned by a few degrees on
// a darker table, and Tesseract (--psm 3) then drops the column of amounts
// at the slip's right edge (proto-docs/docqa-decisions.md, "Receipts").
// So the slip is found (bright paper on a darker ground), cut out, turned
// level by a projection profile, cut again and given a white margin.
// Quarter and half turns are OSD's (internal/ocr's Auto), not this.

const (
	// maxSkew is the largest tilt looked for, in degrees: a receipt held
	// to a camera by hand; past it the profile is not searched.
	maxSkew = 8.0
	// minSkew is the least tilt corrected: under it the turn's
	// interpolation costs more sharpness than the tilt costs Tesseract.
	minSkew = 0.3
	// profileSide is the longest side of the small copy the slip and the
	// tilt are measured on.
	profileSide = 800
	// maxSide is the longest side given to Tesseract: a 12 megapixel
	// photo of a slip is read as well at this size and several times
	// faster.
	maxSide = 2600
	// margin is the white border around the cut slip, in pixels:
	// Tesseract finds text touching the image's edge less well.
	margin = 24
)

// view maps a point of the image OCR read back to the photo: the slip's
// cut, the turn, and the second cut, undone in that order.
type view struct {
	scale        float64     // photo pixels per pixel of the cut (>= 1 when shrunk)
	cut1         image.Point // the first cut's origin in the photo
	center       [2]float64  // the turn's center, in the first cut
	sin, cos     float64     // of the turn
	cut2         image.Point // the second cut's origin in the turned image, less the margin
	width, heigh int         // the photo's size
}

// toPhoto maps (x, y) of the straightened image to the photo.
func (v view) toPhoto(x, y float64) (float64, float64) {
	x, y = x+float64(v.cut2.X), y+float64(v.cut2.Y)
	x, y = v.back(x, y)
	return (x + float64(v.cut1.X)) * v.scale, (y + float64(v.cut1.Y)) * v.scale
}

// back is where the turned image's point (x, y) was before the turn.
func (v view) back(x, y float64) (float64, float64) {
	dx, dy := x-v.center[0], y-v.center[1]
	return v.center[0] + v.cos*dx - v.sin*dy, v.center[1] + v.sin*dx + v.cos*dy
}

// straighten returns the slip cut out of photo, levelled, with a white
// margin, the tilt corrected (degrees) and the view mapping it back.
func straighten(photo *image.Gray) (*image.Gray, float64, view) {
	v := view{scale: 1, cos: 1, width: photo.Rect.Dx(), heigh: photo.Rect.Dy()}
	img := photo
	if long := max(img.Rect.Dx(), img.Rect.Dy()); long > maxSide {
		v.scale = float64(long) / maxSide
		img = shrink(img, v.scale)
	}
	if r, ok := slip(img); ok {
		v.cut1 = r.Min
		img = crop(img, r)
	}
	angle := skew(img)
	paper := paperLevel(img)
	if math.Abs(angle) >= minSkew {
		rad := angle * math.Pi / 180
		v.sin, v.cos = math.Sin(rad), math.Cos(rad)
		v.center = [2]float64{float64(img.Rect.Dx()) / 2, float64(img.Rect.Dy()) / 2}
		img = turn(img, v, paper)
	} else {
		angle = 0
	}
	r, ok := slip(img)
	if !ok {
		r = img.Rect
	}
	v.cut2 = r.Min.Sub(image.Pt(margin, margin))
	return pad(img, r, paper), angle, v
}

// shrink makes img smaller by factor (> 1), each pixel the mean of those
// it covers.
func shrink(img *image.Gray, factor float64) *image.Gray {
	w := max(1, int(float64(img.Rect.Dx())/factor))
	h := max(1, int(float64(img.Rect.Dy())/factor))
	out := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		y0, y1 := int(float64(y)*factor), min(img.Rect.Dy(), int(float64(y+1)*factor))
		y1 = max(y1, y0+1)
		for x := range w {
			x0, x1 := int(float64(x)*factor), min(img.Rect.Dx(), int(float64(x+1)*factor))
			x1 = max(x1, x0+1)
			sum, n := 0, 0
			for yy := y0; yy < y1; yy++ {
				row := img.Pix[(yy)*img.Stride:]
				for xx := x0; xx < x1; xx++ {
					sum += int(row[xx])
					n++
				}
			}
			out.Pix[y*out.Stride+x] = uint8(sum / n)
		}
	}
	return out
}

// small is img shrunk to profileSide at most, and the factor.
func small(img *image.Gray) (*image.Gray, float64) {
	long := max(img.Rect.Dx(), img.Rect.Dy())
	if long <= profileSide {
		return img, 1
	}
	f := float64(long) / profileSide
	return shrink(img, f), f
}

// otsu is the gray level parting img's histogram into two classes with
// the most variance between them.
func otsu(img *image.Gray) uint8 {
	var hist [256]int
	for _, p := range img.Pix {
		hist[p]++
	}
	total := len(img.Pix)
	sum := 0.0
	for i, n := range hist {
		sum += float64(i * n)
	}
	var sumB, best float64
	wB, t := 0, 0
	for i, n := range hist {
		wB += n
		if wB == 0 {
			continue
		}
		wF := total - wB
		if wF == 0 {
			break
		}
		sumB += float64(i * n)
		mB, mF := sumB/float64(wB), (sum-sumB)/float64(wF)
		if between := float64(wB) * float64(wF) * (mB - mF) * (mB - mF); between > best {
			best, t = between, i
		}
	}
	return uint8(t)
}

// slip finds the receipt: the rows and columns mostly brighter than
// Otsu's level, on a ground that is clearly darker. ok false when the
// photo is all slip, or has no such ground (a white table, a close-up).
func slip(img *image.Gray) (image.Rectangle, bool) {
	s, f := small(img)
	t := otsu(s)
	w, h := s.Rect.Dx(), s.Rect.Dy()
	bright := func(x, y int) bool { return s.Pix[y*s.Stride+x] > t }
	cols := make([]float64, w)
	for x := range w {
		n := 0
		for y := range h {
			if bright(x, y) {
				n++
			}
		}
		cols[x] = float64(n) / float64(h)
	}
	x0, x1 := run(cols)
	rows := make([]float64, h)
	for y := range h {
		n := 0
		for x := x0; x < x1; x++ {
			if bright(x, y) {
				n++
			}
		}
		rows[y] = float64(n) / float64(max(1, x1-x0))
	}
	y0, y1 := run(rows)
	r := image.Rect(x0, y0, x1, y1)
	if r.Dx() < w/8 || r.Dy() < h/8 || r.Dx() >= w-2 && r.Dy() >= h-2 {
		return image.Rectangle{}, false
	}
	// The ground must be darker than the paper by a fair step: else the
	// level parted text from paper, not paper from table.
	in, out, nIn, nOut := 0, 0, 0, 0
	for y := range h {
		for x := range w {
			p := int(s.Pix[y*s.Stride+x])
			if image.Pt(x, y).In(r) {
				in, nIn = in+p, nIn+1
			} else {
				out, nOut = out+p, nOut+1
			}
		}
	}
	if nOut == 0 || in/nIn-out/nOut < 40 {
		return image.Rectangle{}, false
	}
	full := image.Rect(int(float64(r.Min.X)*f), int(float64(r.Min.Y)*f), int(math.Ceil(float64(r.Max.X)*f)), int(math.Ceil(float64(r.Max.Y)*f)))
	return full.Intersect(image.Rect(0, 0, img.Rect.Dx(), img.Rect.Dy())), true
}

// run is the longest stretch of frac over half its largest value.
func run(frac []float64) (int, int) {
	top := 0.0
	for _, v := range frac {
		top = max(top, v)
	}
	best0, best1, start := 0, 0, -1
	for i := 0; i <= len(frac); i++ {
		if i < len(frac) && frac[i] > top/2 {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start > best1-best0 {
			best0, best1 = start, i
		}
		start = -1
	}
	return best0, best1
}

// crop copies r of img to a new image at 0, 0.
func crop(img *image.Gray, r image.Rectangle) *image.Gray {
	out := image.NewGray(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := range r.Dy() {
		copy(out.Pix[y*out.Stride:y*out.Stride+r.Dx()], img.Pix[(r.Min.Y+y)*img.Stride+r.Min.X:])
	}
	return out
}

// pad copies r of img with a margin of paper around it.
func pad(img *image.Gray, r image.Rectangle, paper uint8) *image.Gray {
	out := image.NewGray(image.Rect(0, 0, r.Dx()+2*margin, r.Dy()+2*margin))
	for i := range out.Pix {
		out.Pix[i] = paper
	}
	for y := range r.Dy() {
		copy(out.Pix[(y+margin)*out.Stride+margin:(y+margin)*out.Stride+margin+r.Dx()], img.Pix[(r.Min.Y+y)*img.Stride+r.Min.X:])
	}
	return out
}

// paperLevel is the gray of the paper: the 90th percentile.
func paperLevel(img *image.Gray) uint8 {
	var hist [256]int
	for _, p := range img.Pix {
		hist[p]++
	}
	n := 0
	for i := 255; i >= 0; i-- {
		n += hist[i]
		if n*10 >= len(img.Pix) {
			return uint8(i)
		}
	}
	return 255
}

// skew is the tilt of img's lines of text in degrees (positive: they fall
// to the right), the turn that makes the projection profile of its dark
// pixels on rows sharpest (the sum of squared differences of neighbouring
// rows' counts): coarse in steps of 0.5 degrees, then 0.1 around the best.
func skew(img *image.Gray) float64 {
	s, _ := small(img)
	t := otsu(s)
	var xs, ys []float64
	cx, cy := float64(s.Rect.Dx())/2, float64(s.Rect.Dy())/2
	for y := range s.Rect.Dy() {
		for x := range s.Rect.Dx() {
			if s.Pix[y*s.Stride+x] <= t {
				xs, ys = append(xs, float64(x)-cx), append(ys, float64(y)-cy)
			}
		}
	}
	if len(xs) < 50 {
		return 0
	}
	h := s.Rect.Dx() + s.Rect.Dy()
	hist := make([]float64, 2*h+2)
	score := func(deg float64) float64 {
		clear(hist)
		sin, cos := math.Sincos(deg * math.Pi / 180)
		for i := range xs {
			// The row of the dark pixel once the image is turned by deg.
			row := int(math.Round(-sin*xs[i] + cos*ys[i]))
			hist[row+h]++
		}
		sum := 0.0
		for i := 1; i < len(hist); i++ {
			d := hist[i] - hist[i-1]
			sum += d * d
		}
		return sum
	}
	best, bestScore := 0.0, score(0)
	for deg := -maxSkew; deg <= maxSkew; deg += 0.5 {
		if sc := score(deg); sc > bestScore {
			best, bestScore = deg, sc
		}
	}
	coarse := best
	for deg := coarse - 0.4; deg <= coarse+0.4; deg += 0.1 {
		if sc := score(deg); sc > bestScore {
			best, bestScore = deg, sc
		}
	}
	return best
}

// turn returns img turned by v's angle about v's center, each pixel
// interpolated from the four it falls between; what falls outside img is
// paper.
func turn(img *image.Gray, v view, paper uint8) *image.Gray {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	out := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			sx, sy := v.back(float64(x), float64(y))
			out.Pix[y*out.Stride+x] = bilinear(img, sx, sy, paper)
		}
	}
	return out
}

func bilinear(img *image.Gray, x, y float64, fill uint8) uint8 {
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	if x0 < 0 || y0 < 0 || x0+1 >= img.Rect.Dx() || y0+1 >= img.Rect.Dy() {
		return fill
	}
	fx, fy := x-float64(x0), y-float64(y0)
	i := y0*img.Stride + x0
	p00, p10 := float64(img.Pix[i]), float64(img.Pix[i+1])
	p01, p11 := float64(img.Pix[i+img.Stride]), float64(img.Pix[i+img.Stride+1])
	top := p00 + (p10-p00)*fx
	bot := p01 + (p11-p01)*fx
	return uint8(math.Round(top + (bot-top)*fy))
}
