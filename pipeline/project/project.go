// Package project loads everything ralph-ci needs to know about a
// repository before it runs: the config file, the discovered specs and
// their front matter, resolved into plans. Every problem in every file is
// collected, so a user sees them all at once.
package project

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/schema"
)

// ConfigNames are the config files looked for at the repository root.
var ConfigNames = []string{"ralph.cue", "ralph.yaml", "ralph.yml", "ralph.json"}

// Project is a loaded repository.
type Project struct {
	Root       string
	ConfigPath string // relative to Root when inside it
	Config     *schema.Config
	Specs      []plan.Spec
	Warnings   []string
	// Only, when set, restricts the run to these spec paths (a shard of a
	// CI matrix); the other specs are another shard's.
	Only map[string]bool
	// Loader is the loader that read Specs: a run loads the specs again
	// through it between rotations, so that no front matter is validated
	// twice while its content stays the same.
	Loader *Loader
}

// Restrict keeps only the specs in paths (a shard's), for this load and
// every later one of a Loader built with p.Only. A path no spec has is an
// error: the plan and the checkout disagree.
func (p *Project) Restrict(paths []string) error {
	only := map[string]bool{}
	for _, path := range paths {
		only[path] = true
	}
	kept := p.Specs[:0:0]
	for _, sp := range p.Specs {
		if only[sp.Path] {
			kept = append(kept, sp)
			delete(only, sp.Path)
		}
	}
	if len(only) > 0 {
		return fmt.Errorf("--specs names %d file(s) that are not specs of this checkout: %s", len(only), strings.Join(slices.Sorted(maps.Keys(only)), ", "))
	}
	p.Specs, p.Only = kept, map[string]bool{}
	for _, sp := range kept {
		p.Only[sp.Path] = true
	}
	if p.Loader != nil { // its later loads keep to the shard too
		p.Loader.Only, p.Loader.stale = p.Only, true
	}
	return nil
}

// Rediscover discovers the specs of p again with base, another specs
// section (the base commit's, on a pull request), when it differs from
// p's own in its dirs or prompt; it tells whether it did.
func (p *Project) Rediscover(base schema.Specs) (bool, error) {
	own := p.Config.Specs
	if slices.Equal(base.Dirs, own.Dirs) && base.Prompt == own.Prompt {
		return false, nil
	}
	if p.Loader == nil {
		p.Loader = &Loader{Root: p.Root, Config: p.Config, Only: p.Only}
	}
	p.Loader.UseSpecs(base)
	specs, problems, err := p.Loader.Load()
	if err == nil && len(problems) > 0 {
		err = problems
	}
	if err != nil {
		return true, err
	}
	p.Specs = specs
	return true, nil
}

// KeepVerify makes every later load of p's specs keep verify-tier the
// specs that are now (the tiers a pull request's channel raised; a run
// loads the specs again between rotations).
func (p *Project) KeepVerify() {
	if p.Loader == nil {
		return
	}
	p.Loader.Verify = map[string]bool{}
	for _, sp := range p.Specs {
		if sp.Tier == plan.TierVerify {
			p.Loader.Verify[sp.Path] = true
		}
	}
}

// ErrNoConfig is returned when no config file exists (as a
// *NoConfigError, which names the folder and says what to do).
var ErrNoConfig = errors.New("no config found")

// NoConfigError is ErrNoConfig for a folder: where ralph-ci looked, and
// what to do.
type NoConfigError struct {
	Dir string // the root given (-C, the current folder by default)
	// Top is the top of its git repository when ralph-ci also looked in
	// the folders between them ("" when it did not).
	Top string
}

// Error implements error.
func (e *NoConfigError) Error() string {
	where := e.Dir
	if e.Top != "" && filepath.Clean(e.Top) != filepath.Clean(e.Dir) {
		where += " nor in a folder above it up to the repository's top " + e.Top
	}
	return fmt.Sprintf("no config found in %s: create ralph.yaml at the repository root (ralph-ci init writes one; see docs/getting-started.md), run ralph-ci in the folder that holds it (or -C DIR), or pass --config FILE", where)
}

// Is makes errors.Is(err, ErrNoConfig) hold.
func (e *NoConfigError) Is(target error) bool { return target == ErrNoConfig }

// hasConfig tells whether dir holds a config file.
func hasConfig(dir string) bool {
	for _, name := range ConfigNames {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// FindRoot finds the root of a command started in start without -C or
// --config, as golangci-lint finds its config: start itself when it
// holds a config, else the nearest folder above it that does, up to the
// top of its git repository (the folder holding .git). Outside a git
// repository only start is looked at. ok is false when no folder holds
// one; top is then the repository's top, or "".
func FindRoot(start string) (root, top string, ok bool) {
	abs, err := filepath.Abs(start)
	if err != nil {
		return "", "", false
	}
	if hasConfig(abs) {
		return abs, "", true
	}
	top = gitTop(abs)
	if top == "" {
		return "", "", false
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		if hasConfig(dir) {
			return dir, top, true
		}
		if dir == top || filepath.Dir(dir) == dir {
			return "", top, false
		}
	}
}

// gitTop is the nearest folder at or above dir that holds .git (a folder,
// or a worktree's file), or "".
func gitTop(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// Load reads the config (configPath, or the one at the root) and every
// spec. A problem in the files comes back as schema.Problems listing all
// of them; missing files and I/O failures as plain errors. No spec at all
// is a *discovery.NoSpecsError that comes with the project, its config
// loaded and no specs. The garbage collector runs less often meanwhile
// (loadGCPercent).
func Load(root, configPath string) (*Project, error) {
	defer lazierGC()()
	p := &Project{Root: root}
	path, err := findConfig(root, configPath)
	if err != nil {
		return nil, err
	}
	p.ConfigPath = path
	var src []byte
	if filepath.IsAbs(path) { // the user named it, outside the tree or in it
		src, err = safefile.Read(path, safefile.ConfigLimit)
	} else { // the agent may have put a link there: none out of the tree
		src, err = safefile.ReadIn(root, filepath.Join(root, path), safefile.ConfigLimit)
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	cfg, err := schema.LoadConfig(path, src)
	if problems := (schema.Problems)(nil); errors.As(err, &problems) {
		// Check the specs too, where the defaults say they are, so that
		// one run of check shows every problem.
		if found, ferr := discovery.Find(root, discovery.Default); ferr == nil {
			for _, ds := range found {
				_, ps := frontMatter(root, ds, nil)
				problems = append(problems, ps...)
			}
		}
		return nil, problems
	} else if err != nil {
		return nil, err
	}
	p.Config = cfg
	if w := cfg.Workflow; w != nil && w.VisualCheckpoint != nil && *w.VisualCheckpoint {
		p.Warnings = append(p.Warnings, "visual_checkpoint is deprecated. Use **Verification: verify** in your contracts instead.")
	}
	if cfg.Loop.DefaultMaxIterations != nil {
		p.Warnings = append(p.Warnings, "loop.default_max_iterations is deprecated and read by nothing: set each stage's limit with stages.STAGE.max_iterations (coder 15, reviewer 5, tester 10, qa 5 by default)")
	}

	p.Loader = &Loader{Root: root, Config: cfg}
	specs, ps, err := p.Loader.Load()
	if none := (*discovery.NoSpecsError)(nil); errors.As(err, &none) {
		return p, err // the config is loaded: check on a schedule goes on without specs
	}
	if err != nil {
		return nil, err
	}
	if len(ps) > 0 {
		return nil, ps
	}
	p.Specs = specs
	return p, nil
}

// Loader loads the specs again and again during a run (between
// rotations); a spec file is hashed again only when its size or time
// changed (see discovery.Finder), and parsed and validated again only when
// its content changed.
type Loader struct {
	Root   string
	Config *schema.Config
	// Only, when set, keeps only these spec paths (see Project.Restrict).
	Only   map[string]bool
	cache  map[string]loaded // by path and content hash
	finder *discovery.Finder
	// Unchanged, when set, tells that nothing under a spec folder changed
	// since the last load: it is not listed again (discovery.Finder).
	Unchanged func(dir string) bool
	// Verify lists spec paths that are verify-tier whatever their files
	// say (a pull request may raise a spec's tier, never lower it: the
	// checkpoint channel decides them against the base commit).
	Verify map[string]bool
	// specs and problems are the last result, returned again while the
	// finder sees no change and Only stays the same (stale: it changed).
	specs    []plan.Spec
	problems schema.Problems
	stale    bool
}

type loaded struct {
	spec     plan.Spec
	problems schema.Problems
}

// Load discovers the specs under the root where the config says and
// resolves each into a plan. Specs with problems are left out and their
// problems returned; a missing spec set or an I/O failure is an error.
// While nothing
// changed it returns the very slices it returned before: callers read
// them and do not modify them.
func (l *Loader) Load() ([]plan.Spec, schema.Problems, error) {
	cfg := l.Config
	found, err := l.find().Find()
	read := l.finder.Contents() // what Find read is parsed, not read again
	if err != nil {
		l.cache = nil
		return nil, nil, err
	}
	if !l.finder.Changed() && l.cache != nil && !l.stale {
		return l.specs, l.problems, nil
	}
	next := make(map[string]loaded, len(found))
	var specs []plan.Spec
	var problems schema.Problems
	for _, ds := range found {
		if l.Only != nil && !l.Only[ds.Path] {
			continue
		}
		key := ds.Path + "@" + ds.Hash
		c, ok := l.cache[key]
		if !ok {
			fm, ps := frontMatter(l.Root, ds, read[ds.Path])
			delete(read, ds.Path) // parsed: its bytes can go
			if len(ps) == 0 {
				c.spec = plan.Resolve(cfg, ds, fm)
				ps = crossCheck(cfg, c.spec)
			}
			c.problems = ps
		}
		next[key] = c
		if len(c.problems) > 0 {
			problems = append(problems, c.problems...)
			continue
		}
		specs = append(specs, c.spec)
	}
	for i := range specs {
		if l.Verify[specs[i].Path] {
			specs[i].Tier = plan.TierVerify
		}
	}
	l.cache, l.specs, l.problems, l.stale = next, specs, problems, false
	return specs, problems, nil
}

// UseSpecs makes later loads discover the specs where s says (its dirs
// and prompt), e.g. as the pull request's base commit's config says.
func (l *Loader) UseSpecs(s schema.Specs) {
	cfg := *l.Config
	cfg.Specs.Dirs, cfg.Specs.Prompt = s.Dirs, s.Prompt
	l.Config, l.finder, l.stale = &cfg, nil, true
}

// find is the loader's Finder.
func (l *Loader) find() *discovery.Finder {
	if l.finder == nil {
		l.finder = &discovery.Finder{Root: l.Root, Options: discovery.Options{Prompt: l.Config.Specs.Prompt, Dirs: l.Config.Specs.Dirs}}
	}
	l.finder.Unchanged = l.Unchanged
	return l.finder
}

// frontMatter validates one spec's front matter: src, the content its
// hash was taken of, or when src is nil the file as read now. A file that
// cannot be read is a problem of that file too.
func frontMatter(root string, ds discovery.Spec, src []byte) (*schema.FrontMatter, schema.Problems) {
	if src == nil {
		var err error
		if src, err = safefile.ReadIn(root, filepath.Join(root, filepath.FromSlash(ds.Path)), safefile.SpecLimit); err != nil {
			return nil, schema.Problems{{File: ds.Path, Msg: fmt.Sprintf("cannot read: %v", err)}}
		}
	}
	fm, err := schema.LoadFrontMatter(ds.Path, src)
	var ps schema.Problems
	if errors.As(err, &ps) {
		return nil, ps
	} else if err != nil {
		return nil, schema.Problems{{File: ds.Path, Msg: err.Error()}}
	}
	return fm, nil
}

// crossCheck finds references from a spec to the config that do not
// resolve (a semantic judge naming an unknown agent).
func crossCheck(cfg *schema.Config, sp plan.Spec) schema.Problems {
	var ps schema.Problems
	check := func(where, judge string) {
		if judge == "" {
			return
		}
		if _, ok := cfg.Agents[judge]; !ok {
			ps = append(ps, schema.Problem{File: sp.Path, Line: 1, Col: 1, Path: where,
				Msg: fmt.Sprintf("judge %q is not an agent of %s; define it under agents", judge, cfg.File)})
		}
	}
	for _, st := range sp.Stages {
		if st.Default {
			continue
		}
		where := "completion." + st.Name + ".verification_config"
		check(where+".judge", st.Criteria.VerificationConfig.Judge)
		for i, vs := range st.Criteria.VerificationConfig.Stages {
			check(fmt.Sprintf("%s.stages.%d.config.judge", where, i), vs.Config.Judge)
		}
	}
	return ps
}

// findConfig returns the config path: the explicit one, else the single
// config file at the root.
// rootName is the root as a message names it: its absolute path.
func rootName(root string) string {
	if abs, err := filepath.Abs(root); err == nil {
		return abs
	}
	return root
}

func findConfig(root, explicit string) (string, error) {
	if explicit != "" {
		full := explicit
		if !filepath.IsAbs(explicit) {
			full = filepath.Join(root, explicit)
		}
		if fi, err := os.Stat(full); errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("config %s: no such file (--config: a relative path is relative to the root, %s); without --config, ralph-ci reads the ralph.yaml, ralph.yml, ralph.json or ralph.cue of the root", explicit, rootName(root))
		} else if err != nil {
			return "", fmt.Errorf("config %s: %w", explicit, err)
		} else if fi.IsDir() {
			return "", fmt.Errorf("config %s: a folder, not a file: name the config file itself (--config %s)", explicit, filepath.Join(explicit, "ralph.yaml"))
		}
		return explicit, nil
	}
	var found []string
	for _, name := range ConfigNames {
		if _, err := os.Stat(filepath.Join(root, name)); err == nil {
			found = append(found, name)
		}
	}
	switch len(found) {
	case 0:
		_, top, _ := FindRoot(root)
		return "", &NoConfigError{Dir: rootName(root), Top: top}
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("several config files found (%s): keep one, or choose with --config", strings.Join(found, ", "))
}

// loadGCPercent is the garbage collector's target while the specs are
// validated: CUE's garbage is short-lived, and collecting it four times
// less often saves about a third of the CPU of loading a thousand specs,
// for a peak heap still well under what cue vet takes on the same files.
const loadGCPercent = 400

// lazierGC sets the collector's target to loadGCPercent, unless GOGC asks
// for less collection already, and returns what restores it.
func lazierGC() (restore func()) {
	old := debug.SetGCPercent(loadGCPercent)
	if old < 0 || old >= loadGCPercent {
		debug.SetGCPercent(old)
	}
	return func() { debug.SetGCPercent(old) }
}
