package discovery

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func paths(specs []Spec) string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Path)
	}
	return strings.Join(out, " ")
}

func TestFindOrderPromptFirstThenByPath(t *testing.T) {
	root := t.TempDir()
	write(t, root,
		"specs/b.spec.md", "specs/a.spec.md", "specs/sub/deep/c.spec.md",
		".ralph/specs/z.spec.md", ".ralph/specs/nested/y.spec.md",
		"PROMPT.md", "specs/notes.md", "specs/a.spec.md.bak", "other/x.spec.md", "000-a.spec.md")
	specs, err := Find(root, Default)
	if err != nil {
		t.Fatal(err)
	}
	// PROMPT.md sorts as 000-prompt (always first) even though ".ralph/"
	// sorts before "0"; files outside the spec folders are not specs.
	want := "PROMPT.md .ralph/specs/nested/y.spec.md .ralph/specs/z.spec.md specs/a.spec.md specs/b.spec.md specs/sub/deep/c.spec.md"
	if got := paths(specs); got != want {
		t.Errorf("order:\n got %s\nwant %s", got, want)
	}
	if p := specs[0]; !p.Prompt || p.Name != PromptName {
		t.Errorf("prompt spec = %+v", p)
	}
}

func TestFindSpecDirsOnlyAndNoPrompt(t *testing.T) {
	root := t.TempDir()
	write(t, root, "specs/one.spec.md")
	specs, err := Find(root, Default)
	if err != nil || paths(specs) != "specs/one.spec.md" {
		t.Fatalf("%v %v", paths(specs), err)
	}
}

func TestFindSinglePromptIsAMatrixOfOne(t *testing.T) {
	root := t.TempDir()
	write(t, root, "PROMPT.md")
	specs, err := Find(root, Default)
	if err != nil || len(specs) != 1 || specs[0].Key != KeyFor("000-prompt", "PROMPT.md") {
		t.Fatalf("%+v %v", specs, err)
	}
}

func TestFindNoSpecsIsAHelpfulError(t *testing.T) {
	_, err := Find(t.TempDir(), Default)
	var ns *NoSpecsError
	if !errors.As(err, &ns) {
		t.Fatalf("err = %v, want NoSpecsError", err)
	}
	want := "no specs found (looked for PROMPT.md, .ralph/specs/**/*.spec.md, specs/**/*.spec.md): write the work to do in PROMPT.md, or add specs/NAME.spec.md"
	if err.Error() != want {
		t.Errorf("message:\n got %s\nwant %s", err, want)
	}
}

func TestFindOverlappingDirsListEachSpecOnce(t *testing.T) {
	root := t.TempDir()
	write(t, root, "specs/a.spec.md", "specs/sub/b.spec.md")
	specs, err := Find(root, Options{Dirs: []string{"specs", "specs/sub"}})
	if err != nil || paths(specs) != "specs/a.spec.md specs/sub/b.spec.md" {
		t.Fatalf("%s %v", paths(specs), err)
	}
}

func TestKeysAreNamePlusHashOfFullPath(t *testing.T) {
	root := t.TempDir()
	write(t, root, "specs/api.spec.md", "specs/v2/api.spec.md")
	specs, err := Find(root, Default)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("specs/api.spec.md"))
	if want := "api.spec-" + hex.EncodeToString(sum[:])[:6]; specs[0].Key != want {
		t.Errorf("key = %s, want %s", specs[0].Key, want)
	}
	if specs[0].Name != specs[1].Name || specs[0].Key == specs[1].Key {
		t.Errorf("same names must get different keys: %+v", specs)
	}
	if len(specs[0].Key) != len("api.spec-")+6 {
		t.Errorf("hash is 6 hex chars: %s", specs[0].Key)
	}
}

func TestContentHashChangesWithContent(t *testing.T) {
	root := t.TempDir()
	write(t, root, "specs/a.spec.md")
	before, _ := Find(root, Default)
	if err := os.WriteFile(filepath.Join(root, "specs/a.spec.md"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, _ := Find(root, Default)
	sum := sha256.Sum256([]byte("changed"))
	if before[0].Hash == after[0].Hash || after[0].Hash != hex.EncodeToString(sum[:]) {
		t.Errorf("hash %s -> %s", before[0].Hash, after[0].Hash)
	}
}
