package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// copiedConfig are the checkout's settings ralph-ci's git directory takes
// (as data, at the first use): they describe the repository and the file
// system, and none names a program, a file, a URL rewrite or a helper.
var copiedConfig = []string{"core.repositoryformatversion", "extensions.objectformat", "core.filemode", "core.symlinks",
	"core.ignorecase", "core.precomposeunicode", "core.autocrlf", "core.eol", "core.safecrlf", "status.showuntrackedfiles"}

// privateFor returns ralph-ci's own git directory for the checkout,
// making it at the first use: the checkout's repository settings and
// origin's URL are read then, as data, and never again.
func privateFor(c Checkout) (*private, error) {
	privMu.Lock()
	defer privMu.Unlock()
	if p, ok := privates[c.Top]; ok {
		if !sameDir(c.GitDir, p.gitDir) || !sameDir(c.CommonDir, p.commonDir) {
			// The agent swapped .git for a link or a "gitdir:" file: git
			// would read and write (the state's pack, the index, fetched
			// objects) in a repository of its choosing, outside the work
			// tree.
			return nil, fmt.Errorf("%s's git directory is not the one ralph-ci started with (%s): refusing to use it", c.Top, c.GitDir)
		}
		return p, nil
	}
	dir, held, err := makePrivateDir(c.Top)
	if err != nil {
		return nil, fmt.Errorf("ralph-ci's own git directory: %w", err)
	}
	p := &private{dir: dir, held: held}
	if p.gitDir, err = os.Stat(c.GitDir); err != nil {
		p.remove()
		return nil, err
	}
	if p.commonDir, err = os.Stat(c.CommonDir); err != nil {
		p.remove()
		return nil, err
	}
	for _, d := range []string{"refs/heads", "refs/tags", "info"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			p.remove()
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o600); err != nil {
		p.remove()
		return nil, err
	}
	p.config = renderConfig(nil, "")
	if err := os.WriteFile(filepath.Join(dir, "config"), p.config, 0o600); err != nil {
		p.remove()
		return nil, err
	}
	settings, err := readConfigFile(dir, filepath.Join(c.CommonDir, "config"))
	if err != nil {
		p.remove()
		return nil, fmt.Errorf("read the settings of %s: %w", c.Top, err)
	}
	p.config = renderConfig(settings, settings["remote.origin.url"])
	p.idLen = 40
	if strings.EqualFold(settings["extensions.objectformat"], "sha256") {
		p.idLen = 64
	}
	// p.exclude stays empty: only the .gitignore files of the tree decide
	// what is ignored (pipeline/changes counts a file the checkout's
	// info/exclude lists as a change, so the commit holds it too), and
	// core.excludesFile is os.DevNull (renderConfig).
	p.alternates, _ = safefile.Read(filepath.Join(c.Objects(), "info", "alternates"), 1<<20)
	if shallow, err := safefile.Read(filepath.Join(c.CommonDir, "shallow"), 64<<20); err == nil {
		if err := os.WriteFile(filepath.Join(dir, "shallow"), shallow, 0o600); err != nil {
			return nil, err
		}
	}
	if p.left, err = record(dir); err != nil {
		p.remove()
		return nil, err
	}
	privates[c.Top] = p
	return p, nil
}

// sameDir tells whether dir is the folder pinned was.
func sameDir(dir string, pinned fs.FileInfo) bool {
	fi, err := os.Stat(dir)
	return err == nil && os.SameFile(fi, pinned)
}

// makePrivateDir makes a git directory of ralph-ci's own, outside the
// work tree top, in ralph-ci's folder (see PrivateBase), held by this
// process (see makeHeldDir). The first time this process uses a folder,
// it removes the git directories there of runs that are gone (sweepGone).
func makePrivateDir(top string) (string, *os.File, error) {
	if privBase == "" || within(privBase, top) {
		base, err := makeBase(top)
		if err != nil {
			return "", nil, err
		}
		if base != privBase {
			sweepGone(base)
		}
		privBase = base
	}
	return makeHeldDir(privBase)
}

// makeBase makes ralph-ci's folder for its git directories (one per
// user, ownName, only it may enter: ownFolder), outside the work tree: in
// SetPrivateDir's folder, else the first of systemBases and the folder
// above the work tree that is outside it and writable.
func makeBase(top string) (string, error) {
	candidates := []string{baseDir}
	if baseDir == "" {
		candidates = append(systemBases(), filepath.Dir(top))
	}
	name, err := ownName()
	if err != nil {
		return "", err
	}
	var errs []error
	for _, base := range candidates {
		abs, err := filepath.Abs(base)
		if base == "" || err != nil || within(abs, top) {
			continue
		}
		dir := filepath.Join(abs, name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := ownFolder(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		return dir, nil
	}
	return "", fmt.Errorf("no folder outside the work tree %s to make it in: %w", top, errors.Join(errs...))
}

// PrivateBase is the folder holding ralph-ci's own git directories ("" until
// the first one is made).
func PrivateBase() string {
	privMu.Lock()
	defer privMu.Unlock()
	return privBase
}

// within tells whether path is dir or inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// readConfigFile reads one config file of the checkout's as data (git
// config --file, without its includes), with ralph-ci's git directory as
// the repository so that nothing else is read.
func readConfigFile(gitDir, file string) (map[string]string, error) {
	if _, err := os.Stat(file); err != nil {
		return nil, nil
	}
	bin, err := binary()
	if err != nil {
		return nil, err
	}
	env := append(baseEnv(), "GIT_DIR="+gitDir)
	out, err := runPlain(context.Background(), bin, gitDir, env, "config", "--file", file, "--null", "--list")
	if err != nil {
		return nil, err
	}
	settings := map[string]string{}
	for _, rec := range strings.Split(string(out), "\x00") {
		k, v, _ := strings.Cut(rec, "\n")
		k = strings.ToLower(k)
		if _, seen := settings[k]; !seen && k != "" {
			settings[k] = v
		}
	}
	return settings, nil
}

// renderConfig is the configuration of ralph-ci's git directory.
func renderConfig(settings map[string]string, originURL string) []byte {
	var b bytes.Buffer
	b.WriteString("# Written by ralph-ci before each git command; edits are lost.\n")
	section := func(name string, kv ...string) {
		fmt.Fprintf(&b, "[%s]\n", name)
		for i := 0; i+1 < len(kv); i += 2 {
			fmt.Fprintf(&b, "\t%s = %s\n", kv[i], quote(kv[i+1]))
		}
	}
	core := []string{"bare", "false", "logAllRefUpdates", "false", "hooksPath", os.DevNull, "fsmonitor", "false",
		"attributesFile", os.DevNull, "excludesFile", os.DevNull, "splitIndex", "false", "quotePath", "false", "pager", "cat", "editor", ":", "askPass", ""}
	for _, k := range copiedConfig {
		v, ok := settings[k]
		name, key, _ := strings.Cut(k, ".")
		if !ok || name != "core" {
			continue
		}
		core = append(core, key, v)
	}
	if _, ok := settings["core.repositoryformatversion"]; !ok {
		core = append(core, "repositoryformatversion", "0")
	}
	section("core", core...)
	if f, ok := settings["extensions.objectformat"]; ok {
		section("extensions", "objectFormat", f)
	}
	status := []string{"submoduleSummary", "false"}
	if v, ok := settings["status.showuntrackedfiles"]; ok {
		status = append(status, "showUntrackedFiles", v)
	}
	section("status", status...)
	section("gc", "auto", "0")
	section("maintenance", "auto", "false")
	section("commit", "gpgSign", "false")
	section("tag", "gpgSign", "false")
	section("push", "gpgSign", "false", "recurseSubmodules", "no")
	section("fetch", "recurseSubmodules", "false", "writeCommitGraph", "false")
	section("submodule", "recurse", "false")
	// Never run git inside a submodule, whose configuration is the agent's
	// (status.submoduleSummary above is off too, and pipeline/changes passes
	// --ignore-submodules=dirty).
	section("diff", "ignoreSubmodules", "dirty")
	section("rebase", "autoStash", "false", "autoSquash", "false")
	section("advice", "detachedHead", "false")
	section("protocol", "allow", "never")
	if scheme := urlScheme(originURL); scheme != "" {
		section(`protocol "`+scheme+`"`, "allow", "always")
		section(`remote "origin"`, "url", originURL, "fetch", "+refs/heads/*:refs/remotes/origin/*")
	}
	return b.Bytes()
}

// urlScheme is the transport of a remote URL ("" when git would not use
// one ralph-ci allows): https, http, ssh (also scp-like user@host:path),
// git or file (a path too). ext:: and other helpers are never allowed.
func urlScheme(u string) string {
	if u == "" || strings.ContainsAny(u, "\n\x00") {
		return ""
	}
	if scheme, _, ok := strings.Cut(u, "://"); ok {
		switch scheme {
		case "https", "http", "ssh", "git", "file":
			return scheme
		}
		return ""
	}
	if strings.Contains(u, "::") {
		return "" // a remote helper (ext::, fd::…)
	}
	if filepath.IsAbs(u) || strings.HasPrefix(u, ".") {
		return "file"
	}
	if at, _, ok := strings.Cut(u, ":"); ok && !strings.Contains(at, "/") {
		return "ssh"
	}
	return ""
}

// quote makes a config value that git reads back as v.
func quote(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(v) + `"`
}

// guard makes ralph-ci's git directory what ralph-ci wrote, before each
// use: its config, an info folder holding only its exclude file, none of
// the files that would make git read another git directory or config; and
// checks that the checkout has no object store git would read besides its
// own that ralph-ci did not see at the first use. swept tells that the
// sweep just made the directory what p.left holds: when that record is
// already so guarded (p.left.guarded), the directory is not looked at
// again (some 30 system calls a git command).
func (p *private) guard(c Checkout, swept bool) error {
	if !swept || !p.left.guarded(p) {
		if err := p.guardDir(); err != nil {
			return err
		}
	}
	alt, _ := safefile.Read(filepath.Join(c.Objects(), "info", "alternates"), 1<<20)
	if !bytes.Equal(alt, p.alternates) {
		return fmt.Errorf("%s changed since ralph-ci started: it names object stores ralph-ci did not choose; refusing to read them", filepath.Join(c.Objects(), "info", "alternates"))
	}
	if fi, err := os.Lstat(c.Objects()); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s is not the folder of the repository's objects", c.Objects())
	}
	if fi, err := os.Lstat(c.Index()); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file: refusing to read it as the index", c.Index())
	}
	return nil
}

// unguarded are the entries of ralph-ci's git directory that would make
// git read another git directory, configuration or program.
var unguarded = []string{"commondir", "gitdir", "config.worktree", "objects", "hooks", "worktrees", "refs/replace", "modules"}

// guarded tells whether the git directory as recorded in l is as guard
// makes it: ralph-ci's config, an info folder holding only its exclude
// file, none of unguarded.
func (l left) guarded(p *private) bool {
	info := l["info"]
	if !info.dir || len(info.names) != 1 || info.names[0] != "exclude" {
		return false
	}
	for rel, want := range map[string][]byte{"config": p.config, "info/exclude": p.exclude} {
		if k, ok := l[rel]; !ok || k.dir || k.other || !bytes.Equal(k.content, want) {
			return false
		}
	}
	for _, name := range unguarded {
		if _, ok := l[name]; ok {
			return false
		}
	}
	return true
}

// guardDir is guard's part in ralph-ci's git directory.
func (p *private) guardDir() error {
	if err := rewrite(filepath.Join(p.dir, "config"), p.config); err != nil {
		return err
	}
	info := filepath.Join(p.dir, "info")
	entries, err := os.ReadDir(info)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		if e.Name() != "exclude" {
			if err := os.RemoveAll(filepath.Join(info, e.Name())); err != nil {
				return err
			}
		}
	}
	if err := os.MkdirAll(info, 0o700); err != nil {
		return err
	}
	if err := rewrite(filepath.Join(info, "exclude"), p.exclude); err != nil {
		return err
	}
	for _, name := range unguarded {
		if err := os.RemoveAll(filepath.Join(p.dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// rewrite makes path hold content (replacing whatever is there: a link, a
// folder, other content), atomically: by a rename, or, for content of the
// length of what the file holds, by one write over it (ralph-ci's git
// directories and refs are written while no other process reads them).
func rewrite(path string, content []byte) error {
	cur, err := safefile.Read(path, int64(len(content))+1)
	if err == nil && bytes.Equal(cur, content) {
		if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
			return nil
		}
	}
	// Content of the same length (a ref moved to another commit) is
	// written over the old in one write, when the file is a regular file
	// of one link: no new file, whose inode ext4 without a journal finds
	// only past every recently deleted one (the checkout's branch after
	// each rotation's commit: 1.8 ms of a 53 ms delivery rotation,
	// bench/delivery.sh under perf).
	if canSpare && err == nil && len(cur) == len(content) && reuse(path, content) == nil {
		return nil
	}
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		_ = os.RemoveAll(path)
	}
	return writeAtomic(path, content)
}

// writeAtomic writes content to a new file (mode 0600) beside path and
// renames it over path: a reader sees the old content or the new, never a
// part of either. The new file is made in path's own folder (renameio's
// WriteFile, used before, probed the temporary folder with two files of
// its own on every write); like git's own ref writes by default
// (core.fsync), it is not synced.
func writeAtomic(path string, content []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(content)
	if err := errors.Join(werr, f.Close()); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return nil
}
