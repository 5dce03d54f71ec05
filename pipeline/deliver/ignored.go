package deliver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Ignore rules the agent changed decide nothing about what is committed.
// The tracked files are the files git tracks plus the untracked files git
// does not ignore (DESIGN.md), and the rules that decide it are those of
// the commit the rotation started from: a rotation that changes a
// .gitignore gets the files its new rules ignore but the old rules did
// not (and that are in the work tree) staged anyway, so that the tree the
// verification judges, and the commit, hold every file the verification
// could read that the trusted rules do not ignore. The new rules take
// effect from the next rotation on. A claim is not rejected for it: an
// honest new rule (build/ after a build) is accepted, its files committed
// once; an agent that hides its work behind a rule of its own gets that
// work committed, where the verdict can be checked.

// touchesIgnore tells whether a rotation's changed paths include a
// .gitignore file: only then do the rules need a second look.
func touchesIgnore(changed []string) bool {
	for _, p := range changed {
		if path.Base(p) == ".gitignore" {
			return true
		}
	}
	return false
}

// OldRules turns the .gitignore files of a commit (path relative to the
// work tree's top to content) into one exclude file, as git's
// --exclude-from reads it (patterns relative to the top): each pattern of
// dir/.gitignore rebased onto dir, the files of shallower folders first,
// so that, as in git, a deeper file's rule wins. Comments and blank lines
// are dropped.
func OldRules(files map[string]string) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		di, dj := strings.Count(names[i], "/"), strings.Count(names[j], "/")
		if di != dj {
			return di < dj
		}
		return names[i] < names[j]
	})
	var b strings.Builder
	for _, n := range names {
		dir := path.Dir(n)
		if dir == "." {
			dir = ""
		}
		for _, line := range strings.Split(files[n], "\n") {
			if p, ok := rebaseRule(dir, strings.TrimSuffix(line, "\r")); ok {
				b.WriteString(p)
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// rebaseRule is one line of dir/.gitignore as a pattern relative to the
// top; ok is false for a comment or a blank line.
func rebaseRule(dir, line string) (string, bool) {
	if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
		return "", false
	}
	neg := ""
	if strings.HasPrefix(line, "!") {
		neg, line = "!", line[1:]
	}
	if dir == "" {
		return neg + line, true
	}
	d := globEscape(dir)
	if strings.Contains(strings.TrimSuffix(line, "/"), "/") {
		// Anchored to its folder: "/x", "x/y".
		return neg + d + "/" + strings.TrimPrefix(line, "/"), true
	}
	// A name matched at any depth below its folder.
	return neg + d + "/**/" + line, true
}

// globEscape escapes what a folder's name holds that a pattern would read
// as a wildcard.
func globEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(s)
}

// NewlyIgnored are the paths of now that are not in old: the untracked
// files the work tree's rules ignore that the old rules did not.
func NewlyIgnored(now, old []string) []string {
	was := make(map[string]bool, len(old))
	for _, p := range old {
		was[p] = true
	}
	var out []string
	for _, p := range now {
		if p != "" && !isRalph(p) && !was[p] {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// ignoredPaths lists the untracked files git ignores under the exclude
// options given (args), .ralph folders left out.
func ignoredPaths(ctx context.Context, g Git, args ...string) ([]string, error) {
	a := append([]string{"ls-files", "-z", "--others", "--ignored"}, args...)
	a = append(append(a, "--"), commitPaths...)
	out, err := g.RunInput(ctx, nil, a...)
	if err != nil {
		return nil, err
	}
	var ps []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			ps = append(ps, p)
		}
	}
	return ps, nil
}

// rulesOf reads the .gitignore files of commit (path to content).
func rulesOf(ctx context.Context, g Git, commit string) (map[string]string, error) {
	files := map[string]string{}
	if commit == "" {
		return files, nil
	}
	out, err := g.RunInput(ctx, nil, "ls-tree", "-r", "-z", "--full-tree", "--name-only", commit)
	if err != nil {
		return nil, err
	}
	var names []string
	var in bytes.Buffer
	for _, p := range strings.Split(string(out), "\x00") {
		if path.Base(p) == ".gitignore" && !strings.ContainsAny(p, "\n") {
			names = append(names, p)
			fmt.Fprintf(&in, "%s:%s\n", commit, p)
		}
	}
	if len(names) == 0 {
		return files, nil
	}
	raw, err := g.RunInput(ctx, in.Bytes(), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	r := bufio.NewReader(bytes.NewReader(raw))
	for _, n := range names {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("read %s:%s: %w", commit, n, err)
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			return nil, fmt.Errorf("read %s:%s: git cat-file printed %q", commit, n, strings.TrimSpace(header))
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("read %s:%s: size %q: %w", commit, n, f[2], err)
		}
		body := make([]byte, size+1)
		if _, err := io.ReadFull(r, body); err != nil {
			return nil, fmt.Errorf("read %s:%s: %w", commit, n, err)
		}
		if f[1] == "blob" {
			files[n] = string(body[:size])
		}
	}
	return files, nil
}

// stageNewlyIgnored stages (git add --force) the files the work tree's
// ignore rules ignore that the rules of since did not, and returns them.
func stageNewlyIgnored(ctx context.Context, g Git, since string) ([]string, error) {
	now, err := ignoredPaths(ctx, g, "--exclude-standard")
	if err != nil || len(now) == 0 {
		return nil, err
	}
	files, err := rulesOf(ctx, g, since)
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp("", "ralph-ci-rules-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.WriteString(OldRules(files))
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		return nil, fmt.Errorf("write the rules of %s: %w", since, errors.Join(werr, cerr))
	}
	// --exclude-standard reads info/exclude (ralph-ci's, empty) and the
	// work tree's .gitignore files; the empty --exclude-per-directory after
	// it turns the latter off, and the old rules stand in.
	old, err := ignoredPaths(ctx, g, "--exclude-standard", "--exclude-per-directory=", "--exclude-from="+tmp.Name())
	if err != nil {
		return nil, err
	}
	added := NewlyIgnored(now, old)
	if len(added) == 0 {
		return nil, nil
	}
	var spec bytes.Buffer
	for _, p := range added {
		spec.WriteString(":(top,literal)" + p + "\x00")
	}
	if _, err := g.RunInput(ctx, spec.Bytes(), "add", "--force", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
		return nil, err
	}
	return added, nil
}
