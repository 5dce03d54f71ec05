package layering

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// opensFile matches a call that opens, creates, writes, reads or makes
// a folder following symbolic links: under the work tree (its .ralph/,
// lent to the agent, and every other file of it, which the agent can
// replace by a link to /etc/shadow while ralph-ci may be root) ralph-ci
// goes through safefile's *Under helpers (OpenUnder, ReadUnder,
// ReplaceUnder, MkdirUnder, RemoveUnder), which follow no link out of
// the folder and none at the last part, or safefile.Tree and ReadIn,
// which follow no link out of the work tree, instead.
var opensFile = regexp.MustCompile(`\bos\.(Create|OpenFile|WriteFile|ReadFile|CreateTemp|MkdirAll|Open|ReadDir)\(|\brenameio\.|\bsafefile\.(Read|ReadOptional|OpenRegular)\(`)

// notUnderTree lists, by "file: call", each such call under pipeline/
// that is allowed, with why: it is not under the work tree, or it cannot
// be redirected there.
var notUnderTree = map[string]string{
	"pipeline/engine/leftovers_linux.go: os.ReadFile(": "/proc/<pid>/environ",
	"pipeline/network/network.go: os.ReadFile(":        "/etc/resolv.conf",
	"pipeline/state/sys_unix.go: os.ReadFile(":         "/proc/<pid>/stat",
	"pipeline/deliver/ignored.go: os.CreateTemp(":      "the system's temporary folder, outside the work tree",
	"pipeline/state/atomic.go: os.CreateTemp(":         "O_CREATE|O_EXCL with a new random name: never opens a link; its folder is checked by callers (run.json's lock)",
	"pipeline/state/mutex.go: os.OpenFile(":            "O_CREATE|O_EXCL: open(2) refuses a link at the last part",
	"pipeline/state/lock.go: os.OpenFile(":             "O_CREATE|O_EXCL (run.json without hard links): open(2) refuses a link at the last part",
	"pipeline/changes/watcher.go: os.MkdirAll(":        "the watcher's barrier folder when it is outside the tree (inside, MkdirUnder makes it)",
	"pipeline/changes/watcher.go: os.OpenFile(":        "the watcher's barrier file when its folder is outside the tree (inside, OpenUnder makes it)",
	"pipeline/engine/leftovers_linux.go: os.ReadDir(":  "/proc",
	"pipeline/project/project.go: safefile.Read(":      "a config file the user names by an absolute path (one relative to the tree is read through safefile.ReadIn)",
	"pipeline/state/sys_unix.go: os.Open(":             "a folder opened to fsync it: nothing is read",
	"pipeline/state/mutex_flock.go: os.Open(":          "a folder opened to flock it: nothing is read",
	"pipeline/state/atomic.go: os.ReadDir(":            "the names of ralph-ci's own temporary files in .ralph/, to remove them: os.Remove removes a link, never follows it",
	"pipeline/deliver/push.go: os.MkdirAll(":           "the reports folder the user names (outside .ralph/ or checked by safefile.Inside)",
	"pipeline/deliver/shards.go: os.MkdirAll(":         "a shard's own state folder, which ralph-ci makes outside the work tree",
	"pipeline/shards/files.go: os.MkdirAll(":           "the integrated .ralph/ itself, before any file in it is written through MkdirUnder/ReplaceUnder",
}

// TestNoFollowingOpenUnderTheTree: no file of pipeline/ opens, writes or
// reads a file, or makes a folder, with a call that follows links, unless
// notUnderTree says why it may; and every entry of notUnderTree is still
// used. A new os.Create of a .ralph/ file, or a new safefile.Read or
// os.ReadFile of a file of the tree, fails here: use safefile's *Under
// helpers, or safefile.Tree and ReadIn.
func TestNoFollowingOpenUnderTheTree(t *testing.T) {
	root, _ := moduleRoot(t)
	found := map[string]bool{}
	var bad []string
	err := filepath.WalkDir(filepath.Join(root, "pipeline"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		s := bufio.NewScanner(f)
		for n := 1; s.Scan(); n++ {
			line := strings.TrimSpace(s.Text())
			if strings.HasPrefix(line, "//") {
				continue
			}
			for _, m := range opensFile.FindAllString(line, -1) {
				key := rel + ": " + m
				if _, ok := notUnderTree[key]; ok {
					found[key] = true
					continue
				}
				bad = append(bad, rel+":"+strconv.Itoa(n)+": "+m+" (use safefile's *Under helpers, or add it to notUnderTree with why it cannot be redirected)")
			}
		}
		return s.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
	for key := range notUnderTree {
		if !found[key] {
			t.Errorf("notUnderTree names %q, which no longer occurs: remove it", key)
		}
	}
}
