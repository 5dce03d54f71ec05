package git

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadIndexIsWhatLsFilesLists: ReadIndex reads what git ls-files -z -v
// --stage lists (path, mode, id, stage, the assume-unchanged and
// skip-worktree tags) from indexes of versions 2, 3 and 4, sha1 and
// sha256, with a conflict, a submodule, a link and the untracked cache's
// extension; a split index, a corrupt one and a truncated one are
// refused, so that the caller asks git.
func TestReadIndexIsWhatLsFilesLists(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		for _, version := range []string{"2", "3", "4"} {
			t.Run(format+"/v"+version, func(t *testing.T) {
				t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
				t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
				dir := t.TempDir()
				person(t, dir, "init", "-q", "-b", "main", "--object-format="+format)
				for _, p := range []string{"a.txt", "dir/b.txt", "dir/deeper/c.txt", "dir/deeper/cc.txt", "hidden", "skipped", "z\nnewline"} {
					writeFile(t, filepath.Join(dir, p), p)
				}
				if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
					t.Fatal(err)
				}
				person(t, dir, "add", "-A")
				id := person(t, dir, "hash-object", "-w", "--stdin")
				person(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("1", len(id))+",sub")
				person(t, dir, "update-index", "--assume-unchanged", "hidden")
				if version != "2" {
					person(t, dir, "update-index", "--skip-worktree", "skipped")
				}
				person(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
				// A conflict: three stages of one path.
				blob := person(t, dir, "hash-object", "-w", "a.txt")
				conflict := fmt.Sprintf("0 %s\tconflict\n100644 %s 1\tconflict\n100644 %s 2\tconflict\n100755 %s 3\tconflict\n", strings.Repeat("0", len(blob)), blob, blob, blob)
				indexInfo(t, dir, conflict)
				person(t, dir, "-c", "core.untrackedCache=true", "update-index", "--index-version", version, "--untracked-cache")
				person(t, dir, "-c", "core.untrackedCache=true", "status", "--porcelain")
				want := person(t, dir, "ls-files", "-z", "-v", "--stage")
				entries, err := ReadIndex(dir, len(blob))
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, e := range entries {
					tag := "H"
					switch {
					case e.Stage != 0:
						tag = "M"
					case e.SkipWorktree:
						tag = "S"
					}
					if e.AssumeUnchanged {
						tag = strings.ToLower(tag)
					}
					got = append(got, fmt.Sprintf("%s %s %s %d\t%s", tag, e.Mode, e.ID, e.Stage, e.Path))
				}
				if g := strings.Join(got, "\x00"); g != strings.TrimSuffix(want, "\x00") {
					t.Fatalf("ReadIndex:\n%q\ngit ls-files:\n%q", g, want)
				}
			})
		}
	}
	t.Run("refused", func(t *testing.T) {
		t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
		t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
		dir := t.TempDir()
		person(t, dir, "init", "-q")
		writeFile(t, filepath.Join(dir, "a"), "a")
		person(t, dir, "add", "a")
		index := filepath.Join(dir, ".git", "index")
		raw, err := os.ReadFile(index)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ReadIndex(dir, 40); err != nil {
			t.Fatal(err)
		}
		bad := append([]byte{}, raw...)
		bad[20] ^= 1
		if _, err := parseIndex(bad, 40); err == nil {
			t.Error("an index whose checksum does not match was read")
		}
		if _, err := parseIndex(raw[:len(raw)-30], 40); err == nil {
			t.Error("a truncated index was read")
		}
		person(t, dir, "update-index", "--split-index")
		if _, err := ReadIndex(dir, 40); !errors.Is(err, ErrIndexUnsupported) {
			t.Errorf("a split index: %v, want ErrIndexUnsupported", err)
		}
		if err := os.Remove(index); err != nil {
			t.Fatal(err)
		}
		if entries, err := ReadIndex(dir, 40); err != nil || len(entries) != 0 {
			t.Errorf("no index: %v, %v; want none", entries, err)
		}
	})
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func indexInfo(t *testing.T, dir, info string) {
	t.Helper()
	cmd := exec.Command("git", "update-index", "--index-info")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(info)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git update-index --index-info: %v\n%s", err, out)
	}
}
