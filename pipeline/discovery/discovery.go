// Package discovery finds the spec files of a repository, in the order the
// multi-spec rules give: PROMPT.md first (as 000-prompt), then every
// *.spec.md under .ralph/specs/ and specs/, sorted by relative path.
package discovery

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// PromptName is the name PROMPT.md takes in per-spec file names; it sorts
// as "000-prompt.spec.md", before every other spec.
const PromptName = "000-prompt"

// Spec is one discovered spec file.
type Spec struct {
	Path string // relative to the repo root, slash-separated
	Name string // file name without ".md"; PromptName for the prompt file
	Key  string // "{Name}-{hash6}": names its handoff and history files
	Hash string // sha256 of the content, hex
	// Prompt is true for the root prompt file (PROMPT.md).
	Prompt bool
}

// Options says where to look; the zero value is not useful, see Default.
type Options struct {
	Prompt string   // the root prompt file, e.g. "PROMPT.md"
	Dirs   []string // folders searched recursively for *.spec.md
}

// Default are the locations of the multi-spec rules.
var Default = Options{Prompt: "PROMPT.md", Dirs: []string{".ralph/specs", "specs"}}

// NoSpecsError is returned when no spec exists; its message says how to
// add one.
type NoSpecsError struct{ Options Options }

func (e *NoSpecsError) Error() string {
	var where []string
	if e.Options.Prompt != "" {
		where = append(where, e.Options.Prompt)
	}
	for _, d := range e.Options.Dirs {
		where = append(where, d+"/**/*.spec.md")
	}
	return fmt.Sprintf("no specs found (looked for %s): write the work to do in %s, or add specs/NAME.spec.md",
		strings.Join(where, ", "), cmp.Or(e.Options.Prompt, "PROMPT.md"))
}

// Find discovers the specs under root. It returns a *NoSpecsError when
// there are none.
func Find(root string, opts Options) ([]Spec, error) {
	seen := map[string]bool{}
	var specs []Spec
	if opts.Prompt != "" {
		p := filepath.Join(root, filepath.FromSlash(opts.Prompt))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			s, err := load(root, path.Clean(opts.Prompt), true)
			if err != nil {
				return nil, err
			}
			specs = append(specs, s)
			seen[s.Path] = true
		}
	}
	for _, dir := range opts.Dirs {
		base := filepath.Join(root, filepath.FromSlash(dir))
		err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && p == base {
					return fs.SkipDir
				}
				return err
			}
			if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".spec.md") {
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if seen[rel] {
				return nil
			}
			seen[rel] = true
			s, err := load(root, rel, false)
			if err != nil {
				return err
			}
			specs = append(specs, s)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("discover specs in %s: %w", dir, err)
		}
	}
	if len(specs) == 0 {
		return nil, &NoSpecsError{Options: opts}
	}
	sort.SliceStable(specs, func(i, j int) bool { return Less(specs[i], specs[j]) })
	return specs, nil
}

// Less orders specs: the prompt file first, then by relative path.
func Less(a, b Spec) bool {
	if a.Prompt != b.Prompt {
		return a.Prompt
	}
	return a.Path < b.Path
}

func load(root, rel string, prompt bool) (Spec, error) {
	data, err := safefile.Read(filepath.Join(root, filepath.FromSlash(rel)), safefile.SpecLimit)
	if err != nil {
		return Spec{}, fmt.Errorf("read spec: %w", err)
	}
	name := strings.TrimSuffix(path.Base(rel), ".md")
	if prompt {
		name = PromptName
	}
	sum := sha256.Sum256(data)
	return Spec{Path: rel, Name: name, Key: KeyFor(name, rel), Hash: hex.EncodeToString(sum[:]), Prompt: prompt}, nil
}

// KeyFor is "{name}-{hash6}", hash6 being the first 6 hex characters of
// the sha256 of the full relative path: specs with the same name in
// different folders get different keys.
func KeyFor(name, relPath string) string {
	sum := sha256.Sum256([]byte(relPath))
	return name + "-" + hex.EncodeToString(sum[:])[:6]
}
