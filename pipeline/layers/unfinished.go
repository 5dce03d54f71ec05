package layers

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Work left undone (layer "unfinished"): a marker of unfinished work —
// TODO, FIXME, XXX, a placeholder — that the loop's diff added rejects the
// claim. Markers that were there before the stage started, and those in
// test fixtures, do not count. Markers written in capitals (TODO) match
// only in capitals, at word boundaries; others (placeholder) in any case.

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
		for _, m := range markers {
			if hasMarker(added[f], m) {
				out = append(out, f+": "+m)
			}
		}
	}
	return out
}

func hasMarker(lines []string, marker string) bool {
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
			if wordEdge(l, at-1, -1) && wordEdge(l, from, +1) {
				return true
			}
		}
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
	out := Added{}
	file := ""
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "):
			file = strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
			if file == "/dev/null" {
				file = ""
			}
		case strings.HasPrefix(l, "+") && file != "":
			out[file] = append(out[file], l[1:])
		}
	}
	return out
}
