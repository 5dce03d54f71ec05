// Package gitauth keeps the job's git credential away from the agents and
// hands it to ralph-ci's own git processes only.
//
// actions/checkout persists its token as an http.<url>.extraheader in
// .git/config (or in a file .git/config includes): any process in the
// checkout could read it or push with it. [Hide] takes those entries out
// of the config files for as long as ralph-ci runs, and puts them back
// when it is done (a kill -9 leaves them out, which fails closed).
//
// ralph-ci's own fetch and push take the token through
// [Hidden.Credentials] or [Credential] handed to internal/git, which gives
// it to that one git process through GIT_CONFIG_COUNT/KEY/VALUE, never its
// argv (which any process can read in /proc/PID/cmdline) and never a
// file. A child's environment is readable by processes of the same user
// while it lives; ralph-ci fetches and pushes only between rotations,
// when the shepherd (pipeline/agent) has stopped every agent process.
//
// It reads and edits the checkout's config files with git config
// (internal/git.CheckoutConfig), which runs no program.
package gitauth

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// entry is one extraheader setting: the file that holds it, its key and
// value.
type entry struct{ file, key, value string }

// Hidden is what Hide took out of the config files.
type Hidden struct {
	root    string
	entries []entry
}

// Values are the credentials that were hidden (to mask them in output).
func (h *Hidden) Values() []string {
	var out []string
	for _, e := range h.entries {
		out = append(out, e.value)
		if _, cred, ok := strings.Cut(e.value, " basic "); ok {
			out = append(out, strings.TrimSpace(cred))
			if raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred)); err == nil {
				if _, tok, ok := strings.Cut(string(raw), ":"); ok {
					out = append(out, tok)
				}
			}
		}
	}
	return out
}

// Credentials are the hidden entries as credentials of ralph-ci's own
// fetch and push (internal/git.UseCredentials); none when nothing was
// hidden. See the package documentation for when they are used.
func (h *Hidden) Credentials() []git.Credential {
	var out []git.Credential
	seen := map[git.Credential]bool{}
	for _, e := range h.entries {
		url, ok := strings.CutSuffix(strings.TrimPrefix(e.key, "http."), ".extraheader")
		if !ok {
			continue
		}
		c := git.Credential{URL: url, Header: e.value}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// Hide removes every http.*.extraheader of the repository at root from
// the config files git reads there (the repository's config, the files it
// includes, the user's), except files ralph-ci may not write. Outside a
// git repository nothing is hidden.
func Hide(ctx context.Context, root string) (*Hidden, error) {
	h := &Hidden{root: root}
	out, err := runGit(ctx, root, "config", "--show-origin", "--includes", "--null", "--get-regexp", `^http\..*\.extraheader$`)
	if err != nil {
		return h, nil // exit 1: none; not a repository: nothing to hide
	}
	entries := parse(out, root)
	var errs []error
	for _, e := range entries {
		if _, err := runGit(ctx, root, "config", "--file", e.file, "--fixed-value", "--unset-all", e.key, e.value); err != nil {
			errs = append(errs, fmt.Errorf("hiding %s in %s: %w", e.key, e.file, err))
			continue
		}
		h.entries = append(h.entries, e)
	}
	return h, errors.Join(errs...)
}

// Restore puts back what Hide took out. A config file inside the work
// tree that is now a symbolic link, or leads out of the tree through one,
// is refused (safefile.Inside): the tree was the agent's while it ran
// (lent to its user where ralph-ci is root), and git's config writes
// follow a link, so the credential, and root's write, would go where the
// agent pointed it.
func (h *Hidden) Restore(ctx context.Context) error {
	var errs []error
	for _, e := range h.entries {
		if within(h.root, e.file) {
			if err := safefile.Inside(h.root, e.file); err != nil {
				errs = append(errs, fmt.Errorf("restoring %s: %w", e.key, err))
				continue
			}
		}
		if _, err := runGit(ctx, h.root, "config", "--file", e.file, "--add", e.key, e.value); err != nil {
			errs = append(errs, fmt.Errorf("restoring %s in %s: %w", e.key, e.file, err))
		}
	}
	h.entries = nil
	return errors.Join(errs...)
}

// within tells whether path lies in the folder root, by name.
func within(root, path string) bool {
	root, err1 := filepath.Abs(root)
	path, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return true // checked, to be safe
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// parse reads `git config --show-origin --null --get-regexp`: records of
// "file:PATH\0KEY\nVALUE\0". Entries from the command line or standard
// input, and files that are not there, are skipped; relative paths are
// relative to root.
func parse(out []byte, root string) []entry {
	var entries []entry
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		origin, kv := string(fields[i]), string(fields[i+1])
		file, ok := strings.CutPrefix(origin, "file:")
		if !ok {
			continue
		}
		key, value, _ := strings.Cut(kv, "\n")
		if !filepath.IsAbs(file) {
			file = filepath.Join(root, file)
		}
		if _, err := os.Stat(file); err != nil {
			continue
		}
		entries = append(entries, entry{file: file, key: key, value: value})
	}
	return entries
}

// Credential is the job's token as the credential of ralph-ci's own
// fetch and push for serverURL (https://github.com, GITHUB_SERVER_URL),
// the header actions/checkout persists.
func Credential(serverURL, token string) git.Credential {
	cred := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))
	return git.Credential{URL: strings.TrimSuffix(serverURL, "/") + "/", Header: "AUTHORIZATION: basic " + cred}
}

// git runs git through the doorway, in root's repository: it reads and
// edits the repository's config files as data (git config runs no
// program).
func runGit(ctx context.Context, root string, args ...string) ([]byte, error) {
	out, err := git.CheckoutConfig(ctx, root, args[1:]...)
	var ge *git.Error
	if errors.As(err, &ge) {
		return out, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), ge.Err, firstLine([]byte(ge.Stderr)))
	}
	return out, err
}

func firstLine(b []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(b))
	if sc.Scan() {
		return sc.Text()
	}
	return ""
}
