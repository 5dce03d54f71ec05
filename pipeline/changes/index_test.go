//go:build linux

package changes

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// commitLikeRalph commits the fixture's changes as ralph-ci's delivery
// does (every path but .ralph folders) and returns the new HEAD and what
// the commit changed, as git diff --cached --raw names it.
func (f *fixture) commitLikeRalph() (string, []Committed) {
	f.t.Helper()
	f.git("add", "--all", "--", ":(top)", ":(top,exclude,glob)**/.ralph/**")
	raw := f.git("diff", "--cached", "--raw", "-z", "--no-abbrev", "--no-renames")
	var committed []Committed
	parts := strings.Split(raw, "\x00")
	for i := 0; i+1 < len(parts); i += 2 {
		m := strings.Fields(strings.TrimPrefix(parts[i], ":"))
		c := Committed{Path: parts[i+1], ID: m[3], Link: m[1] == gitlinkMode}
		if strings.Trim(c.ID, "0") == "" {
			c.ID = ""
		}
		committed = append(committed, c)
	}
	f.git("commit", "-q", "-m", "rotation")
	return strings.TrimSpace(f.git("rev-parse", "HEAD")), committed
}

// listedByGit is what git ls-files --cached --others --exclude-standard
// lists, .ralph left out, sorted.
func (f *fixture) listedByGit() []string {
	var out []string
	for _, p := range strings.Split(f.git("ls-files", "-z", "--cached", "--others", "--exclude-standard"), "\x00") {
		if p != "" && !strings.HasPrefix(p, ".ralph/") {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	return out
}

// TestAfterCommitIsWhatTakeSees: the snapshot derived from ralph-ci's own
// commit holds the same content as a real Take after it, lists the same
// files (those git ls-files lists) and the same submodules.
func TestAfterCommitIsWhatTakeSees(t *testing.T) {
	f := newRepo(t)
	f.write(".gitignore", "/.ralph/\nignored.txt\n") // sub/.ralph is not ignored
	f.write("kept.txt", "kept\n")
	f.write("edited.txt", "one\n")
	f.write("gone.txt", "gone\n")
	f.commitAll("start")
	f.write("edited.txt", "two\n")
	f.remove("gone.txt")
	f.write("new/file.txt", "new\n")
	f.write("ignored.txt", "ignored\n")
	f.write("sub/.ralph/notes.md", "never committed\n")
	f.write(".ralph/state.json", "{}\n")
	pre := f.take()
	if listed, ok := pre.Listed(); !ok || !slices.Equal(listed, f.listedByGit()) {
		t.Fatalf("Take listed %q (known %v), git ls-files %q", listed, ok, f.listedByGit())
	}
	head, committed := f.commitLikeRalph()
	post := pre.AfterCommit(head, committed)
	real := f.take()
	if post.Head != real.Head {
		t.Fatalf("HEAD %s, Take sees %s", post.Head, real.Head)
	}
	wantChanged(t, f.changed(post, real))
	wantChanged(t, f.changed(real, post))
	listed, _ := post.Listed()
	if want, _ := real.Listed(); !slices.Equal(listed, want) || !slices.Equal(listed, f.listedByGit()) {
		t.Errorf("listed after the commit %q, Take lists %q", listed, want)
	}
	if post.Files["sub/.ralph/notes.md"] == "" {
		t.Error("the file left out of the commit is no longer listed as different from HEAD")
	}
	// The next rotation compares against it as against a real Take.
	f.write("edited.txt", "three\n")
	next := f.take()
	wantChanged(t, f.changed(post, next), "edited.txt")
}

// TestWatcherAdopt: once the caller adopts the snapshot its own commit
// left, the Watcher returns it without git, until the next event.
func TestWatcherAdopt(t *testing.T) {
	f := gitBase(t)
	w := watcherOn(f)
	fastPathOn(t, w)
	f.write("a.txt", "changed by the agent\n")
	pre, _ := f.wtake(w)
	head, committed := f.commitLikeRalph()
	w.Adopt(context.Background(), pre.AfterCommit(head, committed))
	n := w.fullTakes
	s, err := w.Take(context.Background())
	if err != nil || w.fullTakes != n || s.Head != head {
		t.Fatalf("after Adopt: %+v, %v, real Takes %d -> %d", s, err, n, w.fullTakes)
	}
	wantChanged(t, f.changed(s, f.take()))
	f.write("a.txt", "changed again\n")
	if s, real := f.wtake(w); !real || s.Head != head {
		t.Fatal("an event after Adopt did not make the next Take a real one")
	}
}

// TestListedIsWhatLsFilesLists: the files a Take lists, learnt from the
// index read as data and from git status, are the ones git ls-files
// --cached --others --exclude-standard lists: tracked files (an
// assume-unchanged one, a conflict's path once), untracked files alone and
// in untracked folders, an untracked nested repository as its folder, with
// untracked files shown one by one (status.showUntrackedFiles=all) or not,
// and no index read by git when it can be read as data.
func TestListedIsWhatLsFilesLists(t *testing.T) {
	for _, mode := range []string{"normal", "all"} {
		t.Run(mode, func(t *testing.T) {
			f := newRepo(t)
			f.git("config", "status.showUntrackedFiles", mode)
			f.write(".gitignore", "/.ralph/\nignored/\n")
			f.write("kept.txt", "kept\n")
			f.write("hidden.txt", "hidden\n")
			f.commitAll("start")
			f.git("update-index", "--assume-unchanged", "hidden.txt")
			f.write("loose.txt", "loose\n")
			f.write("new/deep/file.txt", "new\n")
			f.write("ignored/x.txt", "ignored\n")
			f.write(".ralph/state.json", "{}\n")
			runIn(t, f.dir, "init", "-q", "nested")
			f.write("nested/inside.txt", "inside\n")
			reads := indexReads.Load()
			s := f.take()
			if indexReads.Load() == reads {
				t.Error("the index was not read as data")
			}
			listed, ok := s.Listed()
			if want := f.listedByGit(); !ok || !slices.Equal(listed, want) {
				t.Fatalf("Take listed %q (known %v), git ls-files %q", listed, ok, want)
			}
		})
	}
}
