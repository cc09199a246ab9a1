package pdftext

import (
	"testing"

	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
)

func TestIsTitle(t *testing.T) {
	for _, tc := range []struct {
		title string
		want  bool
	}{
		{"Owner's Manual Golf 8", true},
		{"R: An Introduction to R", true},
		{"2026 Model Y Owner's Manual", true},
		{"Version 1.2 Release Notes", true},
		{"Service Manual — Model X", true},
		{"Title Insurance Handbook", true}, // a placeholder word inside a title
		{"Unknown Pleasures", true},
		{"Document Management Guide", true},
		{"A/C System Guide", true},
		{"汽车保养手册", true},
		{"WALDEN", true},

		{"manual_en.html", false},
		{"MANUAL_EN.HTML", false},
		{"Owner Manual.pdf", false},
		{"walden.pdf", false},
		{"Golf 8 Owners Manual.docx", false},
		{"brochure.indd", false},
		{"prices.XLSX", false},
		{"chapter1.tex", false},
		{"README.md", false},
		{"owners_manual_rev4", false},
		{"/home/build/out/manual", false},
		{`C:\Users\ab\Documents\Handbuch`, false},
		{"c:/manuals/golf", false},
		{"https://example.com/manual", false},
		{"docs/manual", false},
		{"Microsoft Word - x.docx", false},
		{"Microsoft Word - Owner Manual", false}, // Windows hid the extension
		{"Microsoft PowerPoint - Launch deck", false},
		{"untitled", false},
		{"Untitled document", false},
		{"Untitled-1", false},
		{"Document1", false},
		{"Presentation 2", false},
		{"title", false},
		{"TITLE", false},
		{"no title", false},
		{"Unknown", false},
		{"(anonymous)", false},
		{"[Untitled]", false},
		{"", false},
		{"   ", false},
		{" - ", false},
		{"...", false},
	} {
		t.Run(tc.title, func(t *testing.T) {
			if got := isTitle(tc.title); got != tc.want {
				t.Errorf("isTitle(%q) = %v, want %v", tc.title, got, tc.want)
			}
		})
	}
}

// A title that is no title gives way to the first page's most prominent
// line, and that to nothing (the caller then names the document by its
// file), on real PDFs: the metadata title a producer wrote, the cover's
// title set larger than the text under it.
func TestTitleFromTheFirstPage(t *testing.T) {
	const body = "Volkswagen AG\nRead this manual before driving.\nChange the engine oil every 15000 km."
	for _, tc := range []struct {
		name string
		pdf  []byte
		want string
	}{
		{"a file name, the cover's title on two lines",
			ingesttest.Titled("manual_en.html", ingesttest.Page{Heading: "Owner's Manual\nGolf 8", Text: body}),
			"Owner's Manual Golf 8"},
		{"a file name, a first page all in one size",
			ingesttest.Titled("manual_en.html", ingesttest.Page{Text: "Golf 8\n" + body}), ""},
		{"a placeholder, the cover's title",
			ingesttest.Titled("Microsoft Word - golf.docx", ingesttest.Page{Heading: "Wheel Guide", Text: body}), "Wheel Guide"},
		{"no title, the cover's title",
			ingesttest.Book("", ingesttest.Page{Heading: "Wheel Guide", Text: body}), "Wheel Guide"},
		{"a real title is kept over the cover's",
			ingesttest.Titled("Service Schedule 2026", ingesttest.Page{Heading: "Owner's Manual", Text: body}), "Service Schedule 2026"},
		{"the cover's largest line is a file name",
			ingesttest.Titled("untitled", ingesttest.Page{Heading: "manual_en.html", Text: body}), ""},
		{"the cover's largest line is a page number",
			ingesttest.Titled("untitled", ingesttest.Page{Heading: "12", Text: body}), ""},
		{"only the first page counts",
			ingesttest.Titled("manual_en.html", ingesttest.Page{Text: body}, ingesttest.Page{Heading: "Maintenance", Text: body}), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := extractBytes(t, engine, tc.pdf, nil)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Title != tc.want {
				t.Errorf("Title = %q, want %q", doc.Title, tc.want)
			}
		})
	}
}

func TestProminentLine(t *testing.T) {
	lineOf := func(text string, size float32, letters int) coverLine {
		l := coverLine{text: text, size: size}
		for range letters {
			l.sizes = append(l.sizes, size)
		}
		return l
	}
	for _, tc := range []struct {
		name  string
		lines []coverLine
		want  string
	}{
		{"no lines", nil, ""},
		{"one line alone: nothing to tell it by", []coverLine{lineOf("Owner's Manual", 30, 12)}, ""},
		{"a title over body text", []coverLine{lineOf("Owner's Manual", 30, 12), lineOf("Read this first.", 12, 13), lineOf("Then drive.", 12, 9)}, "Owner's Manual"},
		{"a title under a logo line", []coverLine{lineOf("ACME", 12, 4), lineOf("Owner's Manual", 30, 12), lineOf("Read this first.", 12, 13)}, "Owner's Manual"},
		{"the body in the larger size", []coverLine{lineOf("Owner's Manual", 13, 12), lineOf("Read this first.", 12, 13)}, ""},
		{"the title's letters outnumber the rest's", []coverLine{lineOf("Owner's Manual of the Car", 30, 20), lineOf("ACME", 10, 4)}, "Owner's Manual of the Car"},
		// asymptote.pdf's cover, as PDFium sizes it: the title, then its logo, larger.
		{"a title above a larger logo", []coverLine{lineOf("Asymptote: the Vector Graphics", 18.5, 8), lineOf("Language", 18.5, 8), lineOf("For version 2.85", 10.9, 8), lineOf("symptote", 24.8, 8)}, "Asymptote: the Vector Graphics Language"},
		{"a far larger emblem below a subtitle", []coverLine{lineOf("Second edition", 14, 13), lineOf("GOLF", 60, 4), lineOf("Read this first.", 10, 13)}, "GOLF"},
		{"a small line before the title stays out of it", []coverLine{lineOf("ACME Motors", 13, 10), lineOf("Owner's Manual", 30, 12), lineOf("Read this first.", 12, 13), lineOf("Then drive.", 12, 9)}, "Owner's Manual"},
		{"too short", []coverLine{lineOf("Go", 30, 2), lineOf("Read this first.", 12, 13)}, ""},
		{"too long: a paragraph in a large font", []coverLine{lineOf(longLine, 30, 100), lineOf("Read this first.", 12, 13)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := prominentLine(tc.lines); got != tc.want {
				t.Errorf("prominentLine = %q, want %q", got, tc.want)
			}
		})
	}
}

const longLine = "This paragraph is set in a large font and runs on well past the length of any title a cover would carry, so it is no title"
