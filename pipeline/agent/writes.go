package agent

import (
	"path/filepath"
	"slices"
	"strings"
)

// Writes is what the processes ralph-ci starts through the shepherd may
// change where the kernel has Landlock (internal/shepherd.AllowWrites);
// everything else they may read, not change. A nil *Writes limits
// nothing.
type Writes struct {
	// Limit tells that Landlock limits the writes (else only Scratch
	// counts).
	Limit bool
	// Paths are granted to every process: the work tree (and its git
	// folders), the run's scratch folder, /dev's devices a process
	// writes, and the config's box.writable.
	Paths []string
	// Scratch is the run's scratch folder ("" for none): TMPDIR, TMP and
	// TEMP of every process name it.
	Scratch string
	// Never are folders no grant may hold, be or be inside (ralph-ci's
	// own git folder): such a grant is left out.
	Never []string
}

// Devices are the files of /dev a process may write: the null and
// random devices, terminals, and shared memory (/dev/shm, POSIX shm_open).
// Not /dev itself: a process that is root without capabilities would
// still write the disks root owns there.
var Devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm"}

// ToolVars are the variables that name where the tools of a process
// keep their state and caches: each process may change the folder its
// own environment names with each (HOME, where the agent CLIs write
// ~/.claude, ~/.claude.json, ~/.codex, ~/.gemini, and npm, pip, go and
// cargo their caches), as an absolute path; GOPATH may list several.
var ToolVars = []string{"HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
	"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GOCACHE", "GOMODCACHE", "GOPATH", "npm_config_cache", "CARGO_HOME", "PIP_CACHE_DIR"}

// For is what a process with the environment env may change
// (Candidates less what Never rules out, each once); nil, for anything
// its user may, when w is nil or does not Limit.
func (w *Writes) For(env []string) []string {
	if w == nil || !w.Limit {
		return nil
	}
	var kept []string
	for _, p := range w.Candidates(env) {
		if !slices.Contains(kept, p) && !w.ruledOut(p) {
			kept = append(kept, p)
		}
	}
	return kept
}

// Candidates are Paths and the folders env's ToolVars name.
func (w *Writes) Candidates(env []string) []string {
	paths := slices.Clone(w.Paths)
	for _, name := range ToolVars {
		for _, p := range filepath.SplitList(lookup(env, name)) {
			if filepath.IsAbs(p) {
				paths = append(paths, filepath.Clean(p))
			}
		}
	}
	return paths
}

// RuledOut are the paths of Paths that Never rules out.
func (w *Writes) RuledOut(paths []string) []string {
	var out []string
	for _, p := range paths {
		if w.ruledOut(p) {
			out = append(out, p)
		}
	}
	return out
}

// ruledOut tells whether granting p would grant a folder of Never.
func (w *Writes) ruledOut(p string) bool {
	for _, n := range w.Never {
		if within(n, p) || within(p, n) {
			return true
		}
	}
	return false
}

// ScratchEnv are TMPDIR, TMP and TEMP naming the scratch folder (none
// without one).
func (w *Writes) ScratchEnv() []string {
	if w == nil || w.Scratch == "" {
		return nil
	}
	return []string{"TMPDIR=" + w.Scratch, "TMP=" + w.Scratch, "TEMP=" + w.Scratch}
}

// within tells whether path is dir or inside it (both absolute, clean).
func within(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}
