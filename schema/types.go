package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Duration is a time.Duration written as a Go duration string ("30m") in
// configs; integers mean seconds (as the external verifier's timeout).
type Duration time.Duration

// maxSeconds is the largest whole number of seconds a time.Duration holds.
const maxSeconds = float64(math.MaxInt64 / int64(time.Second))

// UnmarshalJSON accepts "1h30m" or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("duration: want a string like \"30m\" or seconds, got %s", b)
	}
	if !(secs >= 0 && secs <= maxSeconds) { // also false for NaN
		return fmt.Errorf("duration: %s seconds is out of range (0 to %d)", b, int64(maxSeconds))
	}
	*d = Duration(time.Duration(secs * float64(time.Second)))
	return nil
}

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// Std returns the duration as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// Command is a verification command: a shell string (run with sh -c) or
// an argv list.
type Command struct {
	Shell string   // set when the user wrote a string
	Argv  []string // set when the user wrote a list
}

// UnmarshalJSON accepts a string or a list of strings.
func (c *Command) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &c.Shell); err == nil {
		return nil
	}
	return json.Unmarshal(b, &c.Argv)
}

// MarshalJSON writes the form the user wrote.
func (c Command) MarshalJSON() ([]byte, error) {
	if c.Argv != nil {
		return json.Marshal(c.Args())
	}
	return json.Marshal(c.Shell)
}

// Args is the argv to execute: [sh -c SHELL] for a shell string.
func (c Command) Args() []string {
	if c.Argv != nil {
		return c.Argv
	}
	return []string{"sh", "-c", c.Shell}
}

// String is the command as a user would type it.
func (c Command) String() string {
	if c.Argv != nil {
		return fmt.Sprintf("%q", c.Argv)
	}
	return c.Shell
}

// AcceptanceCriteriaRef is the placeholder that injects the spec's
// acceptance criteria into a semantic check_for list.
const AcceptanceCriteriaRef = "{{acceptance_criteria}}"

// CheckFor is a semantic check list, or the acceptance-criteria placeholder.
type CheckFor struct {
	Items              []string
	AcceptanceCriteria bool // the user wrote "{{acceptance_criteria}}"
}

// UnmarshalJSON accepts a list of strings or the placeholder string.
func (c *CheckFor) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		c.AcceptanceCriteria = s == AcceptanceCriteriaRef
		return nil
	}
	return json.Unmarshal(b, &c.Items)
}

// MarshalJSON writes the form the user wrote.
func (c CheckFor) MarshalJSON() ([]byte, error) {
	if c.AcceptanceCriteria {
		return json.Marshal(AcceptanceCriteriaRef)
	}
	return json.Marshal(c.Items)
}

// Resolve returns the items, with the placeholder replaced by criteria.
func (c CheckFor) Resolve(criteria []string) []string {
	if c.AcceptanceCriteria {
		return criteria
	}
	return c.Items
}
