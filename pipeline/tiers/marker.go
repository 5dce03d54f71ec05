package tiers

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
)

// MarkerVersion is the version of the marker's content.
const MarkerVersion = 1

// Marker is what the hidden HTML comment of a checkpoint comment holds:
// enough to find the comment again (the spec) and to carry the record
// across workflow runs.
type Marker struct {
	Version int    `json:"v"`
	Spec    string `json:"spec"`
	Record  Record `json:"record"`
}

var markerRE = lazyregexp.New(`<!-- ralph-ci:checkpoint ([^ ]+) ([^ ]*) -->`)

// ErrNoMarker is returned by ParseMarker for a body without a marker.
var ErrNoMarker = errors.New("no ralph-ci checkpoint marker")

// FormatMarker renders m as a hidden HTML comment (base64 JSON, so that
// no feedback text can end the comment early).
func FormatMarker(m Marker) string {
	m.Version = MarkerVersion
	raw, _ := json.Marshal(m) // plain data: cannot fail
	return "<!-- ralph-ci:checkpoint " + url.PathEscape(m.Spec) + " " + base64.StdEncoding.EncodeToString(raw) + " -->"
}

// HasMarker tells whether body carries a checkpoint marker, readable or not.
func HasMarker(body string) bool { return markerRE.MatchString(body) }

// ParseMarker reads the marker of a comment body. The spec is readable
// on its own: when the record cannot be decoded, the marker comes back
// with its Spec and an error (the caller treats it as LogCorruption).
func ParseMarker(body string) (Marker, error) {
	m := markerRE.FindStringSubmatch(body)
	if m == nil {
		return Marker{}, ErrNoMarker
	}
	spec, err := url.PathUnescape(m[1])
	if err != nil || spec == "" {
		return Marker{}, fmt.Errorf("checkpoint marker: unreadable spec %q", m[1])
	}
	out := Marker{Spec: spec}
	raw, err := base64.StdEncoding.DecodeString(m[2])
	if err != nil {
		return out, fmt.Errorf("checkpoint marker of %s: %w", spec, err)
	}
	var data Marker
	if err := json.Unmarshal(raw, &data); err != nil {
		return out, fmt.Errorf("checkpoint marker of %s: %w", spec, err)
	}
	// JSON turns bytes that are not UTF-8 into U+FFFD: a spec file name
	// that is not UTF-8 reads back changed from the record, but exact
	// from the escaped name, which is the one kept.
	if data.Spec != spec && data.Spec != jsonString(spec) {
		return out, fmt.Errorf("checkpoint marker of %s: its record names %q", spec, data.Spec)
	}
	data.Spec = spec
	return data, nil
}

// jsonString is s as it reads back from JSON.
func jsonString(s string) string {
	raw, _ := json.Marshal(s) // a string: cannot fail
	var out string
	_ = json.Unmarshal(raw, &out)
	return out
}
