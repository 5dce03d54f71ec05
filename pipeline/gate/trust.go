package gate

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/project"
)

// Which config is trusted to say who may approve. On a pull request the
// checked-out repository is the pull request's own, so a config in it
// could name its author as an approver: the channel reads the github
// section again from the pull request's base commit (ApprovalConfig says
// where), and the spec files too, so that a pull request may raise a
// spec's tier but not lower it (RepoPrefix says where they are).

// ApprovalConfig says where, on a pull request, the github section that
// decides who may approve comes from. The checked-out repository is the
// pull request's, so a config in it is read again from the base commit:
// files are its paths relative to the repository root (the nearest
// directory above root with a .git), the one loaded first, then, when it
// was found at the root rather than named (discovered), the other names it
// may have there, so that renaming it in the pull request does not lose
// the base's settings. A config outside the repository (not under its
// root, or inside another git checkout within it, as the base branch
// checked out beside the head in .ralph-base/) did not come from the pull
// request and is trusted as given. git never checks out a .git entry from
// a commit, so a pull request cannot make its files look like another
// checkout.
func ApprovalConfig(root, configPath string, discovered bool) (files []string, trusted bool) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, false
	}
	file := configPath
	if !filepath.IsAbs(file) {
		file = filepath.Join(absRoot, file)
	}
	file = filepath.Clean(file)
	top := repoTop(absRoot)
	rel, err := filepath.Rel(top, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, true // outside the repository
	}
	for d := filepath.Dir(file); d != top && strings.HasPrefix(d, top); d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return nil, true // another checkout inside it
		}
	}
	rel = filepath.ToSlash(rel)
	files = []string{rel}
	if discovered {
		dir := path.Dir(rel)
		for _, name := range project.ConfigNames {
			if f := path.Join(dir, name); f != rel {
				files = append(files, f)
			}
		}
	}
	return files, false
}

// RepoPrefix is the directory of root in its repository (the nearest
// directory above it with a .git), slash-separated with a trailing slash,
// "" at the repository's top.
func RepoPrefix(root string) string {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return ""
	}
	top := repoTop(absRoot)
	rel, err := filepath.Rel(top, absRoot)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return ""
	}
	return filepath.ToSlash(rel) + "/"
}

// repoTop is the nearest directory at or above absRoot with a .git, else
// absRoot.
func repoTop(absRoot string) string {
	for d := absRoot; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return absRoot // no repository above root: root is its top
		}
	}
}
