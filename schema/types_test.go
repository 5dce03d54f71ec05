package schema

import (
	"testing"
	"time"
)

func TestDurationUnmarshal(t *testing.T) {
	type testCase struct {
		in      string
		want    time.Duration
		wantErr bool
	}
	for _, tc := range []testCase{
		{in: `"30m"`, want: 30 * time.Minute},
		{in: `300`, want: 300 * time.Second},
		{in: `9223372036`, want: 9223372036 * time.Second},
		{in: `9223372037`, wantErr: true}, // would overflow to a negative duration
		{in: `1e300`, wantErr: true},
		{in: `-1`, wantErr: true},
		{in: `"forever"`, wantErr: true},
		{in: `true`, wantErr: true},
	} {
		var d Duration
		err := d.UnmarshalJSON([]byte(tc.in))
		if tc.wantErr {
			if err == nil {
				t.Errorf("UnmarshalJSON(%s) = %v, want an error", tc.in, d.Std())
			}
			continue
		}
		if err != nil || d.Std() != tc.want {
			t.Errorf("UnmarshalJSON(%s) = %v, %v; want %v", tc.in, d.Std(), err, tc.want)
		}
	}
}
