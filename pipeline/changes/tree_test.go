package changes

import (
	"testing"
)

// TestTreeRotation runs one rotation per rule on a directory that is not a git
// work tree, holding a.txt, src/b.go, a .ralphignore and files it excludes.
func TestTreeRotation(t *testing.T) {
	const ralphignore = "# generated\n*.log\n!keep.log\nbuild/\n/top-only.txt\n**/cache/**\nnode_modules\n"
	cases := []struct {
		name  string
		agent func(f *fixture)
		want  []string
	}{
		{name: "nothing"},
		{name: "modify", agent: func(f *fixture) { f.write("src/b.go", "package b // edited\n") }, want: []string{"src/b.go"}},
		{name: "same content rewritten and touched", agent: func(f *fixture) {
			f.write("a.txt", "one\n")
			f.touch("a.txt")
		}},
		{name: "edit then revert", agent: func(f *fixture) {
			f.write("a.txt", "two\n")
			f.write("a.txt", "one\n")
		}},
		{name: "new file", agent: func(f *fixture) { f.write("src/new.go", "package b\n") }, want: []string{"src/new.go"}},
		{name: "delete", agent: func(f *fixture) { f.remove("a.txt") }, want: []string{"a.txt"}},
		{name: "rename", agent: func(f *fixture) {
			f.write("renamed.txt", "one\n")
			f.remove("a.txt")
		}, want: []string{"a.txt", "renamed.txt"}},
		{name: "file pattern ignored", agent: func(f *fixture) {
			f.write("debug.log", "more\n")
			f.write("src/deep/trace.log", "x\n")
		}},
		{name: "negated pattern counts", agent: func(f *fixture) { f.write("keep.log", "kept!\n") }, want: []string{"keep.log"}},
		{name: "directory pattern ignored", agent: func(f *fixture) {
			f.write("build/out.bin", "new\n")
			f.write("src/build/x.o", "new\n")
		}},
		{name: "directory pattern does not match a file", agent: func(f *fixture) { f.write("src/build", "a file\n") },
			want: []string{"src/build"}},
		{name: "anchored pattern", agent: func(f *fixture) {
			f.write("top-only.txt", "ignored\n")
			f.write("src/top-only.txt", "counted\n")
		}, want: []string{"src/top-only.txt"}},
		{name: "double star", agent: func(f *fixture) {
			f.write("x/cache/y/z.bin", "ignored\n")
			f.write("node_modules/m/index.js", "ignored\n")
		}},
		{name: "changing .ralphignore counts and applies", agent: func(f *fixture) {
			f.write(".ralphignore", ralphignore+"src/\n")
			f.write("src/b.go", "package b // now ignored\n")
		}, want: []string{".ralphignore", "src/b.go"}},
		{name: ".ralph and .git never count", agent: func(f *fixture) {
			f.write(".ralph/state.json", "{}\n")
			f.write(".git/HEAD", "ref: refs/heads/x\n")
			f.write("src/.git", "gitdir: elsewhere\n")
		}},
		{name: "symlink", agent: func(f *fixture) { f.symlink("a.txt", "link") }, want: []string{"link"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newTree(t)
			f.write(".ralphignore", ralphignore)
			f.write("a.txt", "one\n")
			f.write("src/b.go", "package b\n")
			f.write("debug.log", "log\n")
			f.write("keep.log", "kept\n")
			f.write("build/out.bin", "bin\n")
			f.write(".ralph/state.json", "{\"rotation\":1}\n")
			before := f.take()
			if before.Kind != KindTree {
				t.Fatalf("kind = %q, want tree", before.Kind)
			}
			if tc.agent == nil {
				tc.agent = func(*fixture) {}
			}
			_, got := f.rotation(before, tc.agent)
			wantChanged(t, got, tc.want...)
		})
	}
}

func TestTreeSnapshotContents(t *testing.T) {
	t.Parallel()
	f := newTree(t)
	f.write(".ralphignore", "*.tmp\n")
	f.write("a.txt", "one\n")
	f.write("x.tmp", "tmp\n")
	f.write(".ralph/s", "s\n")
	s := f.take()
	// 5626abf0f72e58d7a153368ba57db4c673c0e171 is git's blob id of "one\n".
	if len(s.Files) != 2 || s.Files["a.txt"] != "5626abf0f72e58d7a153368ba57db4c673c0e171" || s.Files[".ralphignore"] == "" {
		t.Errorf("tree snapshot files = %v", s.Files)
	}
}

func TestIgnoreRules(t *testing.T) {
	t.Parallel()
	rules := parseIgnore("# comment\n\n*.o\n!main.o\nout/\n/root.txt\ndocs/*.md\na/**/z\nlogs/**\n\\#hash\ntrail  \n[!x]y\n")
	cases := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"x.o", false, true},
		{"deep/dir/x.o", false, true},
		{"main.o", false, false},
		{"out", true, true},
		{"src/out", true, true},
		{"out", false, false},
		{"root.txt", false, true},
		{"sub/root.txt", false, false},
		{"docs/a.md", false, true},
		{"docs/sub/a.md", false, false},
		{"a/z", false, true},
		{"a/b/c/z", false, true},
		{"logs", true, false},
		{"logs/x", false, true},
		{"#hash", false, true},
		{"trail", false, true},
		{"ay", false, true},
		{"xy", false, false},
		{"# comment", false, false},
	}
	for _, tc := range cases {
		if got := rules.ignored(tc.path, tc.isDir); got != tc.want {
			t.Errorf("ignored(%q, dir=%v) = %v, want %v", tc.path, tc.isDir, got, tc.want)
		}
	}
}
