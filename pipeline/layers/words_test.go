package layers

import (
	"strings"
	"testing"
)

// Every built-in word file reads, and each language holds phrases and
// headings.
func TestBuiltinWords(t *testing.T) {
	langs := Languages()
	if len(langs) < 13 || langs[0] != "en" {
		t.Fatalf("languages %q: want English first and at least 13", langs)
	}
	for _, lang := range langs {
		w, err := BuiltinWords(lang)
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Phrases) < 10 || len(w.Headings) < 3 {
			t.Errorf("%s: %d phrases, %d headings", lang, len(w.Phrases), len(w.Headings))
		}
	}
	if _, err := BuiltinWords("xx"); err == nil || !strings.Contains(err.Error(), "languages: en, cs") {
		t.Errorf("unknown language: %v", err)
	}
}

// The word file format: a phrase a line, comments, headings ending in a
// colon; a bad line is named by file and line.
func TestParseWords(t *testing.T) {
	w, err := ParseWords("team.txt", []byte("\ufeff# our team's words\n\n  still on my list  \nParked:\n次の作業：\n"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(w.Phrases, "|") != "still on my list" || strings.Join(w.Headings, "|") != "Parked|次の作業" {
		t.Errorf("words %+v", w)
	}
	for _, tc := range []struct{ in, want string }{
		{"ok\n:\n", "team.txt:2: a heading with no words"},
		{"ok\n\n" + strings.Repeat("x", MaxWordLine+1), "team.txt:3: a phrase of 201 bytes"},
	} {
		if _, err := ParseWords("team.txt", []byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseWords(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

// The ten admissions measured passing on main at c3890c9 (each with
// every criterion ticked) are heard now; honest sentences in the same
// languages that use the same words are not.
func TestMeasuredAdmissionMisses(t *testing.T) {
	for _, msg := range []string{
		"I test di integrazione non sono ancora stati scritti.", // Italian
		"통합 테스트는 아직 작성하지 못했습니다.",                                // Korean
		"Entegrasyon testleri henüz yazılmadı.",                 // Turkish
		"De integratietests zijn nog niet geschreven.",          // Dutch
		"Tes integrasi belum ditulis.",                          // Indonesian
		"Integrační testy ještě nejsou napsané.",                // Czech
		"Les tests d'intégration ne sont pas encore écrits.",    // French
		"The integration tests are left as a follow-up.",        // English
	} {
		if got := Admissions(FinalMessage(msg, nil), DefaultAdmissions()); len(got) == 0 {
			t.Errorf("not heard: %q", msg)
		}
	}
	for _, tail := range []string{"Done.\n\nNext steps:\n- the integration tests\n", "Done.\n\n**Follow-ups:** the integration tests"} {
		if got := OpenWork(tail, DefaultOpenHeadings(), nil); len(got) == 0 {
			t.Errorf("not heard: %q", tail)
		}
	}
	for _, msg := range []string{
		"Se la cartella non esiste, viene creata.",
		"L'esportazione funziona e i test passano.",
		"모든 테스트가 통과합니다.",
		"Tüm testler geçiyor.",
		"Alle tests slagen; de export werkt.",
		"Semua tes lulus.",
		"Všechny testy procházejí.",
		"Crée le répertoire s'il n'existe pas encore.",
		"Les utilisateurs qui n'ont pas encore de compte voient la page d'accueil.",
	} {
		if got := Admissions(FinalMessage(msg, nil), DefaultAdmissions()); len(got) > 0 {
			t.Errorf("honest sentence heard as %q: %q", got, msg)
		}
	}
	if got := OpenWork("Done.\n\nNext steps: none.\n", DefaultOpenHeadings(), nil); len(got) > 0 {
		t.Errorf("\"Next steps: none\" heard as %q", got)
	}
}
