package receiptscan

import (
	"image"
	"image/draw"
	"math"
	"testing"
)

// The projection profile finds a tilt it was given: a corpus photo
// levelled, then turned by known angles (within and beyond the corpus's
// 3.5 degrees), reads back the turn that undoes it, to 0.3 degrees.
func TestSkewFindsTheTilt(t *testing.T) {
	photo, _, err := Decode(mustRead(t, "../receipt/testdata/photos/dev-05-de-aral-e10.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	level, _, _ := straighten(photo)
	if a := skew(level); math.Abs(a) > 0.3 {
		t.Fatalf("the straightened photo still tilts by %.2f degrees", a)
	}
	paper := paperLevel(level)
	for _, deg := range []float64{-6, -2.5, 1, 4.5, 7} {
		rad := deg * math.Pi / 180
		v := view{sin: math.Sin(rad), cos: math.Cos(rad),
			center: [2]float64{float64(level.Rect.Dx()) / 2, float64(level.Rect.Dy()) / 2}}
		tilted := turn(level, v, paper)
		if got := skew(tilted); math.Abs(got+deg) > 0.3 {
			t.Errorf("turned by %.1f: skew %.2f, want %.1f", deg, got, -deg)
		}
	}
}

// The slip is cut out of the grey table around it, and a box read on the
// straightened image maps back onto the photo. (The corpus's photos are
// the slip with only the corners of the table; this one is laid on a
// wider table.)
func TestStraightenCutsTheSlip(t *testing.T) {
	slipPhoto, _, err := Decode(mustRead(t, "../receipt/testdata/photos/dev-01-uk-tesco-unleaded.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	const table = 200
	photo := image.NewGray(image.Rect(0, 0, slipPhoto.Rect.Dx()+2*table, slipPhoto.Rect.Dy()+2*table))
	for i := range photo.Pix {
		photo.Pix[i] = 0x9a
	}
	draw.Draw(photo, slipPhoto.Rect.Add(image.Pt(table, table)), slipPhoto, image.Point{}, draw.Src)
	img, angle, v := straighten(photo)
	if img.Rect.Dx() >= photo.Rect.Dx() || img.Rect.Dy() >= photo.Rect.Dy() {
		t.Fatalf("nothing cut: %v of %v", img.Rect, photo.Rect)
	}
	if angle == 0 {
		t.Fatal("the photo (turned by photograph.sh) was not levelled")
	}
	// The straightened image's corners come back inside the photo, and
	// its center near the photo's slip's center.
	for _, p := range [][2]float64{{0, 0}, {float64(img.Rect.Dx()), float64(img.Rect.Dy())}} {
		x, y := v.toPhoto(p[0], p[1])
		if x < -2*margin || y < -2*margin || x > float64(photo.Rect.Dx()+2*margin) || y > float64(photo.Rect.Dy()+2*margin) {
			t.Errorf("corner %v maps to %.0f, %.0f, outside the photo %v", p, x, y, photo.Rect)
		}
	}
	if x, y := v.toPhoto(float64(img.Rect.Dx())/2, float64(img.Rect.Dy())/2); math.Abs(x-float64(photo.Rect.Dx())/2) > 0.1*float64(photo.Rect.Dx()) ||
		math.Abs(y-float64(photo.Rect.Dy())/2) > 0.1*float64(photo.Rect.Dy()) {
		t.Errorf("the center maps to %.0f, %.0f; the photo is %v", x, y, photo.Rect)
	}
}
