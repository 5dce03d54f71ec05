package changes

import (
	"testing"
)

// TestGitRotation runs one rotation per rule on a repository holding a.txt,
// b.txt, dir/c.txt and a .gitignore for *.log and build/, all committed.
func TestGitRotation(t *testing.T) {
	cases := []struct {
		name  string
		setup func(f *fixture) // the state before the rotation
		agent func(f *fixture)
		want  []string
	}{
		{name: "modify", agent: func(f *fixture) { f.write("a.txt", "one!\n") }, want: []string{"a.txt"}},
		{name: "modify in subdirectory", agent: func(f *fixture) { f.write("dir/c.txt", "3\n") }, want: []string{"dir/c.txt"}},
		{name: "same content rewritten and touched", agent: func(f *fixture) {
			f.write("a.txt", "one\n")
			f.touch("a.txt")
		}},
		{name: "edit then revert", agent: func(f *fixture) {
			f.write("a.txt", "changed\n")
			f.write("a.txt", "one\n")
			f.touch("a.txt")
		}},
		{name: "dirty file edited again", setup: func(f *fixture) { f.write("a.txt", "dirty\n") },
			agent: func(f *fixture) { f.write("a.txt", "dirtier\n") }, want: []string{"a.txt"}},
		{name: "dirty file touched only", setup: func(f *fixture) { f.write("a.txt", "dirty\n") },
			agent: func(f *fixture) { f.touch("a.txt") }},
		{name: "new untracked file", agent: func(f *fixture) { f.write("new/deep/n.txt", "n\n") }, want: []string{"new/deep/n.txt"}},
		{name: "new untracked directory with ignored files", agent: func(f *fixture) {
			f.write("newdir/x.txt", "x\n")
			f.write("newdir/sub/y.log", "ignored\n")
			f.write("newdir/build/z.txt", "ignored\n")
			f.write("logsonly/a.log", "ignored\n")
		}, want: []string{"newdir/x.txt"}},
		{name: "new ignored files", agent: func(f *fixture) {
			f.write("debug.log", "x\n")
			f.write("build/out.bin", "x\n")
		}},
		{name: "ignored file modified", setup: func(f *fixture) { f.write("debug.log", "x\n") },
			agent: func(f *fixture) { f.write("debug.log", "y\n") }},
		{name: "delete", agent: func(f *fixture) { f.remove("a.txt") }, want: []string{"a.txt"}},
		{name: "git rm", agent: func(f *fixture) { f.git("rm", "-q", "b.txt") }, want: []string{"b.txt"}},
		{name: "git rm --cached keeps an ignored copy", agent: func(f *fixture) {
			f.write(".gitignore", "*.log\nbuild/\nb.txt\n")
			f.git("rm", "-q", "--cached", "b.txt")
		}, want: []string{".gitignore", "b.txt"}},
		{name: "git rm --cached keeps an untracked copy", agent: func(f *fixture) {
			f.git("rm", "-q", "--cached", "b.txt")
		}},
		{name: "untracked file deleted", setup: func(f *fixture) { f.write("u.txt", "u\n") },
			agent: func(f *fixture) { f.remove("u.txt") }, want: []string{"u.txt"}},
		{name: "staged only", agent: func(f *fixture) {
			f.write("a.txt", "staged\n")
			f.git("add", "a.txt")
		}, want: []string{"a.txt"}},
		{name: "staged then worktree reverted", setup: func(f *fixture) {
			f.write("a.txt", "staged\n")
			f.git("add", "a.txt")
		}, agent: func(f *fixture) { f.write("a.txt", "one\n") }, want: []string{"a.txt"}},
		{name: "agent commits a new change", agent: func(f *fixture) {
			f.write("a.txt", "committed\n")
			f.write("z.txt", "new\n")
			f.commitAll("agent")
		}, want: []string{"a.txt", "z.txt"}},
		{name: "agent commits pre-existing dirty content", setup: func(f *fixture) {
			f.write("a.txt", "dirty\n")
			f.write("u.txt", "untracked\n")
			f.remove("b.txt")
		}, agent: func(f *fixture) { f.commitAll("agent") }},
		{name: "agent stages pre-existing dirty content", setup: func(f *fixture) { f.write("a.txt", "dirty\n") },
			agent: func(f *fixture) { f.git("add", "a.txt") }},
		{name: "agent commits part of pre-existing dirty content and edits the rest", setup: func(f *fixture) {
			f.write("a.txt", "dirty\n")
			f.write("b.txt", "dirty\n")
		}, agent: func(f *fixture) {
			f.git("commit", "-q", "-m", "a only", "a.txt")
			f.write("b.txt", "dirtier\n")
		}, want: []string{"b.txt"}},
		{name: "amend", setup: func(f *fixture) {
			f.write("b.txt", "second\n")
			f.commitAll("second")
		}, agent: func(f *fixture) {
			f.write("b.txt", "amended\n")
			f.git("commit", "-q", "-a", "--amend", "-m", "amended")
		}, want: []string{"b.txt"}},
		{name: "amend message only", agent: func(f *fixture) {
			f.git("commit", "-q", "--amend", "-m", "reworded")
		}},
		{name: "reset --hard to older commit", setup: func(f *fixture) {
			f.write("a.txt", "two\n")
			f.write("d.txt", "added\n")
			f.commitAll("second")
		}, agent: func(f *fixture) { f.git("reset", "-q", "--hard", "HEAD~1") }, want: []string{"a.txt", "d.txt"}},
		{name: "reset --hard drops dirty work", setup: func(f *fixture) { f.write("a.txt", "dirty\n") },
			agent: func(f *fixture) { f.git("reset", "-q", "--hard") }, want: []string{"a.txt"}},
		{name: "reset --soft keeps the content", setup: func(f *fixture) {
			f.write("a.txt", "two\n")
			f.commitAll("second")
		}, agent: func(f *fixture) { f.git("reset", "-q", "--soft", "HEAD~1") }},
		{name: "checkout another branch", setup: func(f *fixture) {
			f.git("checkout", "-q", "-b", "other")
			f.write("b.txt", "other\n")
			f.commitAll("other")
			f.git("checkout", "-q", "main")
		}, agent: func(f *fixture) { f.git("checkout", "-q", "other") }, want: []string{"b.txt"}},
		{name: "git mv", agent: func(f *fixture) { f.git("mv", "a.txt", "moved.txt") }, want: []string{"a.txt", "moved.txt"}},
		{name: "mv unstaged", agent: func(f *fixture) {
			f.write("dir/moved.txt", "one\n")
			f.remove("a.txt")
		}, want: []string{"a.txt", "dir/moved.txt"}},
		{name: "rename committed", agent: func(f *fixture) {
			f.git("mv", "dir", "renamed")
			f.git("commit", "-q", "-m", "rename")
		}, want: []string{"dir/c.txt", "renamed/c.txt"}},
		{name: "pre-existing staged rename committed", setup: func(f *fixture) { f.git("mv", "a.txt", "moved.txt") },
			agent: func(f *fixture) { f.git("commit", "-q", "-m", "rename") }},
		{name: "symlink created then retargeted", setup: func(f *fixture) { f.symlink("a.txt", "link") },
			agent: func(f *fixture) { f.symlink("b.txt", "link") }, want: []string{"link"}},
		{name: "committed symlink unchanged", setup: func(f *fixture) {
			f.symlink("a.txt", "link")
			f.commitAll("link")
			f.symlink("b.txt", "link") // dirty before the rotation
		}, agent: func(f *fixture) { f.commitAll("retarget") }},
		{name: ".ralph changes ignored", setup: func(f *fixture) { f.write(".ralph/state.json", "{}\n") },
			agent: func(f *fixture) {
				f.write(".ralph/state.json", `{"rotation":2}`)
				f.write(".ralph/logs/r2.log", "log\n")
			}},
		{name: ".ralph committed by the agent ignored", agent: func(f *fixture) {
			f.write(".ralph/state.json", "{}\n")
			f.commitAll("state")
		}},
		{name: "file named like .ralph in a subdirectory counts", agent: func(f *fixture) {
			f.write("dir/.ralph/x", "x\n")
		}, want: []string{"dir/.ralph/x"}},
		{name: "merge conflict resolved", setup: func(f *fixture) {
			f.git("checkout", "-q", "-b", "other")
			f.write("a.txt", "theirs\n")
			f.commitAll("theirs")
			f.git("checkout", "-q", "main")
			f.write("a.txt", "ours\n")
			f.commitAll("ours")
			f.gitMayFail("merge", "-q", "other") // conflicts
		}, agent: func(f *fixture) {
			f.write("a.txt", "resolved\n")
			f.git("add", "a.txt")
		}, want: []string{"a.txt"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newRepo(t)
			f.write("a.txt", "one\n")
			f.write("b.txt", "two\n")
			f.write("dir/c.txt", "three\n")
			f.write(".gitignore", "*.log\nbuild/\n")
			f.commitAll("init")
			if tc.setup != nil {
				tc.setup(f)
			}
			before := f.take()
			_, got := f.rotation(before, tc.agent)
			wantChanged(t, got, tc.want...)
		})
	}
}
