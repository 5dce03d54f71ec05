package engine

import (
	"bytes"
	"io/fs"
	"os/exec"
	"path/filepath"
)

// listFiles lists the repository's files, slash-separated and relative to
// root: those git tracks or would track (not ignored), or, outside a git
// work tree, every file but .git, .ralph, node_modules and vendor.
func listFiles(root string) []string {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		var files []string
		for _, f := range bytes.Split(out, []byte{0}) {
			if len(f) > 0 && !bytes.HasPrefix(f, []byte(".ralph/")) {
				files = append(files, string(f))
			}
		}
		return files
	}
	var files []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".ralph", "node_modules", "vendor":
				return filepath.SkipDir
			}
			return nil
		}
		if rel, err := filepath.Rel(root, p); err == nil && d.Type().IsRegular() {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return files
}
