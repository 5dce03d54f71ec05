package layers

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
)

// Work left undone (layer "unfinished"): a marker of unfinished work —
// TODO, FIXME, XXX, a placeholder, a stub (raise NotImplementedError,
// todo!(), unimplemented!, throw new Error("not implemented")) — that the
// loop's diff added rejects the claim. Markers that were there before the
// stage started, and those in test fixtures, do not count. In code every
// added line counts, comments and stubs alike; in prose (docs and
// changelogs, [IsProse]) a marker of code (TODO, a stub) counts only in
// the shape of one, and words of prose (placeholder, coming soon)
// anywhere. Markers written in capitals (TODO) match only in capitals, at
// word boundaries; others (placeholder) in any case.

// Added are the lines a diff added, by repo-relative file.
type Added map[string][]string

// Unfinished lists, as "file: marker", the markers the added lines hold,
// outside fixtures ([IsFixture]) and ralph-ci's own .ralph directory.
func Unfinished(added Added, markers []string) []string {
	var out []string
	for _, f := range slices.Sorted(maps.Keys(added)) {
		if IsFixture(f) || strings.HasPrefix(f, ".ralph/") {
			continue
		}
		prose := IsProse(f)
		for _, m := range markers {
			if hasMarker(added[f], m, prose && !proseMarker(m)) {
				out = append(out, f+": "+m)
			}
		}
	}
	return out
}

func hasMarker(lines []string, marker string, prose bool) bool {
	m := strings.TrimSpace(marker)
	if m == "" {
		return false
	}
	exact := m == strings.ToUpper(m)
	if !exact {
		m = strings.ToLower(m)
	}
	for _, l := range lines {
		if !exact {
			l = strings.ToLower(l)
		}
		for from := 0; ; {
			i := strings.Index(l[from:], m)
			if i < 0 {
				break
			}
			at := from + i
			from = at + len(m)
			if wordEdge(l, at-1, -1) && wordEdge(l, from, +1) && (!prose || markerShaped(l, at, from)) {
				return true
			}
		}
	}
	return false
}

// proseExt are the extensions of prose files, and proseNames the names
// (without extension) of docs and changelogs.
var (
	proseExt   = map[string]bool{".md": true, ".markdown": true, ".mdx": true, ".rst": true, ".txt": true, ".adoc": true, ".asciidoc": true, ".org": true, ".textile": true}
	proseNames = map[string]bool{"changelog": true, "changes": true, "history": true, "news": true, "release_notes": true, "releasenotes": true, "readme": true, "authors": true, "contributing": true}
)

// proseMarker tells a marker written as words of prose, in lower case
// ("placeholder", "coming soon", "lorem ipsum"): it marks unfinished docs
// wherever it stands. The others (TODO, FIXME, todo!, raise
// NotImplementedError) are code's, and count in prose only in the shape
// of a marker.
func proseMarker(m string) bool {
	for _, r := range m {
		if !(r >= 'a' && r <= 'z' || r == ' ') {
			return false
		}
	}
	return true
}

// IsProse tells a file of prose, docs and changelogs: in it a marker of
// unfinished work counts only in the shape of one ([markerShaped]);
// "Removed the TODO comment" in a CHANGELOG names a TODO, it leaves none.
func IsProse(rel string) bool {
	base := strings.ToLower(path.Base(rel))
	ext := path.Ext(base)
	return proseExt[ext] || proseNames[strings.TrimSuffix(base, ext)]
}

// markerShaped tells that the marker at l[at:end] of a prose line is one
// of work left, not a word of a sentence: it opens the line's text (after
// list bullets, heading and quote marks, emphasis, a task box or a
// comment opener: "TODO: the API section", "- [ ] TBD", "<!-- FIXME -->"),
// stands in brackets ("(TODO)", "[TBD]"), or is followed by a colon.
func markerShaped(l string, at, end int) bool {
	before := strings.TrimSpace(l[:at])
	for _, opener := range []string{"<!--", "..", "//", "#", "%"} {
		before = strings.TrimSpace(strings.TrimPrefix(before, opener))
	}
	before = strings.TrimLeft(before, "#>*-+_|=~ \t0123456789.)")
	before = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(before, "[ ]"), "[x]"), "[X]"))
	before = strings.TrimLeft(before, "*_ ")
	after := strings.TrimLeft(l[end:], "*_ ")
	switch {
	case before == "", strings.HasPrefix(after, ":"), strings.HasPrefix(after, "："):
		return true
	case strings.HasSuffix(before, "(") && strings.HasPrefix(after, ")"), strings.HasSuffix(before, "[") && strings.HasPrefix(after, "]"):
		return true
	}
	return false
}

// wordEdge tells that l has no identifier character at i (the side of
// the marker dir points to: -1 before it, +1 after it), nor a hyphen or
// dot that joins one to the marker: "XXX-0000", "SKU-XXX" and "todo.txt"
// hold no marker; "TODO - fix", "- TODO" and "TODO." do.
func wordEdge(l string, i, dir int) bool {
	if i < 0 || i >= len(l) {
		return true
	}
	c := l[i]
	if c == '-' || c == '.' {
		j := i + dir
		return j < 0 || j >= len(l) || !identChar(l[j])
	}
	return !identChar(c)
}

func identChar(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// Unfinished records the layer on a claim that passed so far: found are
// the markers [Unfinished] listed. It reports whether the claim holds.
func (v *Verdict) Unfinished(found []string) bool {
	if len(found) == 0 {
		v.Pass("unfinished", "")
		return true
	}
	v.Reject("unfinished", fmt.Sprintf("work left undone: the loop added %s; finish it, or set layers.unfinished_markers in the config if these are intended", strings.Join(found, ", ")))
	return false
}

// AddedLines parses a unified diff (git diff -U0) into the lines it adds,
// by file ("+++ b/path" names it).
func AddedLines(diff string) Added {
	added, _ := AddedWhere(diff)
	return added
}

// Where tells where the added lines are: the line number of each (in
// the order of [Added]'s lines) and which files are new.
type Where struct {
	Lines map[string][]int
	New   map[string]bool
}

// Line is the line number of the i-th added line of file (0: unknown).
func (w Where) Line(file string, i int) int {
	if n := w.Lines[file]; i < len(n) {
		return n[i]
	}
	return 0
}

// AddedWhere parses a unified diff into the lines it adds, by file, with
// where they are: each line's number in the new file (from the hunk
// headers), and the files the diff creates ("--- /dev/null").
func AddedWhere(diff string) (Added, Where) {
	out, where := Added{}, Where{Lines: map[string][]int{}, New: map[string]bool{}}
	file, created, next := "", false, 0
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "--- "):
			created = l == "--- /dev/null"
		case strings.HasPrefix(l, "+++ "):
			file = strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
			if file == "/dev/null" {
				file = ""
			} else if created {
				where.New[file] = true
			}
		case strings.HasPrefix(l, "@@ "):
			next = hunkStart(l)
		case strings.HasPrefix(l, "+") && file != "":
			out[file] = append(out[file], l[1:])
			where.Lines[file] = append(where.Lines[file], next)
			next++
		case strings.HasPrefix(l, " "):
			next++
		}
	}
	return out, where
}

// hunkStart is the first line of a hunk's new side ("@@ -a,b +c,d @@").
func hunkStart(header string) int {
	_, rest, _ := strings.Cut(header, " +")
	n := 0
	for _, r := range rest {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}
