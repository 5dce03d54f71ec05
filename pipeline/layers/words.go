package layers

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
)

// The admission words are data: one file per language in admissions/
// (embedded), and the repository's own files (layers.admission_files,
// read by the engine from the commit the loop started from). A file holds
// one phrase a line; "#" starts a comment line; a line ending in ":" is a
// heading of work left ([OpenWork]), the others are admission phrases
// ([Admissions]). A new language is one file.

//go:embed admissions/*.txt
var admissionFiles embed.FS

// Words are the admission phrases and the headings of work left that a
// word file holds.
type Words struct {
	Phrases  []string
	Headings []string
}

// Add appends w's words to v's.
func (v Words) Add(w Words) Words {
	return Words{Phrases: append(slices.Clone(v.Phrases), w.Phrases...), Headings: append(slices.Clone(v.Headings), w.Headings...)}
}

// MaxWordLine bounds a line of a word file: a phrase, not a paragraph.
const MaxWordLine = 200

// ParseWords reads a word file; name is how errors name it
// ("FILE:LINE: ...").
func ParseWords(name string, b []byte) (Words, error) {
	var w Words
	for i, line := range strings.Split(strings.TrimPrefix(string(b), "\ufeff"), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case len(line) > MaxWordLine:
			return Words{}, fmt.Errorf("%s:%d: a phrase of %d bytes: write one phrase a line, at most %d bytes", name, i+1, len(line), MaxWordLine)
		}
		if h, ok := strings.CutSuffix(line, ":"); ok {
			if h = strings.TrimSpace(strings.TrimSuffix(h, "：")); h == "" {
				return Words{}, fmt.Errorf("%s:%d: a heading with no words before its ':'", name, i+1)
			}
			w.Headings = append(w.Headings, h)
			continue
		}
		if h, ok := strings.CutSuffix(line, "："); ok && strings.TrimSpace(h) != "" {
			w.Headings = append(w.Headings, strings.TrimSpace(h))
			continue
		}
		w.Phrases = append(w.Phrases, line)
	}
	return w, nil
}

// Languages are the languages of the built-in word files (their file
// names without .txt), English first.
func Languages() []string {
	entries, err := admissionFiles.ReadDir("admissions")
	if err != nil {
		panic(err) // embedded at build time
	}
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".txt"))
	}
	slices.SortFunc(out, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == "en":
			return -1
		case b == "en":
			return 1
		}
		return strings.Compare(a, b)
	})
	return out
}

// BuiltinWords are the words of the built-in file of a language.
func BuiltinWords(lang string) (Words, error) {
	name := path.Join("admissions", lang+".txt")
	b, err := admissionFiles.ReadFile(name)
	if err != nil {
		return Words{}, fmt.Errorf("no built-in admission words for %q (languages: %s)", lang, strings.Join(Languages(), ", "))
	}
	return ParseWords("pipeline/layers/"+name, b)
}

// builtin are the words of every built-in language, read at the first
// use rather than at every start of ralph-ci (internal/lazyregexp says
// why).
var builtin = sync.OnceValue(func() Words {
	var all Words
	for _, lang := range Languages() {
		w, err := BuiltinWords(lang)
		if err != nil {
			panic(err) // TestBuiltinWords reads each file
		}
		all = all.Add(w)
	}
	return all
})

// MoreAdmissions returns the wordings agents use to admit that the work is
// not done, in every built-in language, heard beside the seed phrases
// (the config's layers.contradiction_phrases) unless layers.admissions
// replaces them.
func MoreAdmissions() []string { return builtin().Phrases }

// DefaultOpenHeadings returns the headings of work left heard by default
// (layers.open_work_headings), in every built-in language.
func DefaultOpenHeadings() []string { return builtin().Headings }
