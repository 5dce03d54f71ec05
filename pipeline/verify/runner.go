package verify

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/schema"
)

// Runner is one test runner ralph-ci knows: everything the rest of the
// program asks of it, in one file per runner (runner_NAME.go) and one
// entry of [runners]. The exported fields answer the questions of the
// registry in words and patterns (docs/verification.md's table is
// generated from them, and TestRunnersAnswerEveryQuestion fails when one
// is left empty: say None("why") where a runner has no answer); the
// unexported ones are how ralph-ci acts on them.
type Runner struct {
	// Name is how the log, the docs and [RunnerNamed] name it.
	Name string
	// Commands says how it is recognised in a verification command.
	Commands []string
	// Files says how it is recognised from the project's files (for a
	// command that hides it behind a script).
	Files []string
	// Report says how its report or inventory is had: the preset flag
	// or variable, the collection step, the result lines read.
	Report []string
	// Env says how it is asked, through the environment, for per-test
	// results when it runs behind a script (sh check.sh, make test).
	Env []string
	// Config lists its configuration files and the keys in them that
	// select or change which tests run.
	Config []ConfigFile
	// Markers are how a test is skipped, expected to fail, focused,
	// inverted or left as a todo in its source.
	Markers Markers
	// Detect are patterns by which code finds out that it runs under the
	// runner (environment variables, modules): library code that reads
	// them behaves differently under test.
	Detect []string
	// NoTests is what a run of no test looks like in its output.
	NoTests []string
	// TestFiles are the path.Match patterns of its test files' base
	// names (None: it reads another runner's files).
	TestFiles []string
	// TestStart are patterns that match the head of a test in those
	// files (its declaration line, after the decorators or attributes
	// above it): the guard holds each test's body apart, so that tests
	// may be added beside it.
	TestStart []string

	// invoked tells that a command runs it ([Call]); nil: recognised by
	// its report only.
	invoked func(c Call) bool
	// preset is the report a command that runs it gets ([FindPreset]).
	preset func(c Call) (Preset, bool)
	// inProject tells that the project in a folder uses it.
	inProject func(p Project) bool
	// collect is its collection step's argv in the project (nil: none).
	collect func(p Project) []string
	// lines reads its result lines (or, with list, its collection step's
	// names); nil when its output shows none.
	lines func(list bool, root, prefix string) lineReader
	// env is what the command's environment gets, behind a script, for
	// the runner to print per-test results; environ is the environment
	// the command inherits.
	env func(environ []string) []string
}

// ConfigFile is a runner's configuration file (Name: a base name, or a
// prefix ending in "*") and the keys in it that select or change tests
// ("whole file" when all of it does).
type ConfigFile struct {
	Name string
	Keys []string
}

// Markers are the source patterns (regular expressions, matched against
// a line) that keep a test from counting as passed. Each list may be
// None("why").
type Markers struct {
	Skip, ExpectFail, Focus, Invert, Todo []string
}

// MarkerKind is one kind of marker and its patterns.
type MarkerKind struct {
	What     string
	Patterns []string
}

// All is every kind of marker, with what it does, in a fixed order.
func (m Markers) All() []MarkerKind {
	return []MarkerKind{{"skipped", m.Skip}, {"expected to fail", m.ExpectFail}, {"focused", m.Focus}, {"inverted", m.Invert}, {"a todo", m.Todo}}
}

// None is the answer of a runner that has nothing for a question, with
// why: a list holding one entry "none: why".
func None(why string) []string { return []string{"none: " + why} }

// IsNone tells an answer given by [None].
func IsNone(answer []string) bool {
	return len(answer) == 1 && strings.HasPrefix(answer[0], "none: ")
}

// runners is the registry, in the order a command is matched against
// them: the first that recognises it gives its preset.
var runners = []*Runner{&goTest, &cargoTest, &pytest, &unittest, &jest, &vitest, &mocha, &nodeTest, &rspec, &minitest, &maven, &gradle, &junitXML, &tapReport}

// reportReaders are the runners that read a report test_report names,
// whatever wrote it: they have no preset and no result lines.
var reportReaders = []*Runner{&junitXML, &tapReport}

// Runners returns the registry, in matching order.
func Runners() []*Runner { return runners }

// RunnerNamed returns the runner called name, or an error naming the
// known ones.
func RunnerNamed(name string) (*Runner, error) {
	var names []string
	for _, r := range runners {
		if r.Name == name {
			return r, nil
		}
		names = append(names, r.Name)
	}
	return nil, fmt.Errorf("unknown test runner %q: use one of %s", name, strings.Join(names, ", "))
}

// Call is a verification command as the runners read it.
type Call struct {
	// Shell is the command's text (argv joined by spaces).
	Shell string
	// Words are its words when it is one simple command (argv, or shell
	// text without operators or quotes); nil otherwise.
	Words []string
	// Dir is the folder it runs in (absolute); Tmp a folder ralph-ci
	// owns for reports, outside the repository; Environ the environment
	// it inherits.
	Dir, Tmp string
	Environ  []string

	cmd  schema.Command
	argv bool
}

// rebuild is the command with text (shell) or words (argv) in its place.
func (c Call) rebuild(text string, words []string) schema.Command {
	switch {
	case c.argv:
		return schema.Command{Argv: words}
	case c.cmd.Argv != nil:
		return schema.Command{Argv: []string{c.cmd.Argv[0], "-c", text}}
	}
	return schema.Command{Shell: text}
}

// newCall reads cmd, run in dir.
func newCall(cmd schema.Command, dir, tmp string, environ []string) Call {
	c := Call{Shell: cmd.Shell, Dir: dir, Tmp: tmp, Environ: environ, cmd: cmd, argv: cmd.Argv != nil}
	if c.argv {
		if len(cmd.Argv) == 3 && shells[filepath.Base(cmd.Argv[0])] && cmd.Argv[1] == "-c" {
			c.Shell, c.argv = cmd.Argv[2], false
		} else {
			c.Words, c.Shell = cmd.Argv, strings.Join(cmd.Argv, " ")
		}
	}
	if !c.argv {
		c.Words, _ = simpleWords(c.Shell)
	}
	return c
}

// Project is a folder's files as the runners read them.
type Project struct {
	Root, Dir string
	// Prefix is Dir relative to Root.
	Prefix string
}

// Exists tells whether the folder holds name.
func (p Project) Exists(name string) bool {
	t, err := safefile.OpenTree(p.Root)
	if err != nil {
		return false
	}
	defer t.Close()
	_, err = t.Stat(filepath.Join(p.Dir, name))
	return err == nil
}

// Read is name's content in the folder ("" when unreadable, or a link
// that leads out of the work tree).
func (p Project) Read(name string) string {
	b, _ := safefile.ReadIn(p.Root, filepath.Join(p.Dir, name), safefile.ConfigLimit)
	return string(b)
}

// Glob lists the files of the folder's subfolder dir matching pattern,
// relative to the folder.
func (p Project) Glob(dir, pattern string) []string {
	m, _ := filepath.Glob(filepath.Join(p.Dir, dir, pattern))
	for i, f := range m {
		m[i], _ = filepath.Rel(p.Dir, f)
	}
	return m
}

func newProject(root, dir string) Project {
	prefix, _ := filepath.Rel(root, dir)
	return Project{Root: root, Dir: dir, Prefix: prefix}
}

// addTo is environ's value of key with add appended (add alone when it
// has none), as KEY=VALUE.
func addTo(environ []string, key, add string) string {
	v := add
	for _, kv := range environ {
		if old, ok := strings.CutPrefix(kv, key+"="); ok && old != "" {
			v = old + " " + add
		}
	}
	return key + "=" + v
}
