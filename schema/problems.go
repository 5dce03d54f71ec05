package schema

import (
	"fmt"
	"sort"
	"strings"
)

// Problem is one thing wrong in a user's file, with the place to fix it.
type Problem struct {
	File string // the user's file, as given to the loader
	Line int    // 1-based; 0 when unknown
	Col  int    // 1-based; 0 when unknown
	Path string // dotted field path, e.g. "agents.coder.timeout"; may be empty
	Msg  string
}

// String formats the problem as "file:line:col: path: message".
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", p.Line, max(p.Col, 1))
	}
	b.WriteString(": ")
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Problems is a list of problems found in one or more files. It is an
// error; its message has one problem per line.
type Problems []Problem

// Error joins the problems, one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// sorted orders problems by file, line and column and drops duplicates.
func (ps Problems) sorted() Problems {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.Path < b.Path
	})
	out := ps[:0]
	for i, p := range ps {
		if i > 0 && p == ps[i-1] {
			continue
		}
		out = append(out, p)
	}
	return out
}
