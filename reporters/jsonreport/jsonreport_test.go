package jsonreport_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/golden"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/reporters/jsonreport"
	"github.com/ralph-ci/ralph-ci/reporters/reportstest"
	"github.com/ralph-ci/ralph-ci/schema"
)

func encode(t *testing.T, r *report.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jsonreport.Encode(&buf, r); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return buf.Bytes()
}

func TestGolden(t *testing.T) {
	got := encode(t, reportstest.Report())
	golden.Check(t, "report.golden.json", got)
}

// TestWrittenReportMatchesSchema writes the sample report to a file and
// validates it against #Report in schema/report.cue.
func TestWrittenReportMatchesSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reports", "report.json")
	if err := (&jsonreport.JSON{Path: path}).Report(context.Background(), reportstest.Report()); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.ValidateJSON("#Report", path, src); err != nil {
		t.Fatalf("the written report does not match #Report:\n%v", err)
	}
}

// TestSchemaCoversEveryField fails when a field is added to the Go report
// model but not to schema/report.cue (closed definitions reject it), or
// when the sample report leaves a field unset so the check cannot see it.
func TestSchemaCoversEveryField(t *testing.T) {
	r := reportstest.Report()
	unset := map[string]bool{}
	allFields(reflect.TypeOf(*r), "Report", unset)
	markSet(reflect.ValueOf(*r), "Report", unset)
	for field, isUnset := range unset {
		if isUnset {
			t.Errorf("%s is zero everywhere in reportstest.Report(): set it so this test checks schema/report.cue has it", field)
		}
	}
	if err := schema.ValidateJSON("#Report", "report.json", encode(t, r)); err != nil {
		t.Fatalf("schema/report.cue and report.Report disagree:\n%v", err)
	}
}

// allFields marks every struct field reachable from typ as unset.
func allFields(typ reflect.Type, name string, unset map[string]bool) {
	switch typ.Kind() {
	case reflect.Slice:
		allFields(typ.Elem(), name, unset)
	case reflect.Struct:
		if typ.PkgPath() != "github.com/ralph-ci/ralph-ci/reporters" {
			return // time.Time and the like are leaves
		}
		for i := range typ.NumField() {
			f := typ.Field(i)
			unset[typ.Name()+"."+f.Name] = true
			allFields(f.Type, typ.Name()+"."+f.Name, unset)
		}
	}
}

// markSet clears the mark of every field that is non-zero somewhere in v.
func markSet(v reflect.Value, name string, unset map[string]bool) {
	switch v.Kind() {
	case reflect.Slice:
		for i := range v.Len() {
			markSet(v.Index(i), name, unset)
		}
	case reflect.Struct:
		if v.Type().PkgPath() != "github.com/ralph-ci/ralph-ci/reporters" {
			return
		}
		for i := range v.NumField() {
			key := v.Type().Name() + "." + v.Type().Field(i).Name
			if !v.Field(i).IsZero() {
				unset[key] = false
			}
			markSet(v.Field(i), key, unset)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	want := reportstest.Report()
	got, err := jsonreport.Decode(bytes.NewReader(encode(t, want)), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, jsonreport.Normalize(want)) {
		t.Errorf("decoded report differs:\n got %+v\nwant %+v", got, want)
	}
}

func TestNormalize(t *testing.T) {
	r := reportstest.Report()
	r.Version = 0
	r.Specs[0].CostUSD = math.NaN()
	r.Specs[0].Rotations[0].DurationSeconds = math.Inf(1)
	r.Specs[0].Rotations[0].ChangedFiles = nil
	r.Specs[0].Rotations[0].Layers = nil
	src := encode(t, r)
	if err := schema.ValidateJSON("#Report", "report.json", src); err != nil {
		t.Fatalf("normalised report is invalid: %v", err)
	}
	if !math.IsNaN(r.Specs[0].CostUSD) || r.Specs[0].Rotations[0].Layers != nil {
		t.Error("Encode modified its input")
	}
}

func TestDecodeErrors(t *testing.T) {
	valid := string(encode(t, reportstest.Report()))
	tests := []struct {
		name, src, want string
	}{
		{"not json", "hello", "report.json: not a JSON report"},
		{"array", "[]", "report.json: not a JSON report"},
		{"no version", `{"tool": {}}`, `no "version"`},
		{"future version", `{"version": 2}`, "report version 2; this ralph-ci reads version 1"},
		{"unknown field", strings.Replace(valid, `"command": "run"`, `"command": "run", "colour": "red"`, 1), "colour"},
		{"bad outcome", strings.Replace(valid, `"outcome": "stuck"`, `"outcome": "melted"`, 1), "outcome"},
		{"counter out of range", strings.Replace(valid, `"counter": 0,`, `"counter": 4,`, 1), "counter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := jsonreport.Decode(strings.NewReader(tc.src), "report.json")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
