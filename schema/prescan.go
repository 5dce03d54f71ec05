package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
)

// bom is the UTF-8 byte order mark some editors put at the start of a file.
var bom = []byte("\ufeff")

// stripBOM removes a leading byte order mark, which YAML allows and JSON
// parsers reject with an unhelpful "invalid JSON". It is replaced by
// nothing, so the first line's columns shift by one character at most.
func stripBOM(src []byte) []byte {
	return bytes.TrimPrefix(src, bom)
}

// duplicateKeys finds keys given twice in one mapping of a YAML or JSON
// file, which CUE would otherwise merge (or unify) silently. Each repeat
// is a problem at its own line and column.
func duplicateKeys(filename string, format Format, src []byte) Problems {
	switch format {
	case YAML:
		var doc yaml.Node
		if err := yaml.Unmarshal(src, &doc); err != nil {
			return nil // the CUE parser reports syntax errors
		}
		var ps Problems
		yamlDuplicates(filename, &doc, nil, &ps)
		return ps
	case JSON:
		return jsonDuplicates(filename, src)
	}
	return nil
}

// yamlDuplicates walks n (not following aliases, so it stays linear in
// the size of the file).
func yamlDuplicates(filename string, n *yaml.Node, path []string, ps *Problems) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for i, c := range n.Content {
			p := path
			if n.Kind == yaml.SequenceNode {
				p = append(path[:len(path):len(path)], fmt.Sprint(i))
			}
			yamlDuplicates(filename, c, p, ps)
		}
	case yaml.MappingNode:
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Value != "<<" {
				if first, dup := seen[k.Value]; dup {
					*ps = append(*ps, duplicate(filename, append(path[:len(path):len(path)], k.Value), k.Line, k.Column, first))
				} else {
					seen[k.Value] = k.Line
				}
			}
			yamlDuplicates(filename, v, append(path[:len(path):len(path)], k.Value), ps)
		}
	}
}

func duplicate(filename string, path []string, line, col, first int) Problem {
	return Problem{File: filename, Line: line, Col: col, Path: strings.Join(path, "."),
		Msg: fmt.Sprintf("duplicate key %q (first given at line %d); keep one", path[len(path)-1], first)}
}

// jsonFrame is an object or array being read by jsonDuplicates.
type jsonFrame struct {
	object  bool
	seen    map[string]int // keys given so far, with their line (objects)
	path    []string
	key     string // the key whose value comes next (objects)
	wantKey bool
	index   int // the next element's index (arrays)
}

// jsonDuplicates walks the tokens of a JSON document.
func jsonDuplicates(filename string, src []byte) Problems {
	var ps Problems
	var stack []*jsonFrame
	// childPath is the path of the value that starts now.
	childPath := func() []string {
		if len(stack) == 0 {
			return nil
		}
		top := stack[len(stack)-1]
		elem := top.key
		if !top.object {
			elem = fmt.Sprint(top.index)
		}
		return append(top.path[:len(top.path):len(top.path)], elem)
	}
	// valueDone records that the current container's value has ended.
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		if top := stack[len(stack)-1]; top.object {
			top.wantKey = true
		} else {
			top.index++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	for {
		start := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return ps // syntax errors are the CUE parser's to report
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				stack = append(stack, &jsonFrame{object: t == '{', seen: map[string]int{}, path: childPath(), wantKey: t == '{'})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
			continue
		case string:
			if top := lastFrame(stack); top != nil && top.object && top.wantKey {
				line, col := lineCol(src, skipSeparators(src, start))
				if first, dup := top.seen[t]; dup {
					ps = append(ps, duplicate(filename, append(top.path[:len(top.path):len(top.path)], t), line, col, first))
				} else {
					top.seen[t] = line
				}
				top.key, top.wantKey = t, false
				continue
			}
		}
		valueDone()
	}
}

func lastFrame(stack []*jsonFrame) *jsonFrame {
	if len(stack) == 0 {
		return nil
	}
	return stack[len(stack)-1]
}

// skipSeparators moves i past white space, commas and colons to the start
// of the next token.
func skipSeparators(src []byte, i int) int {
	for i < len(src) && strings.IndexByte(" \t\r\n,:", src[i]) >= 0 {
		i++
	}
	return i
}

// lineCol is the 1-based line and byte column of offset i in src.
func lineCol(src []byte, i int) (line, col int) {
	before := src[:min(i, len(src))]
	line = bytes.Count(before, []byte("\n")) + 1
	return line, i - (bytes.LastIndexByte(before, '\n') + 1) + 1
}

// reAnchor finds the anchor named in YAML's "unknown anchor" error.
var reAnchor = lazyregexp.New(`unknown anchor '([^']*)' referenced`)

// placeLineless gives a position to a YAML error that came without one:
// the parser leaves the line out when it is the document's first line,
// and its "unknown anchor" error never has one (the alias is found here).
func placeLineless(p *Problem, src []byte) {
	if g := reAnchor.FindStringSubmatch(p.Msg); g != nil {
		if loc := regexp.MustCompile(`\*` + regexp.QuoteMeta(g[1]) + `\b`).FindIndex(src); loc != nil {
			p.Line, p.Col = lineCol(src, loc[0])
			return
		}
	}
	first := bytes.IndexFunc(src, func(r rune) bool { return r != '\n' && r != '\r' })
	p.Line, p.Col = lineCol(src, max(first, 0))
	p.Col = 1
}
