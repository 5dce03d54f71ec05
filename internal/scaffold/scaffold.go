// Package scaffold holds what `ralph-ci init` writes into a repository: a
// ralph.yaml for the chosen agent CLI, a first spec, the .gitignore line
// and the two GitHub workflows (the loop on pull requests, with the agent
// CLI's install step and the secret it reads; the merge gate). The
// example workflows of examples/workflows are its output for Claude Code.
package scaffold

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"
)

//go:embed templates
var templates embed.FS

// Agent is what init needs to know of one agent CLI.
type Agent struct {
	Name    string // --agent: claude, codex, gemini, command
	Preset  string // the config's preset, "" for a command
	CLI     string // the CLI's name, for people
	Command string // what the preset runs, for the config's comment
	Install string // the workflow step that installs it, "" for a command
	Secret  string // the variable (and repository secret) holding its key
}

// Agents are the agents init knows, in the order --help lists them.
var Agents = []Agent{
	{Name: "claude", Preset: "claude", CLI: "Claude Code", Command: "claude -p --output-format stream-json ...", Install: "npm install -g @anthropic-ai/claude-code", Secret: "ANTHROPIC_API_KEY"},
	{Name: "codex", Preset: "codex", CLI: "Codex", Command: "codex exec --json ...", Install: "npm install -g @openai/codex", Secret: "OPENAI_API_KEY"},
	{Name: "gemini", Preset: "gemini", CLI: "Gemini CLI", Command: "gemini --output-format json ...", Install: "npm install -g @google/gemini-cli", Secret: "GEMINI_API_KEY"},
	{Name: "command", CLI: "your agent"},
}

// AgentNamed returns the agent called name.
func AgentNamed(name string) (Agent, error) {
	var names []string
	for _, a := range Agents {
		if a.Name == name {
			return a, nil
		}
		names = append(names, a.Name)
	}
	return Agent{}, fmt.Errorf("--agent %q: want one of %s", name, strings.Join(names, ", "))
}

// File is one file init writes, relative to the repository root.
type File struct {
	Path    string
	Content []byte
	Mode    os.FileMode
}

// GitignoreLine keeps the loop's own folder out of git.
const GitignoreLine = ".ralph/"

// Files are the files init writes for agent in a repository whose test
// command is testCommand ("" when none is known). The .gitignore line is
// not among them: it is added to a file that may exist (AppendGitignore).
func Files(agent Agent, testCommand string) ([]File, error) {
	data := struct {
		Agent, Preset, CLI, Command, Install, Secret string
		TestCommand, AllowedTools                    string
	}{agent.Name, agent.Preset, agent.CLI, agent.Command, agent.Install, agent.Secret, testCommand, ""}
	if agent.Name == "claude" && testCommand != "" {
		data.AllowedTools = "Bash(" + strings.Join(firstWords(testCommand, 2), " ") + ":*)"
	}
	render := func(name string) ([]byte, error) {
		src, err := templates.ReadFile("templates/" + name)
		if err != nil {
			return nil, err
		}
		t, err := template.New(name).Delims("[[", "]]").Option("missingkey=error").Parse(string(src))
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		var b bytes.Buffer
		if err := t.Execute(&b, data); err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		return b.Bytes(), nil
	}
	var files []File
	for _, f := range []struct{ template, path string }{
		{"ralph.yaml", "ralph.yaml"},
		{"first.spec.md", "specs/first.spec.md"},
		{"ralph-run.yml", ".github/workflows/ralph-run.yml"},
		{"ralph-check.yml", ".github/workflows/ralph-check.yml"},
	} {
		content, err := render(f.template)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: f.path, Content: content, Mode: 0o644})
	}
	if agent.Preset == "" {
		content, err := render("agent.sh")
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: "agent.sh", Content: content, Mode: 0o755})
	}
	return files, nil
}

func firstWords(s string, n int) []string {
	w := strings.Fields(s)
	return w[:min(n, len(w))]
}

// configNames are the config files ralph-ci finds at a root: init
// refuses to add a ralph.yaml beside any of them.
var configNames = []string{"ralph.yaml", "ralph.yml", "ralph.json", "ralph.cue"}

// Write writes files under root, refusing to overwrite anything: when one
// of them, or another config file, exists, nothing is written and the
// error names them all.
func Write(root string, files []File) error {
	var exist []string
	paths := configNames
	for _, f := range files {
		if !slices.Contains(paths, f.Path) {
			paths = append(paths, f.Path)
		}
	}
	for _, p := range paths {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			exist = append(exist, p)
		}
	}
	if len(exist) > 0 {
		return fmt.Errorf("init writes nothing over existing files: %s (move them away, or edit them by hand)", strings.Join(exist, ", "))
	}
	for _, f := range files {
		path := filepath.Join(root, f.Path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		// O_EXCL: a file that appeared since the check above is not
		// overwritten either.
		out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, f.Mode)
		if err != nil {
			return err
		}
		_, err = out.Write(f.Content)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// AppendGitignore adds the GitignoreLine to root's .gitignore (creating
// it) unless a line already ignores .ralph; it reports whether it added it.
func AppendGitignore(root string) (bool, error) {
	path := filepath.Join(root, ".gitignore")
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return false, err
	}
	for _, line := range strings.Split(string(old), "\n") {
		switch strings.TrimSpace(line) {
		case ".ralph", ".ralph/", "/.ralph", "/.ralph/":
			return false, nil
		}
	}
	add := GitignoreLine + "\n"
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		add = "\n" + add
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return false, err
	}
	_, err = f.WriteString(add)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err == nil, err
}

// testCommands name a repository's test command by a file at its root,
// in this order.
var testCommands = []struct{ file, command string }{
	{"go.mod", "go test ./..."},
	{"Cargo.toml", "cargo test"},
	{"package.json", "npm test"},
	{"pyproject.toml", "python -m pytest"},
	{"setup.py", "python -m pytest"},
	{"pom.xml", "mvn -q test"},
	{"build.gradle", "./gradlew test"},
	{"build.gradle.kts", "./gradlew test"},
	{"Gemfile", "bundle exec rake test"},
}

// TestCommand guesses root's test command from the files at its root, ""
// when none says.
func TestCommand(root string) string {
	for _, tc := range testCommands {
		if _, err := os.Stat(filepath.Join(root, tc.file)); err == nil {
			return tc.command
		}
	}
	return ""
}
