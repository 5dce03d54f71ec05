package engine

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/layers"
	"github.com/ralph-ci/ralph-ci/schema"
)

// The trusted commit skips the loop's own commits (a Ralph-Spec: trailer);
// the baseline takes the trusted content of what is committed as it is,
// keeps a person's uncommitted edit, holds a test the loop deleted at its
// trusted content and leaves out a file the loop's commits added.
func TestTrustedHashes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	root := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("check.sh", "go test ./...\n")
	write("a_test.go", "package a\n")
	write("b_test.go", "package a\n")
	run("init", "-q")
	run("add", "-A")
	run("commit", "-qm", "a person")
	trusted := trustedBase(context.Background(), root).commit
	write("check.sh", "exit 0\n")
	write("new_test.go", "package a\n")
	run("rm", "-q", "a_test.go")
	run("add", "-A")
	run("commit", "-qm", "a rotation", "-m", "Ralph-Spec: a.spec.md")
	if got := trustedBase(context.Background(), root).commit; got != trusted || got == "" {
		t.Fatalf("trusted commit %q, want %q", got, trusted)
	}
	write("b_test.go", "package a // a person's edit\n")

	e := &engine{root: root, log: zerolog.Nop()}
	const a, b = "a_test.go" + layers.TestsSuffix, "b_test.go" + layers.TestsSuffix
	wt := hashFiles(root, []string{"check.sh", b, "new_test.go" + layers.TestsSuffix})
	base := e.trustedHashes(context.Background(), trustedBase(context.Background(), root), schema.Criteria{}, maps.Clone(wt))
	atBase, err := contentHashes(context.Background(), root, trusted, []string{"check.sh", a})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case base["check.sh"] != atBase["check.sh"] || base["check.sh"] == wt["check.sh"]:
		t.Errorf("check.sh: the trusted content, not the loop's: %v", base)
	case base[b] != wt[b]:
		t.Errorf("b_test.go: a person's uncommitted edit is taken as it is: %v", base)
	case base[a] != atBase[a] || base[a] == "" || len(base) != 3:
		t.Errorf("a_test.go: deleted by the loop, held at its trusted content: %v", base)
	}
	if _, ok := base["new_test.go"+layers.TestsSuffix]; ok {
		t.Errorf("new_test.go: added by the loop, it is new: %v", base)
	}
	if got := e.hashFile("check.sh"); got != wt["check.sh"] {
		t.Errorf("working tree hash %q", got)
	}
}

// One walk of HEAD's first parents tells the trusted commit, whether it is
// HEAD, and the tree the verifier guard records: the trusted commit's, as
// git rev-parse gives it, before and after a loop's commit; nothing
// outside git, where gitHeadTree is "" as before. At HEAD, the baseline is
// the working tree's hashes without reading HEAD's contents, what reading
// them gives.
func TestTrustedBase(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	ctx := context.Background()
	root := t.TempDir()
	if b := trustedBase(ctx, root); b != (loopBase{}) || gitHeadTree(ctx, root, b) != "" {
		t.Fatalf("outside git: %+v, tree %q", b, gitHeadTree(ctx, root, b))
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for _, name := range []string{"check.sh", "a_test.go"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte("go test ./...\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "a person")
	first, firstTree := git("rev-parse", "HEAD"), git("rev-parse", "HEAD^{tree}")
	b := trustedBase(ctx, root)
	if b.commit != first || !b.head || b.tree != firstTree || gitHeadTree(ctx, root, b) != firstTree {
		t.Errorf("at the trusted commit: %+v, want %s and tree %s at HEAD", b, first, firstTree)
	}
	e := &engine{root: root, log: zerolog.Nop()}
	for name, body := range map[string]string{"check.sh": "exit 0\n", "b_test.go": "package a\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", "b_test.go")
	git("commit", "-qm", "a person's test")
	if err := os.Remove(filepath.Join(root, "a_test.go")); err != nil {
		t.Fatal(err)
	}
	b = trustedBase(ctx, root)
	const bTests = "b_test.go" + layers.TestsSuffix
	wt := hashFiles(root, []string{"check.sh", bTests})
	want := map[string]string{"check.sh": wt["check.sh"], bTests: wt[bTests], "a_test.go" + layers.TestsSuffix: ""}
	if got := e.trustedHashes(ctx, b, schema.Criteria{}, maps.Clone(wt)); !maps.Equal(got, want) {
		t.Errorf("at HEAD, an uncommitted edit, a committed file and a deleted test are taken as they are: %v, want %v", got, want)
	}
	// The same as reading HEAD's contents twice, as for any other commit.
	general := loopBase{commit: b.commit, tree: b.tree}
	if got := e.trustedHashes(ctx, general, schema.Criteria{}, maps.Clone(wt)); !maps.Equal(got, want) {
		t.Errorf("HEAD read as any trusted commit: %v, want %v", got, want)
	}
	second, secondTree := git("rev-parse", "HEAD"), git("rev-parse", "HEAD^{tree}")
	git("commit", "-qam", "a rotation", "-m", "Ralph-Spec: a.spec.md")
	b = trustedBase(ctx, root)
	if b.commit != second || b.head || b.tree != secondTree {
		t.Errorf("after the loop's commit: %+v, want %s and tree %s, not HEAD", b, second, secondTree)
	}
}

// hashFiles hashes items in the working tree at root, as the guard does.
func hashFiles(root string, items []string) map[string]string {
	return layers.Hash(tree{&engine{root: root}}, items)
}
