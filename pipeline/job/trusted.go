package job

import (
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/schema"
)

// Trusted is the second step of a job session: the session once its
// command trusts the checkout's config (run: after its guards on its own
// push and on a fork's pull request), with the delivery mode chosen
// (--deliver, else the config's delivery.mode). Session.Trust alone
// builds it: no command holds a mode before the config is read, and none
// chooses one on its own.
type Trusted struct {
	*Session
	Mode deliver.Mode
}

// Trust loads the project (Load; with noSpecsOK a repository without
// specs is loaded with none) and chooses the delivery mode from its
// config. The project stays the command's: a run that moves to the
// branch it delivers to loads that branch's (the mode stays the one
// chosen).
func (s *Session) Trust(noSpecsOK bool) (*Trusted, *project.Project, error) {
	p, err := s.load(noSpecsOK)
	if err != nil {
		return nil, nil, err
	}
	mode, err := deliveryMode(s.Deliver, p.Config)
	if err != nil {
		return nil, nil, err
	}
	return &Trusted{Session: s, Mode: mode}, p, nil
}

// deliveryMode is the mode the --deliver flag names, else the config's
// delivery.mode (the schema allows only the registry's).
func deliveryMode(flag string, cfg *schema.Config) (deliver.Mode, error) {
	if flag == "" {
		return deliver.ModeNamed(cfg.Delivery.Mode)
	}
	m, err := deliver.ModeNamed(flag)
	if err != nil {
		return m, exitcode.Usagef("--deliver %q: want %s", flag, deliver.OrList(deliver.ModeNames()))
	}
	return m, nil
}
