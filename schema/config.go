package schema

import (
	"fmt"
	"sort"
	"strings"
)

// Config is a validated ralph-ci configuration with every default filled
// in by the schema (config.cue). The rest of ralph-ci trusts it.
type Config struct {
	Version   int              `json:"version"`
	Agents    map[string]Agent `json:"agents"`
	Stages    Stages           `json:"stages"`
	Loop      Loop             `json:"loop"`
	Budgets   Budgets          `json:"budgets"`
	Specs     Specs            `json:"specs"`
	Layers    Layers           `json:"layers"`
	Reporters Reporters        `json:"reporters"`
	GitHub    GitHub           `json:"github"`
	Delivery  Delivery         `json:"delivery"`
	// Environment says what the processes ralph-ci starts do not inherit
	// beyond the job's credentials and files, which they never do.
	Environment Environment `json:"environment"`
	// Network says what the processes ralph-ci starts may reach.
	Network Network `json:"network"`
	// Box says how the processes ralph-ci starts are boxed.
	Box      Box       `json:"box"`
	Workflow *Workflow `json:"workflow,omitempty"`

	// File is where the config was read from ("" for the built-in one).
	File string `json:"-"`
}

// Agent is one agent CLI. After loading, Command and Format are set:
// from the preset when the user gave one and did not override them.
type Agent struct {
	Preset  string            `json:"preset,omitempty"`
	Command []string          `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Format  string            `json:"format"`
	Timeout Duration          `json:"timeout"`
	Env     map[string]string `json:"env"`
	// EnvPass re-admits names environment.remove removed, for this agent
	// (never the job's credentials); EnvRemove removes more. A name
	// ending in * is a prefix.
	EnvPass   []string `json:"env_pass,omitempty"`
	EnvRemove []string `json:"env_remove,omitempty"`
	// Model prices the tokens of a CLI that does not name its model.
	Model string `json:"model,omitempty"`
	// ModelAPI is where a command agent reads its model API's key and
	// base URL; nil for none (a format's own then).
	ModelAPI *ModelAPI `json:"model_api,omitempty"`
}

// ModelAPI is an agent's model_api.
type ModelAPI struct {
	Keys     []string `json:"keys"`
	BaseURL  string   `json:"base_url,omitempty"`
	Upstream string   `json:"upstream,omitempty"`
	Setting  string   `json:"setting,omitempty"`
}

// Network is the config's network section.
type Network struct {
	// Allow lists the hosts the proxy reaches besides the model APIs.
	Allow []string `json:"allow"`
	// Confinement is "box" (refuse without a network box) or
	// "proxy-only".
	Confinement string `json:"confinement"`
}

// Environment is the config's environment section.
type Environment struct {
	// Remove lists variables (NAME, or a PREFIX_*) no started process
	// inherits.
	Remove []string `json:"remove"`
}

// Box is the config's box section.
type Box struct {
	// Mode is auto, cgroup, pidns or off (internal/box's modes).
	Mode string `json:"mode"`
	// Landlock is auto (limit writes where the kernel has Landlock) or
	// off.
	Landlock string `json:"landlock"`
	// Writable are absolute paths every boxed process may change besides
	// the work tree, its scratch folder, HOME and tool folders.
	Writable []string `json:"writable"`
	// User is auto, off or a user's name (internal/agentuser).
	User string `json:"user"`
}

// StageNames lists the stages in the order they run.
var StageNames = []string{"coder", "reviewer", "tester", "qa"}

// Stages holds the four stages.
type Stages struct {
	Coder    Stage `json:"coder"`
	Reviewer Stage `json:"reviewer"`
	Tester   Stage `json:"tester"`
	QA       Stage `json:"qa"`
}

// Get returns the stage called name (one of StageNames).
func (s *Stages) Get(name string) *Stage {
	switch name {
	case "coder":
		return &s.Coder
	case "reviewer":
		return &s.Reviewer
	case "tester":
		return &s.Tester
	case "qa":
		return &s.QA
	}
	return nil
}

// Stage is one stage's settings and defaults.
type Stage struct {
	Enabled            bool     `json:"enabled"`
	Agents             []string `json:"agents,omitempty"`
	MaxIterations      int      `json:"max_iterations"`
	Promise            string   `json:"promise"`
	VerificationMethod string   `json:"verification_method"`
	// VerificationConfig, when set, verifies the stage of every spec that
	// does not define its own criteria with VerificationMethod.
	VerificationConfig *VerificationConfig `json:"verification_config,omitempty"`
}

// Loop holds the global loop settings.
type Loop struct {
	Enabled              bool   `json:"enabled"`
	DefaultMaxIterations *int   `json:"default_max_iterations,omitempty"` // deprecated: read by nothing but the warning
	DefaultVerification  string `json:"default_verification"`
	StuckAttempts        int    `json:"stuck_attempts"`
	// SameRejections stops a spec rejected this many times in a row for
	// the same reason (the breaker).
	SameRejections int `json:"same_rejections"`
	// MaxVerificationPasses bounds the rotations after the last stage
	// passed: a spec still short of 3/3 then is taken out of the loop.
	MaxVerificationPasses int  `json:"max_verification_passes"`
	Watch                 bool `json:"watch"`
}

// Budgets limit a run; zero values mean unlimited.
type Budgets struct {
	MaxRotations int      `json:"max_rotations,omitempty"`
	WallTime     Duration `json:"wall_time,omitempty"`
	// CostUSD and Tokens bound the run's spend.
	CostUSD float64 `json:"cost_usd,omitempty"`
	Tokens  int64   `json:"tokens,omitempty"`
	// The spend of a rotation, a spec, the loop's state (a pull request)
	// and the repository's day; nil: unbounded.
	PerRotation    *Cap    `json:"per_rotation,omitempty"`
	PerSpec        *Cap    `json:"per_spec,omitempty"`
	PerPullRequest *Cap    `json:"per_pull_request,omitempty"`
	PerDay         *DayCap `json:"per_day,omitempty"`
	// Prices are USD per million tokens by model, over the defaults.
	Prices           map[string]Price `json:"prices,omitempty"`
	MaxSpecRotations int              `json:"max_spec_rotations,omitempty"`
	MaxWait          Duration         `json:"max_wait"`
}

// Cap bounds a spend; a zero field is no bound.
type Cap struct {
	CostUSD float64 `json:"cost_usd,omitempty"`
	Tokens  int64   `json:"tokens,omitempty"`
}

// DayCap is the repository's daily cap and the remote of its ledger.
type DayCap struct {
	Cap
	Remote string `json:"remote"`
}

// Price is a model's price in US dollars per million tokens.
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input,omitempty"`
	CacheWrite  float64 `json:"cache_write,omitempty"`
	Output      float64 `json:"output"`
}

// Specs says where specs are found.
type Specs struct {
	Prompt      string   `json:"prompt"`
	Dirs        []string `json:"dirs"`
	DefaultTier string   `json:"default_tier"`
}

// Layers configures the verification layers.
type Layers struct {
	ContradictionPhrases []string `json:"contradiction_phrases"`
	// Admissions are more wordings of an admission; nil means the
	// built-in list of package layers, empty none.
	Admissions *[]string `json:"admissions,omitempty"`
	// OpenWorkHeadings are the headings of work left; nil means the
	// built-in list of package layers, empty none.
	OpenWorkHeadings *[]string `json:"open_work_headings,omitempty"`
	// CriteriaReport asks for, and reads, the agent's report of the
	// acceptance criteria, each done or not.
	CriteriaReport bool `json:"criteria_report"`
	// UnfinishedMarkers mark work left undone (TODO, FIXME, …).
	UnfinishedMarkers []string `json:"unfinished_markers"`
	// AdmissionFiles are the repository's files of more admission
	// phrases and headings, read from the loop's trusted commit.
	AdmissionFiles []string `json:"admission_files"`
	// SemanticJudge configures the semantic judge of model agents.
	SemanticJudge SemanticJudge `json:"semantic_judge"`
	// Judge is the default semantic judge agent ("" = none).
	Judge  string `json:"judge,omitempty"`
	Review Review `json:"review"`
}

// SemanticJudge configures the semantic judge of a model agent's claims.
type SemanticJudge struct {
	Enabled bool `json:"enabled"`
	// Model is the judge's model ("" = the vendor's small model).
	Model string `json:"model,omitempty"`
}

// Review configures the artifact review loop.
type Review struct {
	Enabled       bool `json:"enabled"`
	MaxIterations int  `json:"max_iterations"`
	Every         int  `json:"every"`
	// Agent is the reviewer agent ("" = the reviewer stage's, see
	// ReviewAgent).
	Agent string `json:"agent,omitempty"`
}

// ReviewAgent is the agent of the artifact review: layers.review.agent,
// else the first of stages.reviewer.agents, else an agent named
// "reviewer"; "" when there is none (the review is then skipped). The
// coder is never its own reviewer by default.
func (c *Config) ReviewAgent() string {
	switch {
	case c.Layers.Review.Agent != "":
		return c.Layers.Review.Agent
	case len(c.Stages.Reviewer.Agents) > 0:
		return c.Stages.Reviewer.Agents[0]
	}
	if _, ok := c.Agents["reviewer"]; ok {
		return "reviewer"
	}
	return ""
}

// Reporters names the report files ("" = not written).
type Reporters struct {
	JUnit string `json:"junit"`
	JSON  string `json:"json"`
}

// GitHub holds the pull-request checkpoint settings.
type GitHub struct {
	Approvers          []string `json:"approvers"`
	RequiredPermission string   `json:"required_permission"`
	IgnorePRAuthor     bool     `json:"ignore_pr_author"`
	// MaxPullRequests bounds the pull requests one scheduled check reads.
	MaxPullRequests int `json:"max_pull_requests"`
	// Timeout bounds each GitHub API request (sending it and reading its
	// answer).
	Timeout Duration `json:"timeout"`
	// ProgressComment keeps one progress comment on the pull request.
	ProgressComment bool `json:"progress_comment"`
	// StatusContext names the one merge-gate status (default ralph-ci).
	StatusContext string `json:"status_context"`
}

// Delivery says how the loop's work and state leave a CI job.
type Delivery struct {
	Mode   string  `json:"mode"`
	Branch string  `json:"branch,omitempty"`
	Author *Author `json:"author,omitempty"`
	// CIWorkflows are started with workflow_dispatch on the pushed branch
	// after the last push (without a push token).
	CIWorkflows []string `json:"ci_workflows"`
}

// Author is a git identity.
type Author struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// Workflow holds deprecated settings kept only to warn about them.
type Workflow struct {
	VisualCheckpoint *bool `json:"visual_checkpoint,omitempty"`
}

// StageAgents is the agent pool of a stage: its `agents` list, else the
// agent named after the stage, else the agent named "coder", else the
// coder stage's pool (so that `stages: {coder: {agents: [claude]}}` gives
// every stage an agent).
func (c *Config) StageAgents(stage string) []string {
	if st := c.Stages.Get(stage); st != nil && len(st.Agents) > 0 {
		return st.Agents
	}
	if _, ok := c.Agents[stage]; ok {
		return []string{stage}
	}
	if _, ok := c.Agents["coder"]; ok {
		return []string{"coder"}
	}
	if stage != "coder" {
		return c.StageAgents("coder")
	}
	return nil
}

// UsedAgents are the agents the enabled stages and the layers start,
// once each, in order.
func (c *Config) UsedAgents() []string {
	var names []string
	add := func(n string) {
		for _, m := range names {
			if m == n {
				return
			}
		}
		if n != "" {
			names = append(names, n)
		}
	}
	for _, st := range StageNames {
		if c.Stages.Get(st).Enabled {
			for _, n := range c.StageAgents(st) {
				add(n)
			}
		}
	}
	add(c.Layers.Judge)
	add(c.Layers.Review.Agent)
	return names
}

// LoadConfig validates a config file's bytes against #Config and decodes
// it. The format comes from the file name's extension. Every problem is
// reported as a Problems error naming filename, line and column.
func LoadConfig(filename string, src []byte) (*Config, error) {
	format, err := FormatOf(filename)
	if err != nil {
		return nil, Problems{{File: filename, Msg: "unknown config format; name it ralph.yaml, ralph.json or ralph.cue"}}
	}
	s, err := Compiled()
	if err != nil {
		return nil, err
	}
	var cfg Config
	if format == CUE {
		err = checkCUE("#Config", filename, src, &cfg)
	} else {
		err = s.check("#Config", filename, format, src, &cfg)
	}
	if err != nil {
		return nil, err
	}
	cfg.File = filename
	presets, err := s.presets()
	if err != nil {
		return nil, err
	}
	at := s.locator(filename, format, src) // parses src once for both
	ps := applyPresets(&cfg, presets, at)
	ps = append(ps, crossCheck(&cfg, at)...)
	if len(ps) > 0 {
		return nil, ps
	}
	return &cfg, nil
}

// checkCUE checks a CUE source within CUEDeadline and CUEMemory, on a
// schema of its own (see checkBounded): a spare one that a previous check
// finished with, else a new one. A schema whose check was abandoned is
// never used again.
func checkCUE(def, filename string, src []byte, out any) error {
	var own *Schema
	select {
	case own = <-spareSchemas:
	default:
		var err error
		if own, err = compile(); err != nil {
			return err
		}
	}
	err := own.checkBounded(def, filename, src, out, CUEDeadline, CUEMemory)
	if !isBoundProblem(err) {
		select {
		case spareSchemas <- own:
		default:
		}
	}
	return err
}

// spareSchemas holds a schema no check is using.
var spareSchemas = make(chan *Schema, 1)

// crossCheck finds what the schema alone cannot: references between
// fields (stage agents must exist).
func crossCheck(cfg *Config, at func([]string, string) Problem) Problems {
	var ps Problems
	if len(cfg.Agents) == 0 {
		return append(ps, at([]string{"agents"}, "define at least one agent, e.g. agents: {coder: {command: [sh, agent.sh]}} or agents: {coder: {preset: claude}}"))
	}
	for _, name := range StageNames {
		st := cfg.Stages.Get(name)
		for i, a := range st.Agents {
			if _, ok := cfg.Agents[a]; !ok {
				ps = append(ps, at([]string{"stages", name, "agents", fmt.Sprint(i)},
					fmt.Sprintf("no agent named %q; defined agents: %s", a, strings.Join(agentNames(cfg), ", "))))
			}
		}
		if st.Enabled && len(cfg.StageAgents(name)) == 0 {
			ps = append(ps, at([]string{"stages", name},
				fmt.Sprintf("no agent for stage %s: define an agent named %q or \"coder\", set stages.%s.agents, or disable the stage", name, name, name)))
		}
	}
	for _, ref := range []struct {
		path []string
		name string
	}{{[]string{"layers", "judge"}, cfg.Layers.Judge}, {[]string{"layers", "review", "agent"}, cfg.Layers.Review.Agent}} {
		if _, ok := cfg.Agents[ref.name]; ref.name != "" && !ok {
			ps = append(ps, at(ref.path, fmt.Sprintf("no agent named %q; defined agents: %s", ref.name, strings.Join(agentNames(cfg), ", "))))
		}
	}
	return ps.sorted()
}

// locator returns a function that places a message at a field path of the
// user's file.
func (s *Schema) locator(filename string, format Format, src []byte) func(path []string, msg string) Problem {
	s.mu.Lock()
	data, err := s.parse(filename, format, src)
	s.mu.Unlock()
	return func(path []string, msg string) Problem {
		p := Problem{File: filename, Path: strings.Join(path, "."), Msg: msg}
		if err == nil {
			s.mu.Lock()
			setPos(&p, nearestPos(data, path))
			s.mu.Unlock()
		}
		return p
	}
}

func agentNames(cfg *Config) []string {
	names := make([]string, 0, len(cfg.Agents))
	for n := range cfg.Agents {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
