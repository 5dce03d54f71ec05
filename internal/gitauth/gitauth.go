// Package gitauth keeps the job's git credential away from the agents and
// hands it to ralph-ci's own git processes only.
//
// actions/checkout persists its token as an http.<url>.extraheader in
// .git/config (or in a file .git/config includes): any process in the
// checkout could read it or push with it. [Hide] takes those entries out
// of the config files for as long as ralph-ci runs, and puts them back
// when it is done (a kill -9 leaves them out, which fails closed).
//
// ralph-ci's own git calls (delivery: push, fetch) take the token through
// [Env]: GIT_CONFIG_COUNT/KEY/VALUE on that one git process, never its
// argv (which any process can read in /proc/PID/cmdline) and never a
// file. A child's environment is readable by processes of the same user
// while it lives, so call [Env] only while no agent or verification
// command lives; between rotations, which is when ralph-ci delivers, the
// shepherd (pipeline/agent) has already stopped all of them.
package gitauth

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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

// Env gives one of ralph-ci's own git processes (delivery's fetch and
// push) the hidden entries back, through GIT_CONFIG_COUNT/KEY/VALUE; nil
// when nothing was hidden. See the package documentation for when.
func (h *Hidden) Env() []string {
	var env []string
	seen := map[entry]bool{}
	for _, e := range h.entries {
		k := entry{key: e.key, value: e.value}
		if seen[k] {
			continue
		}
		seen[k] = true
		i := strconv.Itoa(len(seen) - 1)
		env = append(env, "GIT_CONFIG_KEY_"+i+"="+e.key, "GIT_CONFIG_VALUE_"+i+"="+e.value)
	}
	if len(env) == 0 {
		return nil
	}
	return append([]string{"GIT_CONFIG_COUNT=" + strconv.Itoa(len(seen))}, env...)
}

// Hide removes every http.*.extraheader of the repository at root from
// the config files git reads there (the repository's config, the files it
// includes, the user's), except files ralph-ci may not write. Outside a
// git repository nothing is hidden.
func Hide(ctx context.Context, root string) (*Hidden, error) {
	h := &Hidden{root: root}
	out, err := git(ctx, root, "config", "--show-origin", "--includes", "--null", "--get-regexp", `^http\..*\.extraheader$`)
	if err != nil {
		return h, nil // exit 1: none; not a repository: nothing to hide
	}
	entries := parse(out, root)
	var errs []error
	for _, e := range entries {
		if _, err := git(ctx, root, "config", "--file", e.file, "--fixed-value", "--unset-all", e.key, e.value); err != nil {
			errs = append(errs, fmt.Errorf("hiding %s in %s: %w", e.key, e.file, err))
			continue
		}
		h.entries = append(h.entries, e)
	}
	return h, errors.Join(errs...)
}

// Restore puts back what Hide took out.
func (h *Hidden) Restore(ctx context.Context) error {
	var errs []error
	for _, e := range h.entries {
		if _, err := git(ctx, h.root, "config", "--file", e.file, "--add", e.key, e.value); err != nil {
			errs = append(errs, fmt.Errorf("restoring %s in %s: %w", e.key, e.file, err))
		}
	}
	h.entries = nil
	return errors.Join(errs...)
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

// Env is the environment that gives one of ralph-ci's own git processes
// the token for serverURL (https://github.com, GITHUB_SERVER_URL), as
// actions/checkout's header does. Append it to the process's environment;
// it replaces any GIT_CONFIG_COUNT there.
func Env(serverURL, token string) []string {
	cred := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))
	return []string{
		"GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=http." + strings.TrimSuffix(serverURL, "/") + "/.extraheader",
		"GIT_CONFIG_VALUE_0=AUTHORIZATION: basic " + cred,
	}
}

func git(ctx context.Context, root string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, firstLine(stderr.Bytes()))
	}
	return out, nil
}

func firstLine(b []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(b))
	if sc.Scan() {
		return sc.Text()
	}
	return ""
}
