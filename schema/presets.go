package schema

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Preset is a built-in agent (#Presets in config.cue).
type Preset struct {
	Command []string `json:"command"`
	Format  string   `json:"format"`
	// Timeout is #Agent's default timeout, for agents a stage defines
	// only by naming a preset.
	Timeout Duration `json:"-"`
}

// presets returns the built-in agents by name, each with #Agent's
// default timeout.
func (s *Schema) presets() (map[string]Preset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out map[string]Preset
	if err := s.definition("#Presets").Decode(&out); err != nil {
		return nil, fmt.Errorf("embedded schema #Presets: %w", err)
	}
	var timeout string
	def, _ := s.definition("#Agent.timeout").Default()
	if err := def.Decode(&timeout); err != nil {
		return nil, fmt.Errorf("embedded schema #Agent.timeout: %w", err)
	}
	d, err := time.ParseDuration(timeout)
	if err != nil {
		return nil, fmt.Errorf("embedded schema #Agent.timeout: %w", err)
	}
	for name, p := range out {
		p.Timeout = Duration(d)
		out[name] = p
	}
	return out, nil
}

// applyPresets completes every agent: a preset gives the command and
// format the user did not set (args are appended); a stage naming a preset
// that is not defined as an agent gets that preset as an agent.
func applyPresets(cfg *Config, presets map[string]Preset, at func([]string, string) Problem) Problems {
	if cfg.Agents == nil {
		cfg.Agents = map[string]Agent{}
	}
	for _, stage := range StageNames {
		for _, name := range cfg.Stages.Get(stage).Agents {
			if _, defined := cfg.Agents[name]; !defined {
				if _, ok := presets[name]; ok {
					cfg.Agents[name] = Agent{Preset: name, Timeout: presets[name].Timeout, Env: map[string]string{}}
				}
			}
		}
	}
	var ps Problems
	for _, name := range agentNames(cfg) {
		a := cfg.Agents[name]
		if p, ok := presets[a.Preset]; ok {
			if a.Command == nil {
				a.Command = slices.Clone(p.Command)
			}
			if a.Format == "" {
				a.Format = p.Format
			}
		}
		if a.Command == nil {
			ps = append(ps, at([]string{"agents", name}, fmt.Sprintf("give a command (an argv list) or a preset (%s)", strings.Join(presetNames(presets), ", "))))
		}
		a.Command = append(a.Command, a.Args...)
		if a.Format == "" {
			a.Format = "text"
		}
		cfg.Agents[name] = a
	}
	return ps
}

func presetNames(presets map[string]Preset) []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
