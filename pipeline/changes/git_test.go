package changes

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// initRepo is a repository holding a.txt and b.txt, committed.
func initRepo(t *testing.T, initArgs ...string) *fixture {
	f := newRepo(t, initArgs...)
	f.write("a.txt", "one\n")
	f.write("b.txt", "two\n")
	f.commitAll("init")
	return f
}

func TestConsecutiveRotationsModifyingTheSameFile(t *testing.T) {
	t.Parallel()
	f := initRepo(t)
	s0 := f.take()
	s1, got := f.rotation(s0, func(f *fixture) { f.write("a.txt", "rotation 1\n") })
	wantChanged(t, got, "a.txt")
	s2, got := f.rotation(s1, func(f *fixture) { f.write("a.txt", "rotation 2\n") })
	wantChanged(t, got, "a.txt")
	s3, got := f.rotation(s2, func(f *fixture) { f.commitAll("commit rotation 2") })
	wantChanged(t, got)
	s4, got := f.rotation(s3, func(f *fixture) {
		f.write("a.txt", "rotation 4\n")
		f.commitAll("rotation 4")
	})
	wantChanged(t, got, "a.txt")
	_, got = f.rotation(s4, func(*fixture) {})
	wantChanged(t, got)
}

func TestPathsWithSpacesNewlinesAndUnicode(t *testing.T) {
	t.Parallel()
	f := initRepo(t)
	names := []string{"dir with space/file name.txt", "new\nline.txt", "ünï/cödé 日本.txt", `back\slash "q".txt`, ":colon*star.txt"}
	s0 := f.take()
	s1, got := f.rotation(s0, func(f *fixture) {
		for _, n := range names {
			f.write(n, "x\n")
		}
	})
	wantChanged(t, got, ":colon*star.txt", "back\\slash \"q\".txt", "dir with space/file name.txt", "new\nline.txt", "ünï/cödé 日本.txt")
	s2, got := f.rotation(s1, func(f *fixture) { f.commitAll("odd names") })
	wantChanged(t, got)
	s3, got := f.rotation(s2, func(f *fixture) {
		f.write(names[1], "y\n")
		f.write(names[4], "y\n")
		f.remove(names[2])
		f.commitAll("edit odd names")
	})
	wantChanged(t, got, ":colon*star.txt", "new\nline.txt", "ünï/cödé 日本.txt")
	s4, got := f.rotation(s3, func(f *fixture) {
		f.write(names[1], "dirty\n")
		f.write(names[4], "dirty\n")
		f.write(names[3], "dirty\n")
	})
	wantChanged(t, got, ":colon*star.txt", "back\\slash \"q\".txt", "new\nline.txt")
	// Clean again: Changed looks their blobs up in HEAD with one git ls-tree.
	s5, got := f.rotation(s4, func(f *fixture) { f.git("checkout", "-q", "--", ".") })
	wantChanged(t, got, ":colon*star.txt", "back\\slash \"q\".txt", "new\nline.txt")
	// Listed before with their HEAD content (out of the index, same bytes in
	// the worktree), clean after: no change, if the look-up finds them.
	f.git("--literal-pathspecs", "rm", "-q", "--cached", "--", names[3], names[4])
	s6 := f.take()
	if len(s6.Files) != 2 || s6.Head != s5.Head {
		t.Fatalf("snapshot = %+v", s6)
	}
	_, got = f.rotation(s6, func(f *fixture) { f.git("--literal-pathspecs", "add", "--", names[3], names[4]) })
	wantChanged(t, got)
}

func TestUnbornHead(t *testing.T) {
	t.Parallel()
	f := newRepo(t)
	f.write("a.txt", "one\n")
	s0 := f.take()
	if s0.Kind != KindGit || s0.Head != "" {
		t.Fatalf("snapshot of unborn repository = %+v", s0)
	}
	s1, got := f.rotation(s0, func(f *fixture) { f.write("a.txt", "two\n") })
	wantChanged(t, got, "a.txt")
	s2, got := f.rotation(s1, func(f *fixture) { f.git("add", "a.txt") })
	wantChanged(t, got)
	s3, got := f.rotation(s2, func(f *fixture) { f.commitAll("first") }) // same content, now committed
	wantChanged(t, got)
	if s3.Head == "" || len(s3.Files) != 0 {
		t.Errorf("snapshot after the first commit = %+v", s3)
	}
	_, got = f.rotation(s3, func(f *fixture) {
		f.git("update-ref", "-d", "HEAD") // back to unborn, index kept
	})
	wantChanged(t, got)
	f2 := newRepo(t)
	s0 = f2.take()
	_, got = f2.rotation(s0, func(f *fixture) {
		f.write("b.txt", "b\n")
		f.commitAll("first")
	})
	wantChanged(t, got, "b.txt")
}

func TestSnapshotJSONRoundTrip(t *testing.T) {
	t.Parallel()
	f := initRepo(t)
	f.write("a.txt", "dirty\n")
	f.write("u.txt", "untracked\n")
	f.remove("b.txt")
	before := f.take()
	data, err := json.Marshal(before)
	if err != nil {
		t.Fatal(err)
	}
	var restored Snapshot
	if err := json.Unmarshal(data, &restored); err != nil {
		t.Fatal(err)
	}
	// A crash-safe record would hold data; the rotation reruns against it.
	f.write("c.txt", "new\n")
	f.commitAll("agent")
	after := f.take()
	wantChanged(t, f.changed(restored, after), "c.txt")
	if !strings.Contains(string(data), `"head":"`+before.Head+`"`) || len(before.Files) != 3 {
		t.Errorf("snapshot JSON = %s", data)
	}
}

func TestSnapshotHoldsOnlyDirtyPaths(t *testing.T) {
	t.Parallel()
	f := newRepo(t)
	for i := range 50 {
		f.write(filepath.Join("d", string(rune('a'+i%26)), strings.Repeat("f", i+1)), "x\n")
	}
	f.commitAll("init")
	f.write("d/a/f", "dirty\n")
	s := f.take()
	if len(s.Files) != 1 || s.Files["d/a/f"] == "" {
		t.Errorf("snapshot files = %v, want only d/a/f", s.Files)
	}
}

func TestUnmergedEntries(t *testing.T) {
	t.Parallel()
	f := initRepo(t)
	f.git("checkout", "-q", "-b", "other")
	f.write("a.txt", "theirs\n")
	f.commitAll("theirs")
	f.git("checkout", "-q", "main")
	f.write("a.txt", "ours\n")
	f.commitAll("ours")
	if err := f.gitMayFail("merge", "-q", "other"); err == nil {
		t.Fatal("merge did not conflict")
	}
	s0 := f.take()
	if _, ok := s0.Files["a.txt"]; !ok {
		t.Fatalf("conflicted a.txt missing from %v", s0.Files)
	}
	_, got := f.rotation(s0, func(f *fixture) { f.commitAll("merge with markers") })
	wantChanged(t, got)
}

func TestSubmoduleAndNestedRepository(t *testing.T) {
	t.Parallel()
	sub := initRepo(t)
	f := initRepo(t)
	f.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.dir, "sub")
	f.commitAll("add submodule")
	nested := &fixture{t: t, dir: filepath.Join(f.dir, "nested")}
	runIn(t, f.dir, "init", "-q", "nested")
	nested.write("n.txt", "n\n")
	s0 := f.take()
	s1, got := f.rotation(s0, func(*fixture) {})
	wantChanged(t, got)
	s2, got := f.rotation(s1, func(f *fixture) { f.write("sub/a.txt", "changed in submodule\n") })
	wantChanged(t, got, "sub")
	s3, got := f.rotation(s2, func(f *fixture) { f.write("sub/a.txt", "changed again\n") })
	wantChanged(t, got, "sub")
	s4, got := f.rotation(s3, func(f *fixture) {
		runIn(t, filepath.Join(f.dir, "sub"), "commit", "-q", "-am", "in sub")
	})
	wantChanged(t, got, "sub") // same files, but now a different commit
	s5, got := f.rotation(s4, func(f *fixture) { f.git("commit", "-q", "-am", "bump submodule") })
	wantChanged(t, got)
	_, got = f.rotation(s5, func(f *fixture) { nested.write("n.txt", "edited\n") })
	wantChanged(t, got, "nested")
}

func TestRootInSubdirectory(t *testing.T) {
	t.Parallel()
	f := initRepo(t)
	f.write("proj/x.txt", "x\n")
	f.write("proj/.ralph/state", "s\n")
	f.commitAll("proj")
	p := &fixture{t: t, dir: filepath.Join(f.dir, "proj")}
	s0 := p.take()
	s1, got := p.rotation(s0, func(*fixture) {
		f.write("a.txt", "outside the root\n")
		p.write(".ralph/state", "t\n")
		p.write("x.txt", "y\n")
		p.write("new.txt", "n\n")
		p.write("newdir/deep/n.txt", "n\n")
		f.write("outside/n.txt", "n\n")
	})
	wantChanged(t, got, "new.txt", "newdir/deep/n.txt", "x.txt")
	_, got = p.rotation(s1, func(*fixture) {
		f.write("proj/x.txt", "z\n")
		f.commitAll("all")
	})
	wantChanged(t, got, "x.txt")
}

func TestRootIgnoredByAnOuterRepository(t *testing.T) {
	t.Parallel()
	f := initRepo(t)
	f.write(".gitignore", "scratch/\n")
	f.commitAll("ignore scratch")
	f.write("scratch/proj/x.txt", "x\n")
	p := &fixture{t: t, dir: filepath.Join(f.dir, "scratch", "proj")}
	s0 := p.take()
	if s0.Kind != KindTree || len(s0.Files) != 1 {
		t.Fatalf("snapshot of an ignored root = %+v, want a tree snapshot", s0)
	}
	s1, got := p.rotation(s0, func(*fixture) { p.write("x.txt", "y\n") })
	wantChanged(t, got, "x.txt")
	s2, got := p.rotation(s1, func(*fixture) {
		p.git("init", "-q")
		p.commitAll("own repository")
	})
	wantChanged(t, got)
	if s2.Kind != KindGit || len(s2.Files) != 0 {
		t.Errorf("snapshot after git init = %+v, want a clean git snapshot", s2)
	}
}

// TestUntrackedFilesConfig checks that the user's status.showUntrackedFiles,
// which Take follows to share git's untracked cache, never hides a file.
func TestUntrackedFilesConfig(t *testing.T) {
	for _, mode := range []string{"", "no", "normal", "all"} {
		t.Run("mode="+mode, func(t *testing.T) {
			t.Parallel()
			f := initRepo(t)
			f.write(".gitignore", "*.log\n")
			f.commitAll("ignore logs")
			if mode != "" {
				f.git("config", "status.showUntrackedFiles", mode)
				f.git("config", "core.untrackedCache", "true")
			}
			f.write("old/u.txt", "u\n")
			s0 := f.take()
			s1, got := f.rotation(s0, func(f *fixture) {
				f.write("new/a.txt", "a\n")
				f.write("new/deep/b.log", "ignored\n")
				f.write("old/u.txt", "edited\n")
				runIn(t, f.dir, "init", "-q", "new/repo")
				f.write("new/repo/r.txt", "r\n")
				f.write(".ralph/run/1.log", "log\n")
			})
			wantChanged(t, got, "new/a.txt", "new/repo", "old/u.txt")
			_, got = f.rotation(s1, func(f *fixture) { f.write("new/repo/r.txt", "r2\n") })
			wantChanged(t, got, "new/repo")
		})
	}
}

func TestSHA256Repository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := (&fixture{t: t, dir: dir}).gitMayFail("init", "-q", "--object-format=sha256"); err != nil {
		t.Skipf("git without sha256 support: %v", err)
	}
	f := &fixture{t: t, dir: dir}
	f.write("a.txt", "one\n")
	f.commitAll("init")
	f.write("a.txt", "dirty\n")
	s0 := f.take()
	if len(s0.Head) != 64 || len(s0.Files["a.txt"]) != 64 {
		t.Fatalf("sha256 snapshot = %+v", s0)
	}
	_, got := f.rotation(s0, func(f *fixture) { f.commitAll("same content") })
	wantChanged(t, got)
}

func TestRepositoryCreatedAndRemoved(t *testing.T) {
	t.Parallel()
	f := newTree(t)
	f.write("a.txt", "one\n")
	f.write("b.txt", "two\n")
	s0 := f.take()
	if s0.Kind != KindTree {
		t.Fatalf("kind = %q, want tree", s0.Kind)
	}
	s1, got := f.rotation(s0, func(f *fixture) {
		f.git("init", "-q")
		f.write("a.txt", "changed\n")
		f.git("add", "a.txt")
		f.git("commit", "-q", "-m", "a only")
	})
	wantChanged(t, got, "a.txt")
	if s1.Kind != KindGit {
		t.Fatalf("kind = %q, want git", s1.Kind)
	}
	f.remove(".git")
	s2 := f.take()
	if s2.Kind != KindTree {
		t.Fatalf("kind after removing .git = %q, want tree", s2.Kind)
	}
	// The old HEAD went with .git, so the snapshots cannot be compared.
	if _, err := Changed(t.Context(), f.dir, s1, s2); err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("Changed after removing .git: err = %v, want not a git repository", err)
	}
}

func TestChangedRejectsBadSnapshots(t *testing.T) {
	t.Parallel()
	f := initRepo(t)
	good := f.take()
	for _, bad := range []Snapshot{
		{},
		{Kind: KindGit, Head: "--output=/tmp/x"},
		{Kind: KindTree, Head: good.Head},
		{Kind: KindGit, Files: map[string]string{"/etc/passwd": ""}},
	} {
		if _, err := Changed(t.Context(), f.dir, good, bad); err == nil {
			t.Errorf("Changed accepted %+v", bad)
		}
	}
	gone := good
	gone.Head = strings.Repeat("1", 40)
	if _, err := Changed(t.Context(), f.dir, gone, good); err == nil || !strings.Contains(err.Error(), "git diff-tree") {
		t.Errorf("Changed with a missing commit: err = %v, want a git diff-tree error", err)
	}
}

func TestTakeErrors(t *testing.T) {
	t.Parallel()
	if _, err := Take(t.Context(), filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Take of a missing directory succeeded")
	}
	f := initRepo(t)
	if err := os.WriteFile(filepath.Join(f.dir, ".git", "index"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Take(t.Context(), f.dir)
	if err == nil || !strings.Contains(err.Error(), "git status in "+f.dir) || !strings.Contains(err.Error(), "index") {
		t.Errorf("Take with a broken index: err = %v", err)
	}
}
