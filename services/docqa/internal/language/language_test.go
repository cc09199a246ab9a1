package language

import (
	"slices"
	"testing"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"Wie oft muss das Motoröl gewechselt werden?", "de"},
		{"How often should the engine oil be changed on this car?", "en"},
		{"¿Cada cuántos kilómetros hay que cambiar el aceite del motor y el filtro?", "es"},
		{"À quelle fréquence faut-il vidanger l'huile moteur ?", "fr"},
		{"Как часто нужно менять моторное масло?", "ru"},
	} {
		if got, ok := Of(tc.text); !ok || got != tc.want {
			t.Errorf("Of(%q) = %q, %v; want %q", tc.text, got, ok, tc.want)
		}
	}
	// Nothing to tell a language by: not sure.
	for _, text := range []string{"5W-30", "P0420", "", "机油多久换一次？", "怎样用 apt-get 从 bullseye-backports 档案库安装一个软件包？"} {
		if got, ok := Of(text); ok {
			t.Errorf("Of(%q) = %q, sure; want not sure", text, got)
		}
	}
}

func TestOther(t *testing.T) {
	english := []string{
		"Change the engine oil and the oil filter every 15 000 km or every 12 months, whichever comes first.",
		"Check the engine oil level every month with the dipstick, with the car standing level.",
	}
	german := "Das Motoröl und den Ölfilter alle 15 000 km oder alle 12 Monate wechseln."
	if other, langs := Other("Wie oft muss das Motoröl gewechselt werden?", english); !other || !slices.Equal(langs, []string{"en"}) {
		t.Errorf("German question, English passages: %v %v; want true [en]", other, langs)
	}
	if other, _ := Other("Wie oft muss das Motoröl gewechselt werden?", append(english, german)); other {
		t.Error("a German passage among them: other, want not")
	}
	if other, _ := Other("How often should the engine oil be changed on this car?", english); other {
		t.Error("English question, English passages: other")
	}
	if other, _ := Other("oil?", english); other {
		t.Error("a question whose language is not sure: other")
	}
	if other, _ := Other("Wie oft muss das Motoröl gewechselt werden?", []string{"5W-30 | 0W-20 | 10W-40"}); other {
		t.Error("passages whose language is not sure: other")
	}
	if Name("de") != "German" || Name("en") != "English" {
		t.Errorf("Name(de) = %q, Name(en) = %q", Name("de"), Name("en"))
	}
}
