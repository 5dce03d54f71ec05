package changes

import (
	"fmt"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/git"
)

// ralphDir is ralph-ci's own state folder under the root; it never counts.
const ralphDir = ".ralph"

// isRalph reports whether the root-relative slash path p is in .ralph.
func isRalph(p string) bool {
	return p == ralphDir || strings.HasPrefix(p, ralphDir+"/")
}

// status is what takeGit learns from one git status --porcelain=v2 -z.
type status struct {
	head   string            // HEAD commit, "" when unborn
	files  map[string]string // content ids known without hashing ("" = no file)
	hash   []string          // paths to hash in the worktree; overrides files
	nested []string          // submodules with local changes to describe
	dirs   []string          // untracked directories, listed as one entry
	repos  []string          // untracked nested repositories to describe
	clean  map[string]string // submodules status did not report: their index id
	listed []string          // the files git tracks or would track (see Snapshot.Listed)
	others []string          // untracked files git does not ignore, nested repositories as "dir/"
	staged []Staged          // the paths whose index entry differs from HEAD's: HEAD's entry
	// unstaged tells that staged is not known: a conflict, or a root
	// below the top of the work tree (status sees only under it).
	unstaged bool
	links    []string // the submodules of the index
}

// parseStatus reads porcelain v2 -z output. Paths in it are relative to the
// top of the work tree; prefix is the root's path there, and every path
// returned is relative to the root.
func parseStatus(out []byte, prefix string) (status, error) {
	st := status{files: map[string]string{}, unstaged: prefix != ""}
	fields := strings.Split(string(out), "\x00")
	for i := 0; i < len(fields); i++ {
		line := fields[i]
		if line == "" {
			continue
		}
		var f []string
		switch line[0] {
		case '#':
			if oid, ok := strings.CutPrefix(line, "# branch.oid "); ok && oid != "(initial)" {
				if !git.IsID(oid) {
					return status{}, fmt.Errorf("bad HEAD id %q", oid)
				}
				st.head = oid
			}
			continue
		case '1': // 1 XY sub mH mI mW hH hI path
			f = strings.SplitN(line, " ", 9)
		case '2': // 2 XY sub mH mI mW hH hI Xscore path NUL origPath
			f = strings.SplitN(line, " ", 10)
			if i+1 >= len(fields) || len(f) != 10 {
				return status{}, fmt.Errorf("bad rename entry %q", line)
			}
			i++
			st.unstaged = true
			if orig, ok := st.rel(fields[i], prefix); ok && strings.ContainsRune(f[1], 'R') {
				st.files[orig] = "" // left the index; hashed below if untracked
			}
			f = append(f[:8], f[9])
		case 'u': // u XY sub m1 m2 m3 mW h1 h2 h3 path: conflict, hash the worktree
			if f = strings.SplitN(line, " ", 11); len(f) != 11 {
				return status{}, fmt.Errorf("bad unmerged entry %q", line)
			}
			st.unstaged = true
			if p, ok := st.rel(f[10], prefix); ok {
				st.hash = append(st.hash, p)
			}
			continue
		case '?':
			p, ok := st.rel(strings.TrimPrefix(line, "? "), prefix)
			if !ok {
				continue
			}
			if dir, isDir := strings.CutSuffix(p, "/"); isDir {
				st.dirs = append(st.dirs, dir)
			} else {
				st.hash = append(st.hash, p)
				st.others = append(st.others, p)
			}
			continue
		case '!':
			continue
		default:
			return status{}, fmt.Errorf("unknown entry %q", line)
		}
		if len(f) != 9 || len(f[1]) != 2 || len(f[2]) != 4 {
			return status{}, fmt.Errorf("bad entry %q", line)
		}
		p, ok := st.rel(f[8], prefix)
		if !ok {
			continue
		}
		x, y, sub, index := f[1][0], f[1][1], f[2], f[7]
		if x != '.' { // 1 XY sub mH mI mW hH hI path: HEAD's mode and id
			h := Staged{Path: f[8]}
			if f[3] != "000000" {
				h.Mode, h.ID = f[3], f[6]
			}
			st.staged = append(st.staged, h)
		}
		switch {
		case x == 'D' || y == 'D': // gone from the index or the worktree
			st.files[p] = "" // a "?" entry for an untracked copy is hashed later
		case sub[0] == 'S' && (sub != "S..." || y != '.'):
			st.files[p] = index
			st.nested = append(st.nested, p)
		case y == '.': // the worktree matches the index
			st.files[p] = index
		default:
			st.hash = append(st.hash, p)
		}
	}
	return st, nil
}

// gitlinkMode is the index mode of a submodule.
const gitlinkMode = "160000"

// addGitlink adds the submodule at path p (from the top of the work tree),
// recorded in the index as commit id, to the submodules to describe, unless
// git status already reported it. Status runs with --ignore-submodules=dirty,
// so that git starts no process inside a submodule (where the agent owns the
// configuration): it reports a submodule whose checked-out or recorded commit
// changed, but never one with only dirty files. Every submodule is therefore
// described here, by Take in the submodule, through the doorway.
func (st *status) addGitlink(p, id, prefix string) {
	p, ok := st.rel(p, prefix)
	if !ok || !git.IsID(id) {
		return
	}
	if _, known := st.files[p]; known {
		return
	}
	for _, h := range st.hash {
		if h == p {
			return
		}
	}
	st.files[p] = id
	st.nested = append(st.nested, p)
	if st.clean == nil {
		st.clean = map[string]string{}
	}
	st.clean[p] = id
}

// rel turns a path from git status into a root-relative one; ok is false for
// paths outside the root or inside .ralph.
func (st *status) rel(p, prefix string) (string, bool) {
	p, ok := strings.CutPrefix(p, prefix)
	if !ok || p == "" || isRalph(strings.TrimSuffix(p, "/")) {
		return "", false
	}
	return p, true
}
