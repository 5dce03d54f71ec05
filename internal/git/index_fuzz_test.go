package git

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// indexSeed is an index git wrote, and the length of its checksum.
type indexSeed struct {
	raw     []byte
	sumSize int
}

// indexSeeds makes real indexes with git: versions 2, 3 (a skip-worktree
// and an intent-to-add entry) and 4, sha1 and sha256.
func indexSeeds(t testing.TB) []indexSeed {
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	var seeds []indexSeed
	for _, format := range []string{"sha1", "sha256"} {
		for _, version := range []string{"2", "3", "4"} {
			dir := t.TempDir()
			person(t, dir, "init", "-q", "-b", "main", "--object-format="+format)
			for _, p := range []string{"a.txt", "dir/b.txt", "dir/deeper/c.txt", "skipped"} {
				writeFile(t, filepath.Join(dir, p), p)
			}
			person(t, dir, "add", "-A")
			writeFile(t, filepath.Join(dir, "new.txt"), "new")
			person(t, dir, "add", "-N", "new.txt")
			if version != "2" {
				person(t, dir, "update-index", "--skip-worktree", "skipped")
			}
			person(t, dir, "update-index", "--index-version", version)
			raw, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			seeds = append(seeds, indexSeed{raw, map[string]int{"sha1": 20, "sha256": 32}[format]})
		}
	}
	return seeds
}

// FuzzReadIndex: the index is in the agent's reach, so parseIndex takes
// any bytes without panicking, and never returns more entries than the
// file can hold (the header's count is the agent's to write) nor an entry
// without a path. With the checksum zeroed (git's index.skipHash), the
// fuzzer reaches past the checksum into the entries and extensions.
func FuzzReadIndex(f *testing.F) {
	for _, seed := range indexSeeds(f) {
		f.Add(seed.raw)
		zeroed := append([]byte(nil), seed.raw...)
		clear(zeroed[len(zeroed)-seed.sumSize:])
		f.Add(zeroed)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, idLen := range []int{40, 64} {
			entries, err := parseIndex(raw, idLen)
			if err != nil {
				continue
			}
			if min := 40 + idLen/2 + 2 + 2; len(entries) > len(raw)/min {
				t.Fatalf("%d entries from %d bytes", len(entries), len(raw))
			}
			for _, e := range entries {
				if e.Path == "" || len(e.ID) != idLen {
					t.Fatalf("entry %+v", e)
				}
			}
		}
	})
}

// TestReadIndexFollowsNoLinkOut: the agent, lent the tree, makes .git/index
// a link to a file outside the git folder (as root, one only root can
// read); ReadIndex refuses it instead of reading what it leads to, even
// when that is a valid index.
func TestReadIndexFollowsNoLinkOut(t *testing.T) {
	seed := indexSeeds(t)[0].raw
	dir := t.TempDir()
	person(t, dir, "init", "-q", "-b", "main")
	outside := filepath.Join(t.TempDir(), "secret-index")
	if err := os.WriteFile(outside, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(dir, ".git", "index")
	if err := os.Symlink(outside, index); err != nil {
		t.Fatal(err)
	}
	entries, err := ReadIndex(dir, 40)
	if !errors.Is(err, safefile.ErrLeavesTree) {
		t.Fatalf("ReadIndex through a link out of the git folder: %d entries, error %v; want %v", len(entries), err, safefile.ErrLeavesTree)
	}
}
